package consolidated

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/authz"
	"toolhost/internal/embed"
	"toolhost/internal/filetest"
	"toolhost/internal/git/gittest"
	"toolhost/internal/memory"
)

// The secrets the walk-around tests try to reach. Each is unique, so finding it in any result
// is the leak.
const (
	sshKey    = "-----BEGIN OPENSSH PRIVATE KEY----- KEYMATERIAL-1"
	envSecret = "API_TOKEN=ENVSECRET-2"
	linkedKey = "LINKEDSECRET-3"
)

// pathHome is a home directory outside the working directory holding credentials, and a project
// outside it with a .env file, for harnesses whose guard knows it as the home directory.
type pathHome struct {
	home, other string
}

func newPathHome(t *testing.T) pathHome {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".ssh/id_ed25519":    sshKey,
		".ssh/config":        "Host x",
		"other/.env":         envSecret,
		"other/src/.env.dev": envSecret,
		"other/readme.txt":   "plain",
		"vault/linked.txt":   linkedKey,
		"notes.txt":          "home notes",
	}
	filetest.WritePrivate(t, home, files)
	return pathHome{home: home, other: filepath.Join(home, "other")}
}

// withHome makes the guard treat p.home as the home directory and protects ~/vault as a
// credential store, so the hard-linked file inside stands for any secret.
func (p pathHome) withHome(c *authz.Config) {
	c.HomeDir = p.home
	c.SecretPaths = append(append([]string{}, authz.DefaultSecretPaths...), "~/vault")
}

// TestSecurityPathWalkArounds tries every way the issue lists to read what read_file refuses:
// separators the guard did not see, ~ in odd places, dot-env files reached through a search
// or a symlink, names listed by a search from the home directory, and hard links. None may
// show a secret; each says why.
func TestSecurityPathWalkArounds(t *testing.T) {
	ph := newPathHome(t)
	h := newHarness(t, harnessOptions{guard: ph.withHome, tools: func(h *harness) []*Tool {
		return []*Tool{testFileTool(h)}
	}})
	h.write(map[string]string{"main.go": "package main\n"})
	if err := os.Symlink(ph.other, filepath.Join(h.wd, "otherlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(ph.home, "vault/linked.txt"), filepath.Join(h.wd, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	home := ph.home
	bs := strings.ReplaceAll(home, "/", `\`)
	tests := []struct {
		name string
		args map[string]any
		// want are substrings the answer must have; every secret must be absent.
		want []string
	}{
		{"read with backslashes after the home directory", map[string]any{"operation": "read_file", "path": home + `\.ssh\id_ed25519`}, []string{"not_found", "separate directories with /"}},
		{"read with backslashes everywhere", map[string]any{"operation": "read_file", "path": bs + `\.ssh\id_ed25519`}, []string{"not_found"}},
		{"read relative with backslashes climbing out", map[string]any{"operation": "read_file", "path": `..\..\` + filepath.Base(home) + `\.ssh\id_ed25519`}, []string{"not_found"}},
		{"read with tilde and backslashes", map[string]any{"operation": "read_file", "path": `~\.ssh\id_ed25519`}, []string{"not_found"}},
		{"read with tilde", map[string]any{"operation": "read_file", "path": "~/.ssh/id_ed25519"}, []string{"secret_path"}},
		{"read with dot segments", map[string]any{"operation": "read_file", "path": home + "/other/../.ssh/./id_ed25519"}, []string{"secret_path"}},
		{"grep with backslashes", map[string]any{"operation": "grep_search", "path": home + `\.ssh`, "pattern": "KEY", "include_hidden": true}, []string{"not_found"}},
		{"grep the home directory", map[string]any{"operation": "grep_search", "path": home, "pattern": "KEY|SECRET", "include_hidden": true}, []string{"secret_path"}},
		{"grep .env outside with include_hidden", map[string]any{"operation": "grep_search", "path": ph.other, "pattern": "TOKEN", "include_hidden": true}, []string{"withheld"}},
		{"grep .env outside through a symlink in the working directory", map[string]any{"operation": "grep_search", "path": "otherlink", "pattern": "TOKEN", "include_hidden": true}, []string{"withheld"}},
		{"grep .env outside by include glob", map[string]any{"operation": "grep_search", "path": ph.other, "pattern": "TOKEN", "include": []string{".env*"}, "include_hidden": true}, []string{"withheld"}},
		{"grep one .env file outside", map[string]any{"operation": "grep_search", "path": ph.other + "/.env", "pattern": "TOKEN"}, []string{"secret_path"}},
		{"read .env outside through a symlink", map[string]any{"operation": "read_file", "path": "otherlink/.env"}, []string{"secret_path"}},
		{"file_search from home lists no names in .ssh", map[string]any{"operation": "file_search", "path": home, "pattern": "**/*", "include_hidden": true}, []string{"withheld", "notes.txt"}},
		{"file_search from home for .ssh entries", map[string]any{"operation": "file_search", "path": home, "pattern": ".ssh/*"}, []string{"0 match"}},
		{"file_search from home by name", map[string]any{"operation": "file_search", "path": "~", "pattern": "id_ed25519"}, []string{"0 match"}},
		{"list_dir from home recursively", map[string]any{"operation": "list_dir", "path": home, "recursive": true, "include_hidden": true}, []string{"withheld", "notes.txt"}},
		{"list_dir of .ssh", map[string]any{"operation": "list_dir", "path": "~/.ssh"}, []string{"secret_path"}},
		{"read a hard link to a secret outside", map[string]any{"operation": "read_file", "path": "innocent.txt"}, []string{"hard_link", "request_authorization"}},
		{"read a hard link by absolute path", map[string]any{"operation": "read_file", "path": h.wd + "/innocent.txt"}, []string{"hard_link"}},
		{"grep the working directory holding a hard link", map[string]any{"operation": "grep_search", "path": ".", "pattern": "SECRET"}, []string{"0 matching", "withheld"}},
		{"grep a hard link directly", map[string]any{"operation": "grep_search", "path": "innocent.txt", "pattern": "SECRET"}, []string{"hard_link"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _ := h.call("file_operations", tt.args)
			for _, secret := range []string{"KEYMATERIAL", "ENVSECRET", "LINKEDSECRET", "id_ed25519\n", ".ssh/config"} {
				if strings.Contains(got, secret) {
					t.Fatalf("file_operations %v revealed %q:\n%s", tt.args, secret, got)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("file_operations %v = %q, want it to contain %q", tt.args, got, w)
				}
			}
		})
	}
}

// TestSecurityPathBackslashIsAName: a backslash is part of a file name, in the check and in the
// open alike, so a file whose name has one is read as itself.
func TestSecurityPathBackslashIsAName(t *testing.T) {
	h := newFileHarness(t, 0)
	h.write(map[string]string{`dir\file.txt`: "literal name", "dir/file.txt": "nested"})
	if got, _ := h.mustOp("read_file", map[string]any{"path": `dir\file.txt`}); !strings.Contains(got, "literal name") {
		t.Errorf(`read_file dir\file.txt = %q, want the file named with a backslash`, got)
	}
	if got, _ := h.mustOp("read_file", map[string]any{"path": "dir/file.txt"}); !strings.Contains(got, "nested") {
		t.Errorf("read_file dir/file.txt = %q, want the nested file", got)
	}
}

// TestSecurityHardLinkInsideOrGranted: hard links are refused only while they may lead outside:
// a file whose links are all in the working directory reads normally, and a grant naming a
// file that is linked outside allows it.
func TestSecurityHardLinkInsideOrGranted(t *testing.T) {
	ph := newPathHome(t)
	h := newHarness(t, harnessOptions{guard: ph.withHome, tools: func(h *harness) []*Tool {
		return []*Tool{testFileTool(h)}
	}})
	h.write(map[string]string{"a.txt": "shared inside"})
	if err := os.Link(filepath.Join(h.wd, "a.txt"), filepath.Join(h.wd, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.mustOp("read_file", map[string]any{"path": "b.txt"}); !strings.Contains(got, "shared inside") {
		t.Errorf("read_file b.txt (both links inside) = %q, want the content", got)
	}
	if got, _ := h.mustOp("grep_search", map[string]any{"path": ".", "pattern": "shared"}); !strings.Contains(got, "2 matching line(s) in 2 file(s)") {
		t.Errorf("grep_search (both links inside) = %q, want both files", got)
	}
	other := filepath.Join(ph.home, "notes.txt")
	if err := os.Link(other, filepath.Join(h.wd, "notes-link.txt")); err != nil {
		t.Fatal(err)
	}
	if got, isErr, _ := h.op("read_file", map[string]any{"path": "notes-link.txt"}); !isErr || !strings.Contains(got, "hard_link") {
		t.Fatalf("read_file notes-link.txt (linked outside) = %q, want hard_link", got)
	}
	if _, err := h.guard.CreateGrant(context.Background(), authz.GrantSpec{Access: "file_operations.read_file", Path: filepath.Join(h.wd, "notes-link.txt"), By: "test"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.mustOp("read_file", map[string]any{"path": "notes-link.txt"}); !strings.Contains(got, "home notes") {
		t.Errorf("read_file notes-link.txt with a grant naming it = %q, want the content", got)
	}
}

// TestSecurityImportHardLink: import_document of a hard link to a secret would put the secret
// into memory for every conversation; it is refused like read_file.
func TestSecurityImportHardLink(t *testing.T) {
	if !embed.BuiltinAvailable() {
		if os.Getenv("CI") != "" {
			t.Fatal("the built-in USE-Lite embedder is missing from this build")
		}
		t.Skip("the built-in USE-Lite embedder is not in this build")
	}
	ph := newPathHome(t)
	h := newHarness(t, harnessOptions{guard: ph.withHome, tools: func(h *harness) []*Tool {
		svc := memory.New(h.st, memory.Config{Embedder: embed.NewUSELite()})
		t.Cleanup(func() { svc.Close() })
		return []*Tool{MemoryTool(MemoryConfig{Service: svc, Guard: h.guard})}
	}})
	if err := os.Link(filepath.Join(ph.home, "vault/linked.txt"), filepath.Join(h.wd, "doc.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"doc.md", `~\vault\linked.txt`, "~/vault/linked.txt", ph.other + "/.env"} {
		got, isErr, _ := h.call("memory_operations", map[string]any{"operation": "import_document", "path": p})
		if !isErr || strings.Contains(got, "Imported") {
			t.Errorf("import_document %s = %q, want a refusal", p, got)
		}
	}
	got, _, _ := h.call("memory_operations", map[string]any{"operation": "search_memory", "query": "LINKEDSECRET ENVSECRET"})
	if strings.Contains(got, "SECRET") {
		t.Errorf("search_memory after refused imports = %q, want no secret", got)
	}
}

// TestSecurityGitDiffScreened: git reads the work tree itself, so a whole-repository git_diff
// leaves out the changed files read_file refuses — here a tracked file replaced by a hard link
// to a secret outside — and says how many; naming the file gets the guard's refusal.
func TestSecurityGitDiffScreened(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.write("key.txt", "placeholder\n")
	h.git("", "add", "key.txt")
	h.git("", "commit", "-qm", "key placeholder")
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte(linkedKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(h.wd, "key.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(h.wd, "key.txt")); err != nil {
		t.Fatal(err)
	}
	h.write("a.txt", "one\ntwo\nthree\nfour\n")
	for _, args := range []map[string]any{{}, {"stat_only": true}} {
		got := h.mustOp("git_diff", args)
		if strings.Contains(got, "LINKEDSECRET") || !strings.Contains(got, "1 changed file(s) withheld") || !strings.Contains(got, "a.txt") {
			t.Errorf("git_diff %v = %q, want a.txt shown and key.txt withheld", args, got)
		}
	}
	if got := h.errOp("git_diff", map[string]any{"paths": []string{"key.txt"}}); !strings.Contains(got, "hard_link") || strings.Contains(got, "LINKEDSECRET") {
		t.Errorf("git_diff key.txt = %q, want the hard_link refusal", got)
	}
	// Staging everything leaves the link out of the index, so no commit can carry it.
	if got := h.mustOp("git_stage", map[string]any{"paths": []string{"."}}); !strings.Contains(got, "not staged, a direct read refuses them") || !strings.Contains(got, "key.txt") {
		t.Errorf("git_stage . = %q, want key.txt left unstaged", got)
	}
	h.mustOp("git_commit", map[string]any{"message": "more"})
	if got := h.mustOp("git_show", map[string]any{"ref": "HEAD"}); strings.Contains(got, "LINKEDSECRET") || !strings.Contains(got, "four") {
		t.Errorf("git_show HEAD = %q, want a.txt's change and no secret", got)
	}
}

// TestSecurityGitShowScreened: git_show reads history itself, so it gets git_diff's screen. A
// REV:path that a direct read of the path refuses is refused with the guard's answer, however the
// name is spelled; a commit's patch leaves out the files a direct read refuses and says how many.
// The repositories: one outside the working directory (readable, but its .env files are secrets),
// one holding toolhost's token file, and the working directory's own with a crafted tree holding
// a nested .git/config.
func TestSecurityGitShowScreened(t *testing.T) {
	ph := newPathHome(t)
	tokRepo := filepath.Join(ph.home, "tok")
	h := newBuildHarness(t, buildOptions{guard: func(c *authz.Config) {
		ph.withHome(c)
		c.TokenFile = filepath.Join(tokRepo, "th-token")
	}})
	const tokenSecret = "TOKENSECRET-4"
	other := ph.other
	gittest.Run(t, other, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(other, "cfg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "cfg", ".env"), []byte(envSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, other, "add", ".")
	gittest.Run(t, other, "commit", "-qm", "fix: env")
	// The work tree now has a symbolic link where history has the directory cfg: the guard
	// would decide on the working directory (where .env files are readable), not on what git
	// reads.
	if err := os.RemoveAll(filepath.Join(other, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(h.wd, filepath.Join(other, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tokRepo, 0o700); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, tokRepo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(tokRepo, "th-token"), []byte(tokenSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, tokRepo, "add", ".")
	gittest.Run(t, tokRepo, "commit", "-qm", "token")
	h.repo("")
	// A tree git would never check out, but history may hold: sub/.git/config.
	blob := strings.TrimSpace(h.git("", "hash-object", "-w", "a.txt"))
	mktree := func(entry string) string {
		t.Helper()
		cmd := exec.Command("git", "mktree")
		cmd.Dir, cmd.Stdin = h.wd, strings.NewReader(entry+"\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	sub := mktree("040000 tree " + mktree("040000 tree "+mktree("100644 blob "+blob+"\tconfig")+"\t.git") + "\tsub")
	crafted := strings.TrimSpace(h.git("", "commit-tree", "-m", "crafted", "-p", "HEAD", sub))
	h.git("", "branch", "crafted", crafted)

	withheld := func(n int) string {
		return fmt.Sprintf("%d changed file(s) withheld (credentials, toolhost state or files linked outside; show one as REV:path to see why)", n)
	}
	for _, tt := range []struct {
		name string
		args map[string]any
		// code is the refusal wanted ("" for an answer); want is in the text.
		code, want string
		// shows is content the answer may hold (the file asked for).
		shows string
	}{
		{"a secret outside", map[string]any{"repo": other, "ref": "HEAD:.env"}, "secret_path", ".env", ""},
		{"a secret outside, ./", map[string]any{"repo": other, "ref": "HEAD:./.env"}, "secret_path", "", ""},
		// git does not resolve dot segments inside a tree path: nothing is found, nothing shown.
		{"a secret outside, dot segments", map[string]any{"repo": other, "ref": "HEAD:src/../.env"}, "not_found", "", ""},
		{"a secret outside, the index form", map[string]any{"repo": other, "ref": ":.env"}, "secret_path", "", ""},
		{"a secret outside, a colon inside braces", map[string]any{"repo": other, "ref": "HEAD^{/fix: env}:.env"}, "secret_path", "", ""},
		{"a secret outside in a subdirectory", map[string]any{"repo": other, "ref": "HEAD:src/.env.dev"}, "secret_path", "", ""},
		{"a secret outside below a directory now linked", map[string]any{"repo": other, "ref": "HEAD:cfg/.env"}, "invalid_path", "symbolic link", ""},
		{"toolhost's token", map[string]any{"repo": tokRepo, "ref": "HEAD:th-token"}, "protected_path", "", ""},
		{"a nested .git/config in history", map[string]any{"ref": "crafted:sub/.git/config"}, "protected_path", "", ""},
		{"a plain file outside", map[string]any{"repo": other, "ref": "HEAD:readme.txt"}, "", "plain", ""},
		{"the root tree outside lists names", map[string]any{"repo": other, "ref": "HEAD:"}, "", ".env", ""},
		{"a commit outside", map[string]any{"repo": other}, "", withheld(3), "plain"},
		{"a commit outside, stat_only", map[string]any{"repo": other, "stat_only": true}, "", withheld(3), ""},
		{"the crafted commit", map[string]any{"ref": "crafted"}, "", withheld(1), ""},
		{"a plain commit", map[string]any{"ref": "main"}, "", "+one", "one\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, isErr := h.op("git_show", tt.args)
			switch {
			case tt.code != "" && (!isErr || !strings.Contains(got, tt.code)):
				t.Errorf("git_show %v = %s\nwant the refusal %s", tt.args, got, tt.code)
			case tt.code == "" && isErr:
				t.Errorf("git_show %v failed: %s", tt.args, got)
			case !strings.Contains(got, tt.want):
				t.Errorf("git_show %v = %s\nwant %q", tt.args, got, tt.want)
			}
			for _, secret := range []string{"ENVSECRET", tokenSecret, "one\n"} {
				if strings.Contains(got, secret) && secret != tt.shows {
					t.Errorf("git_show %v revealed %q:\n%s", tt.args, secret, got)
				}
			}
		})
	}
}
