package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/git/gittest"
	"toolhost/internal/logtest"
	"toolhost/internal/sandbox/sandboxtest"
	"toolhost/internal/secret/secrettest"
)

// secretScene is a user's machine laid out for an attacker: credential stores in HOME,
// another project's .env, a `toolhost serve` with its token in a file of its own, secrets in
// the environment the configuration names or that look like credentials. Everything lies
// outside the places a confined command may write (temp dirs are writable by design), so a
// check sees an escape by its effect.
type secretScene struct {
	root, home, wd, state, config, serveToken string
	// files are the secret files and the marker each holds; env the secret variables.
	files map[string]string
	env   map[string]string
	cs    *mcp.ClientSession
}

func newSecretScene(t *testing.T) *secretScene {
	t.Helper()
	sandboxtest.Require(t)
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required: %v", tool, err)
		}
	}
	root := sandboxtest.OutsideTemp(t)
	s := &secretScene{root: root, home: filepath.Join(root, "home"), state: filepath.Join(root, "state")}
	s.wd = filepath.Join(s.home, "src", "app")
	s.config = filepath.Join(root, "config", "config.toml")
	s.serveToken = filepath.Join(root, "tokens", "serve-token")
	s.files = map[string]string{
		filepath.Join(s.home, ".ssh", "id_ed25519"):         "SECRET-SSH-KEY-1",
		filepath.Join(s.home, ".aws", "credentials"):        "SECRET-AWS-2",
		filepath.Join(s.home, ".netrc"):                     "SECRET-NETRC-3",
		filepath.Join(s.home, ".config", "gh", "hosts.yml"): "SECRET-GH-4",
		filepath.Join(s.home, ".kube", "config"):            "SECRET-KUBE-5",
		filepath.Join(s.home, ".docker", "config.json"):     "SECRET-DOCKER-6",
		filepath.Join(s.home, "src", "other", ".env"):       "SECRET-DOTENV-7",
		filepath.Join(s.home, "src", "other", ".env.local"): "SECRET-DOTENV-LOCAL-8",
		s.serveToken: "th_SECRETSERVETOKEN9",
	}
	s.env = map[string]string{
		"APP_DB_PASSWORD":    "SECRET-DBPASS-10",
		"PROD_DATABASE_URL":  "postgres://u:SECRET-PRODURL-11@127.0.0.1:1/x",
		"GITHUB_TOKEN":       "SECRET-GHTOKEN-12",
		"MY_SERVICE_API_KEY": "SECRET-APIKEY-13",
		"TOOLHOST_TOKEN":     "SECRET-THTOKEN-14",
	}
	plain := map[string]string{
		filepath.Join(s.home, "notes.txt"):             "PLAIN-NOTES",
		filepath.Join(s.home, "src", "other", "a.txt"): "PLAIN-OTHER",
		filepath.Join(s.wd, "Makefile"):                "leak:\n\t-cat $(HOME)/.ssh/id_ed25519 > leaked-make.txt\n\t-cat $(HOME)/.ssh/id_ed25519\n\t-env\n",
		filepath.Join(s.wd, "package.json"):            `{"name":"app","version":"1.0.0","scripts":{"leak":"cat $HOME/.aws/credentials; printenv"}}` + "\n",
		filepath.Join(s.wd, ".env"):                    "OWN-DOTENV", // the working directory's own: readable
		s.config: "[[databases]]\nname = \"app\"\ndriver = \"postgres\"\ndsn = \"postgres://reader:${APP_DB_PASSWORD}@127.0.0.1:1/app\"\n\n" +
			"[[databases]]\nname = \"prod\"\ndriver = \"postgres\"\ndsn_env = \"PROD_DATABASE_URL\"\n",
	}
	for p, content := range s.files {
		plain[p] = content + "\n"
	}
	for p, content := range plain {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(s.state, 0o700); err != nil {
		t.Fatal(err)
	}
	gittest.Isolate(t)
	gittest.Run(t, s.wd, "init", "-q", "-b", "main")
	gittest.Run(t, s.wd, "add", "Makefile")
	gittest.Run(t, s.wd, "commit", "-qm", "first")
	hook := filepath.Join(s.wd, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat \"$HOME/.netrc\" > leaked-hook.txt 2>&1\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.home, ".ssh", "id_ed25519"), filepath.Join(s.wd, "key-link")); err != nil {
		t.Fatal(err)
	}

	// A serve on the same state directory with its token in a file of its own: a stdio
	// server's configuration does not name that file.
	serve := s.cmd("serve", "--addr", "127.0.0.1:0", "--token-file", s.serveToken)
	readServe(t, serve)

	cmd := s.cmd("stdio")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "attacker", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	s.cs = cs
	return s
}

// cmd is the binary with the scene's HOME, state, config, working directory and environment.
func (s *secretScene) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(binary, append(args, "--state-dir", s.state, "--workdir", s.wd, "--config", s.config)...)
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME":
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+s.home, "XDG_CONFIG_HOME="+filepath.Dir(filepath.Dir(s.config)))
	for k, v := range s.env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	return cmd
}

// leaks names the secrets text holds.
func (s *secretScene) leaks(text string) []string {
	var out []string
	for _, m := range s.files {
		if strings.Contains(text, m) {
			out = append(out, m)
		}
	}
	for _, v := range s.env {
		if strings.Contains(text, v) || strings.Contains(text, strings.TrimPrefix(v, "postgres://u:")) {
			out = append(out, v)
		}
	}
	// The dsn's password and the token are also looked for on their own.
	for _, m := range []string{"SECRET-PRODURL-11", "SECRETSERVETOKEN9"} {
		if strings.Contains(text, m) {
			out = append(out, m)
		}
	}
	return out
}

func (s *secretScene) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	text, _ := callText(t, s.cs, tool, args)
	return text
}

// TestTerminalKeepsTheGuardsSecrets tries, through the built binary as a model would, every
// way issue 26 found to read a credential the guard protects: the environment (env, printenv,
// /proc/self/environ of a child), the credential stores in HOME (cat, a symlink in the working
// directory, tar, cp), another project's .env, another server's token file (read_file,
// grep_search, the terminal), a Makefile target, an npm script, a git hook, and the server
// itself (its /proc/PID/environ, a signal). Nothing of any secret reaches the model or a
// file a command may write; the server still answers; and a secret the user grants to
// terminals reads again.
func TestTerminalKeepsTheGuardsSecrets(t *testing.T) {
	s := newSecretScene(t)
	run := func(command string) string {
		return s.call(t, "terminal_operations", map[string]any{"operation": "run_command", "command": command, "timeout": 60})
	}
	var texts []string
	seen := func(what, text string) {
		t.Helper()
		texts = append(texts, text)
		if l := s.leaks(text); len(l) > 0 {
			t.Errorf("%s leaked %v:\n%s", what, l, text)
		}
	}
	attacks := []string{
		"env", "printenv", "cat /proc/self/environ | tr '\\0' '\\n'", "sh -c 'cat /proc/$$/environ' | tr '\\0' '\\n'",
		"cat ~/.ssh/id_ed25519", "cat key-link", "tar cf - -C ~ .ssh .aws 2>&1 | strings",
		"cp -r ~/.ssh stolen-ssh; cat stolen-ssh/*", "cp ~/.aws/credentials stolen-aws; cat stolen-aws",
		"cat ~/.aws/credentials ~/.netrc ~/.config/gh/hosts.yml ~/.kube/config ~/.docker/config.json",
		"cat ~/src/other/.env ~/src/other/.env.local", "grep -r SECRET ~/src/other ~/.ssh ~/.aws 2>&1 | head",
		"cat " + s.serveToken, "cat /proc/$PPID/environ | tr '\\0' '\\n'", "head -c 4096 /proc/$PPID/mem | strings",
		"find ~ -name '*.env*' -exec cat {} \\; 2>/dev/null",
	}
	for _, a := range attacks {
		seen("run_command "+a, run(a))
	}
	// A session sees what a command sees.
	seen("create_session", s.call(t, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "s"}))
	seen("a session line", s.call(t, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "s",
		"text": "cat ~/.ssh/id_ed25519; env | grep -i -e secret -e token", "wait_ms": 5000}))
	// Builds, scripts and hooks run what the repository says.
	seen("run_task make:leak", s.call(t, "build_and_version_control", map[string]any{"operation": "run_task", "name": "make:leak"}))
	if _, err := exec.LookPath("npm"); err == nil {
		seen("run_task npm:leak", s.call(t, "build_and_version_control", map[string]any{"operation": "run_task", "name": "npm:leak"}))
	}
	if err := os.WriteFile(filepath.Join(s.wd, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen("git_stage", s.call(t, "build_and_version_control", map[string]any{"operation": "git_stage", "paths": []string{"b.txt"}}))
	seen("git_commit (a hook reads ~/.netrc)", s.call(t, "build_and_version_control", map[string]any{"operation": "git_commit", "message": "b"}))
	// The other server's token through the file tools.
	seen("read_file of serve's token", s.call(t, "file_operations", map[string]any{"operation": "read_file", "path": s.serveToken}))
	seen("grep_search for serve's token", s.call(t, "file_operations", map[string]any{"operation": "grep_search", "path": filepath.Dir(s.serveToken), "query": "SECRETSERVE"}))
	seen("read_file of another project's .env", s.call(t, "file_operations", map[string]any{"operation": "read_file", "path": filepath.Join(s.home, "src", "other", ".env")}))

	// What commands wrote holds nothing either.
	for _, f := range []string{"leaked-make.txt", "leaked-hook.txt", "stolen-aws", "stolen-ssh/id_ed25519"} {
		if b, err := os.ReadFile(filepath.Join(s.wd, f)); err == nil {
			seen("the file "+f, string(b))
		}
	}

	// The server cannot be stopped or frozen from its terminal.
	seen("kill -STOP", run("kill -STOP $PPID; echo status=$?"))
	seen("kill -TERM", run("kill -TERM $PPID; echo status=$?"))
	if text := s.call(t, "think", map[string]any{"thoughts": "still here?"}); !strings.HasPrefix(text, "Thought recorded") {
		t.Fatalf("the server does not answer after the signals: %s", text)
	}

	// Not vacuous: what is not a secret reads as before, and the attacks did run.
	if text := run("cat ~/notes.txt ~/src/other/a.txt .env; echo HOME=$HOME"); !strings.Contains(text, "PLAIN-NOTES") || !strings.Contains(text, "PLAIN-OTHER") ||
		!strings.Contains(text, "OWN-DOTENV") || !strings.Contains(text, "HOME="+s.home) {
		t.Errorf("plain files and variables are no longer readable:\n%s", text)
	}
	all := strings.Join(texts, "\n")
	if os.Getenv("DUMP") != "" {
		t.Log(all)
	}
	if !regexp.MustCompile(`(?i)permission denied`).MatchString(all) {
		t.Errorf("no attack met a refusal; did they run?\n%s", all)
	}
	// A refused read names the request that would open it.
	if text := run("cat ~/.aws/credentials"); !strings.Contains(text, `"access":"terminal_operations:read"`) || !strings.Contains(text, "request_authorization") {
		t.Errorf("the refused read does not say how to ask for it:\n%s", text)
	}

	// The user's grant opens a credential store to this conversation's later commands.
	req := s.call(t, "user_collaboration", map[string]any{"operation": "request_authorization", "path": filepath.Join(s.home, ".aws"),
		"access": "terminal_operations:read", "recursive": true, "reason": "deploy"})
	id := regexp.MustCompile(`\b(req_[A-Za-z0-9]+|[a-z0-9]{8,})\b`).FindString(req)
	m := regexp.MustCompile(`request_id"?[:= ]+"?([A-Za-z0-9_-]+)`).FindStringSubmatch(req)
	if m != nil {
		id = m[1]
	}
	if out, err := s.cmd("approve", id, "--for", "10m").CombinedOutput(); err != nil {
		t.Fatalf("approve %s: %v %s\n(request: %s)", id, err, out, req)
	}
	if text := run("cat ~/.aws/credentials"); !strings.Contains(text, "SECRET-AWS-2") {
		t.Errorf("the granted credential store is still unreadable:\n%s", text)
	}
	if text := run("cat ~/.ssh/id_ed25519"); strings.Contains(text, "SECRET-SSH-KEY-1") {
		t.Errorf("a grant of ~/.aws opened ~/.ssh:\n%s", text)
	}
}

// TestStdioSaysWhatTheSandboxEnforces: a stdio server tells the user on stderr, as serve does
// on stdout, what its terminal sandbox enforces, without waiting for a call.
func TestStdioSaysWhatTheSandboxEnforces(t *testing.T) {
	cmd := command(t, "stdio")
	var stderr logtest.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
	defer cs.Close()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "terminal sandbox "); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("stdio's log never said what the sandbox enforces:\n%s", stderr.String())
		}
	}
}

// TestSecretsMaskedEverywhere feeds every form of secret of the corpus through the built
// binary — as a command's text, a thought and a path a model sends — and then looks for it
// everywhere a value surfaces: the execution history (the operator API and the resource), the
// commands resource, the console's activity page, the server's log and the audit log. None
// of them may hold a secret; the calls themselves ran with the values as sent.
func TestSecretsMaskedEverywhere(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	logFile := filepath.Join(state, "server.log")
	cmd := commandIn(t, state, work, "serve", "--addr", "127.0.0.1:0")
	if err := os.WriteFile(cmd.Args[len(cmd.Args)-1], []byte("log_file = "+strconv.Quote(logFile)+"\nlog_level = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sv := readServe(t, cmd)
	sv.state, sv.work = state, work
	cs := httpClient(t, sv, "", nil)
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	for i, c := range secrettest.Corpus {
		out, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "run_command", "command": "printf '%s' " + quote(c.Text) + " | wc -c"})
		if !strings.Contains(out, strconv.Itoa(len(c.Text))) {
			t.Errorf("case %d (%s): the command did not get the text as sent: %s", i, c.Name, out)
		}
		call(t, cs, "think", map[string]any{"thoughts": "remember " + c.Text})
		call(t, cs, "file_operations", map[string]any{"operation": "read_file", "path": filepath.Join(work, "missing", c.Text)})
	}
	places := map[string]string{}
	get := func(path string) string {
		req, _ := http.NewRequest("GET", strings.TrimSuffix(sv.url, "/mcp")+path, nil)
		req.Header.Set("Authorization", "Bearer "+sv.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for offset := 0; offset < 3*len(secrettest.Corpus); offset += 100 {
		places["/api/executions"] += get("/api/executions?limit=100&offset=" + strconv.Itoa(offset))
	}
	read := func(uri string) string {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		var b strings.Builder
		for _, c := range res.Contents {
			b.WriteString(c.Text)
		}
		return b.String()
	}
	places["executions resource"] = read("toolhost://executions/recent")
	var conv struct{ ID string }
	if _, st := call(t, cs, "todo_operations", map[string]any{"operation": "read"}); st != nil {
		if id, ok := st["conversation"].(string); ok {
			conv.ID = id
		}
	}
	if conv.ID != "" {
		places["commands resource"] = read("toolhost://conversations/" + url.QueryEscape(conv.ID) + "/commands")
	}
	form := signInForm(t, sv)
	_, places["console activity"] = form.get("/activity")
	cs.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(logFile)
		places["server log"] = string(b)
		if strings.Contains(places["server log"], "read_file") || time.Now().After(deadline) {
			break
		}
	}
	b, _ := os.ReadFile(filepath.Join(state, "audit.jsonl"))
	places["audit log"] = string(b)
	for place, text := range places {
		if len(text) < 100 {
			t.Errorf("%s holds almost nothing (%d bytes); the test would see no leak there", place, len(text))
		}
		for _, c := range secrettest.Corpus {
			if strings.Contains(text, c.Secret) {
				i := strings.Index(text, c.Secret)
				t.Errorf("%s shows the secret of %q: …%s…", place, c.Name, text[max(0, i-60):min(len(text), i+len(c.Secret)+20)])
			}
		}
	}
}
