package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/git/gittest"
	"toolhost/internal/sandbox/sandboxtest"
)

// opText calls one build_and_version_control operation and returns its text and isError.
func opText(t *testing.T, cs *mcp.ClientSession, op string, args map[string]any) (string, bool) {
	t.Helper()
	m := map[string]any{"operation": op}
	for k, v := range args {
		m[k] = v
	}
	res := callWithin(t, cs, time.Minute, "build_and_version_control", m)
	return textOf(res, ""), res.IsError
}

// TestGitWalkAroundsFromATerminal: the working directory is writable to terminals, so a model
// can plant what git runs by itself — a hook, core.fsmonitor, a clean filter — and then ask
// build_and_version_control to run git. Each planted command tries what a terminal may not:
// write into the state directory, read the token, append a grant to the config file. Git runs
// under the terminal's sandbox, so the file system must show that none of it happened, while
// the planted command did run (its log in the working directory says so).
func TestGitWalkAroundsFromATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	sandboxtest.Require(t)
	gittest.Isolate(t)
	state, work := t.TempDir(), t.TempDir()
	token := filepath.Join(state, "token")
	if err := os.WriteFile(token, []byte("th_file_token_secret_0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(state, "config.toml")
	gittest.Run(t, work, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, work, "add", ".")
	gittest.Run(t, work, "commit", "-qm", "first")
	cs := stdioClient(t, state, work)

	// evil.sh NAME: what every planted command runs. It logs to the working directory (which
	// it may write), then tries the three things it must not do; its standard output stays
	// empty, so as a filter it cleans any file to nothing.
	evil := fmt.Sprintf(`log=%[1]s/ran-$1.log
echo ran >> "$log"
echo pwned > %[2]s/pwned-$1 2>> "$log"
cat %[3]s >> %[1]s/stolen-$1 2>> "$log"
printf '[[grants]]\npath = "/"\naccess = "*:write"\nrecursive = true\n' >> %[4]s 2>> "$log"
cat /proc/$PPID/environ /proc/$(ps -o ppid= -p $PPID | tr -d ' ')/environ 2>/dev/null | tr '\0' '\n' | grep -a TOOLHOST_TOKEN >> %[1]s/stolen-$1
exit 0
`, work, state, token, cfg)
	plant := func(command string) {
		t.Helper()
		if text := runText(t, cs, command); !strings.Contains(text, "exit 0") {
			t.Fatalf("planting from the terminal: %q:\n%s", command, text)
		}
	}
	plant("cat > evil.sh <<'EOF'\n" + evil + "EOF\necho planted")

	cases := []struct {
		name  string
		plant string
		// run is the build_and_version_control operation that makes git run the planted
		// command; want is in its answer (the operation itself may succeed or fail).
		op, want string
		args     map[string]any
	}{
		{"pre-commit hook, then git_commit",
			"printf '#!/bin/sh\\nexec sh " + work + "/evil.sh hook\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo b > b.txt && git add b.txt",
			// The hook exits 0 after its attempts fail, so the commit is made: git's own
			// writes (.git, inside the approved repository) are allowed, the hook's outside are not.
			"git_commit", "committed", map[string]any{"message": "with a hook"}},
		{"core.fsmonitor, then git_status",
			"git config core.fsmonitor 'sh " + work + "/evil.sh fsmonitor'",
			// The fsmonitor prints no valid answer, so git falls back to scanning: status works.
			"git_status", "branch main", nil},
		{"clean filter in .gitattributes and .git/config, then git_stage",
			"git config --unset core.fsmonitor; echo '*.dat filter=evil' > .gitattributes && printf '[filter \"evil\"]\\n\\tclean = sh " + work + "/evil.sh filter\\n' >> .git/config && echo data > x.dat",
			// The filter's empty output is what gets staged.
			"git_stage", "A x.dat", map[string]any{"paths": []string{"x.dat"}}},
	}
	names := []string{"hook", "fsmonitor", "filter"}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := names[i]
			plant(c.plant)
			text, isErr := opText(t, cs, c.op, c.args)
			t.Logf("%s (isError %v):\n%s", c.op, isErr, text)
			if !strings.Contains(text, c.want) {
				t.Errorf("%s = (isError %v)\n%s\nwant %q", c.op, isErr, text, c.want)
			}
			log, err := os.ReadFile(filepath.Join(work, "ran-"+name+".log"))
			if err != nil || !strings.Contains(string(log), "ran") {
				t.Fatalf("the planted %s did not run (%v): the test proves nothing", name, err)
			}
			if !strings.Contains(string(log), "Permission denied") {
				t.Errorf("the planted %s's attempts were not refused by the sandbox; its log:\n%s", name, log)
			}
			if _, err := os.Lstat(filepath.Join(state, "pwned-"+name)); err == nil {
				t.Errorf("the planted %s wrote into the state directory", name)
			}
			stolen, _ := os.ReadFile(filepath.Join(work, "stolen-"+name))
			for _, secret := range []string{"th_file_token_secret", "th_env_token_secret"} {
				if strings.Contains(string(stolen), secret) || strings.Contains(text, secret) {
					t.Errorf("the planted %s read a token: %s %s", name, stolen, text)
				}
			}
			if b, _ := os.ReadFile(cfg); strings.Contains(string(b), "grants") {
				t.Errorf("the planted %s changed the config: %s", name, b)
			}
		})
	}

	// Hooks still run as git runs them: a pre-commit hook that generates a file in the working
	// directory and stages it (a formatter's pattern) writes the work tree and the index.
	t.Run("a hook writing inside the working directory still works", func(t *testing.T) {
		plant("printf '#!/bin/sh\\necho generated > generated.txt && git add generated.txt\\n' > .git/hooks/pre-commit && echo c > c.txt")
		if text, isErr := opText(t, cs, "git_stage", map[string]any{"paths": []string{"c.txt"}}); isErr {
			t.Fatalf("git_stage c.txt: %s", text)
		}
		text, isErr := opText(t, cs, "git_commit", map[string]any{"message": "hooked"})
		if isErr || !strings.Contains(text, "generated.txt") {
			t.Errorf("git_commit with a hook that stages a generated file = (isError %v)\n%s\nwant generated.txt committed", isErr, text)
		}
		if got := gittest.Run(t, work, "ls-tree", "--name-only", "HEAD"); !strings.Contains(got, "generated.txt") {
			t.Errorf("HEAD lacks the hook's file:\n%s", got)
		}
	})
}

// TestGitSandboxModes: git follows the [terminal] sandbox mode. Off, git runs as it always did,
// with the user's full authority: a hook writes where it likes (the control for the test
// above). Read-only, where terminals write only in temp dirs, a commit still writes the
// repository the guard approved, and so may its hook, but nothing outside.
func TestGitSandboxModes(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	for _, c := range []struct {
		mode            string
		outside, inRepo bool
	}{
		{"off", true, true},
		{"read-only", false, true},
	} {
		t.Run(c.mode, func(t *testing.T) {
			if c.mode != "off" {
				sandboxtest.Require(t)
			}
			// The repository and the directory the hook tries are outside the temp dirs, which
			// every mode lets commands write (made before Isolate moves HOME into one).
			work, outside := sandboxtest.OutsideTemp(t), sandboxtest.OutsideTemp(t)
			gittest.Isolate(t)
			state := t.TempDir()
			gittest.Run(t, work, "init", "-q", "-b", "main")
			if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gittest.Run(t, work, "add", ".")
			hook := "#!/bin/sh\necho x > " + outside + "/hooked\necho x > hooked\nexit 0\n"
			if err := os.WriteFile(filepath.Join(work, ".git", "hooks", "pre-commit"), []byte(hook), 0o755); err != nil {
				t.Fatal(err)
			}
			cs := stdioClient(t, state, work, "--sandbox", c.mode)
			if text, isErr := opText(t, cs, "git_commit", map[string]any{"message": "first"}); isErr {
				t.Fatalf("git_commit: %s", text)
			}
			if _, err := os.Stat(filepath.Join(outside, "hooked")); (err == nil) != c.outside {
				t.Errorf("the hook wrote outside: %v, want %v", err == nil, c.outside)
			}
			if _, err := os.Stat(filepath.Join(work, "hooked")); (err == nil) != c.inRepo {
				t.Errorf("the hook wrote the repository: %v, want %v", err == nil, c.inRepo)
			}
		})
	}
}
