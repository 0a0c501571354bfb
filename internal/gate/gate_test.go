package gate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
	"toolhost/internal/fifotest"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
	"toolhost/store/storetest"
)

// newGate is a gate on a real guard and store, with rules of the test's own after the
// shipped ones.
func newGate(t *testing.T, rules []string, withhold []string) (*Gate, *authz.Guard, string) {
	t.Helper()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	guard, err := authz.New(context.Background(), authz.Config{WorkDir: wd, Store: storetest.Open(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { guard.Close() })
	g, err := New(Config{Mode: sandbox.ModeOff, Workdir: wd, Rules: rules, DefaultRules: true, Withhold: withhold,
		Guard: guard, Runner: authz.Runner{Tool: "terminal_operations", Operations: []string{"run_command"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, guard, wd
}

// TestExplainIsCheck: `toolhost rules test` (Explain) reaches the verdict a command gets
// (Check, Start): the same rules, the same reading of the scripts a line runs, and the same
// approvals. Before the gate, the CLI read scripts its own way and ignored approvals.
func TestExplainIsCheck(t *testing.T) {
	g, guard, wd := newGate(t, []string{"deny make deploy*", "ask curl*"}, nil)
	ctx := context.Background()
	script := filepath.Join(wd, "release.sh")
	if err := os.WriteFile(script, []byte("make deploy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(wd, "fifo.sh")
	fifotest.Make(t, fifo)
	tests := []struct {
		line string
		want cmdrules.Action
	}{
		{"ls -la", cmdrules.Allow},
		{"make deploy-prod", cmdrules.Deny},
		{"echo ok && make deploy", cmdrules.Deny},
		{"bash release.sh", cmdrules.Deny}, // the script is read and checked
		{"source fifo.sh", cmdrules.Ask},   // a FIFO is not read (it would block): unknown, asked
		{"curl http://127.0.0.1/", cmdrules.Ask},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			done := make(chan struct{})
			var v cmdrules.Verdict
			var err error
			go func() {
				defer close(done)
				v, _, err = g.Explain(ctx, "c1", Line{Text: tt.line, Dir: wd})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("Explain(%q) hangs", tt.line)
			}
			if err != nil || v.Action != tt.want {
				t.Fatalf("Explain(%q) = %v, %v; want %s", tt.line, v, err, tt.want)
			}
			cerr := g.Check(ctx, "c1", Line{Text: tt.line, Dir: wd})
			var r *cmdrules.Refusal
			switch {
			case tt.want == cmdrules.Allow && cerr != nil:
				t.Errorf("Check(%q) = %v, want it to run", tt.line, cerr)
			case tt.want != cmdrules.Allow && (!errors.As(cerr, &r) || r.Verdict.Action != tt.want):
				t.Errorf("Check(%q) = %v, want a refusal with action %s", tt.line, cerr, tt.want)
			}
		})
	}

	// Once the user approves the asked line, both say so.
	err := g.Check(ctx, "c1", Line{Text: "curl http://127.0.0.1/", Dir: wd})
	var r *cmdrules.Refusal
	if !errors.As(err, &r) || r.RequestID == "" {
		t.Fatalf("Check of an asked line = %v, want a request", err)
	}
	if _, _, err := guard.Approvals().Approve(ctx, r.RequestID, time.Hour, false, "test"); err != nil {
		t.Fatal(err)
	}
	if err := g.Check(ctx, "c1", Line{Text: "curl http://127.0.0.1/", Dir: wd}); err != nil {
		t.Errorf("Check of the approved line = %v", err)
	}
	if v, approved, err := g.Explain(ctx, "c1", Line{Text: "curl http://127.0.0.1/", Dir: wd}); err != nil || v.Action != cmdrules.Ask || !approved {
		t.Errorf("Explain of the approved line = %v, approved %v, %v; want ask, approved", v, approved, err)
	}
	if _, approved, _ := g.Explain(ctx, "c2", Line{Text: "curl http://127.0.0.1/", Dir: wd}); approved {
		t.Error("another conversation holds the approval")
	}
}

// TestStartChecksTheLineFirst: a start whose line the rules deny gets no policy and no
// environment; a start without a line (a session's shell, git) is not checked.
func TestStartChecksTheLineFirst(t *testing.T) {
	g, _, wd := newGate(t, []string{"deny rm -rf*"}, nil)
	ctx := context.Background()
	if s, err := g.Start(ctx, Request{Conversation: "c", Line: "rm -rf /", Dir: wd}); err == nil || s != nil {
		t.Errorf("Start of a denied line = %+v, %v; want a refusal", s, err)
	}
	if _, err := g.Start(ctx, Request{Conversation: "c", Line: "for x in 1; do", Dir: wd}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Start of an unfinished statement = %v, want ErrIncomplete", err)
	}
	s, err := g.Start(ctx, Request{Conversation: "c", Dir: wd})
	if err != nil || s.Policy != nil || len(s.Env) == 0 {
		t.Errorf("Start of a shell with the sandbox off = %+v, %v; want no policy and an environment", s, err)
	}
}

// TestEnvironWithholds: toolhost's variables and the configured ones never reach a child;
// everything else does.
func TestEnvironWithholds(t *testing.T) {
	t.Setenv("TOOLHOST_TOKEN", "th_secret")
	t.Setenv("TOOLHOST_ANYTHING", "x")
	t.Setenv("MY_API_KEY", "k")
	t.Setenv("EMBED_KEY", "k2")
	t.Setenv("KEEP_ME", "yes")
	g, _, _ := newGate(t, nil, []string{"MY_API_*", "EMBED_KEY"})
	env := g.Environ()
	for _, name := range []string{"TOOLHOST_TOKEN", "TOOLHOST_ANYTHING", "MY_API_KEY", "EMBED_KEY"} {
		if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") }) {
			t.Errorf("Environ() keeps %s", name)
		}
	}
	if !slices.Contains(env, "KEEP_ME=yes") {
		t.Error("Environ() lost KEEP_ME")
	}
	var none *Gate
	if slices.ContainsFunc(none.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TOOLHOST_") }) {
		t.Error("a nil gate's environment keeps TOOLHOST_* variables")
	}
}

// TestNilGateConfinesNothing: engines built without a gate (their own tests) run everything
// unconfined, every line allowed.
func TestNilGateConfinesNothing(t *testing.T) {
	var g *Gate
	ctx := context.Background()
	if err := g.Check(ctx, "c", Line{Text: "rm -rf /"}); err != nil {
		t.Errorf("nil Check = %v", err)
	}
	s, err := g.Start(ctx, Request{Line: "anything"})
	if err != nil || s.Policy != nil {
		t.Errorf("nil Start = %+v, %v", s, err)
	}
	if st := g.Status(); st.Effective != sandbox.ModeOff {
		t.Errorf("nil Status = %+v", st)
	}
}

// TestLooksSecret: the names of credentials models find with env or printenv, and the names
// that only look alike.
func TestLooksSecret(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"GITHUB_TOKEN", true}, {"GH_TOKEN", true}, {"NODE_AUTH_TOKEN", true}, {"STRIPE_SECRET_KEY", true},
		{"DB_PASSWORD", true}, {"PGPASSWORD", true}, {"PG_PASSWORD", true}, {"SMTP_PASSWD", true},
		{"OPENAI_API_KEY", true}, {"my_service_api_key", true}, {"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_ACCESS_KEY_ID", true}, {"AWS_SESSION_TOKEN", true}, {"DATABASE_URL", true},
		{"PROD_DATABASE_URL", true}, {"CLIENT_SECRET", true}, {"JWT_PRIVATE_KEY", true},
		{"SLACK_WEBHOOK_URL", true}, {"SSH_AUTH_SOCK", true}, {"TOKEN", true},
		{"PATH", false}, {"HOME", false}, {"PWD", false}, {"OLDPWD", false}, {"TOKENIZERS_PARALLELISM", false},
		{"GOPATH", false}, {"AWS_REGION", false}, {"KEYMAP", false}, {"LANG", false}, {"EDITOR", false},
		{"PASSWORD_STORE_DIR", true}, // named like one: withheld, pass_env lets it through
	} {
		if got := LooksSecret(tt.name); got != tt.want {
			t.Errorf("LooksSecret(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPassEnv: the user's pass_env lets a withheld variable through, never a TOOLHOST_* one.
func TestPassEnv(t *testing.T) {
	g, err := New(Config{Mode: sandbox.ModeOff, Withhold: []string{"APP_DB_HOST"}, PassEnv: []string{"NPM_TOKEN", "APP_*", "TOOLHOST_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"NPM_TOKEN": false, "APP_DB_HOST": false, "GITHUB_TOKEN": true, "TOOLHOST_TOKEN": true, "HOME": false} {
		if got := g.Withheld(name); got != want {
			t.Errorf("Withheld(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestEnvScan: the other projects' dotenv files the sandbox hides: in HOME, above the working
// directory and beside it; not the working directory's own, not deeper ones, not directories
// named .env (a Python virtualenv), and not what lies in temp dirs.
func TestEnvScan(t *testing.T) {
	// Outside the temp dirs, as a user's HOME is.
	root := sandboxtest.OutsideTemp(t)
	home := filepath.Join(root, "home")
	wd := filepath.Join(home, "src", "app")
	files := []string{
		"home/.env", "home/.envrc", "home/src/.env.local", "home/src/other/.env", "home/src/other/.env.production",
		"home/src/app/.env", "home/src/other/deep/.env", "home/src/third/notes.txt",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "src", "venv-project", ".env", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	var e envScan
	got := e.files(wd, home)
	slices.Sort(got)
	want := []string{filepath.Join(home, ".env"), filepath.Join(home, ".envrc"), filepath.Join(home, "src", ".env.local"),
		filepath.Join(home, "src", "other", ".env"), filepath.Join(home, "src", "other", ".env.production")}
	if !slices.Equal(got, want) {
		t.Errorf("files = %v\nwant %v", got, want)
	}
	// Cached: a new file in a listed directory is seen at the next start.
	if err := os.WriteFile(filepath.Join(home, "src", "third", ".env"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := e.files(wd, home); !slices.Contains(got, filepath.Join(home, "src", "third", ".env")) {
		t.Errorf("a new .env beside the working directory is not seen: %v", got)
	}
	// A project moved in beside the working directory, with its .env, is seen at the next
	// start; so is a .env written in HOME.
	moved := filepath.Join(root, "incoming")
	if err := os.MkdirAll(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(moved, ".env"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.files(wd, home)
	if err := os.Rename(moved, filepath.Join(home, "src", "fourth")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".env.production"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got = e.files(wd, home)
	for _, f := range []string{filepath.Join(home, "src", "fourth", ".env"), filepath.Join(home, ".env.production")} {
		if !slices.Contains(got, f) {
			t.Errorf("%s is not seen at the next start: %v", f, got)
		}
	}
	// In a temp dir nothing is scanned.
	tmpWD := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(tmpWD, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(tmpWD), ".env"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := e.files(tmpWD, ""); len(got) != 0 {
		t.Errorf("files for a working directory in a temp dir = %v, want none", got)
	}
}

// TestStartInAnotherTemp: a process the terminal host starts outlives the server whose gate
// decided it, so it gets the host's private TMPDIR instead of the gate's (in its policy and its
// environment); a start without one keeps the gate's, and a gate that gives none ignores it.
func TestStartInAnotherTemp(t *testing.T) {
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A protected path inside the temp directory makes the gate give a private TMPDIR.
	state := filepath.Join(os.TempDir(), "toolhost-gate-test-state")
	confine := func(mode sandbox.Mode, _ bool) sandbox.Status {
		return sandbox.Status{Mode: mode, Effective: mode, ABI: 6}
	}
	g, err := New(Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: wd, Protected: []string{state}, Probe: confine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	own := g.PrivateTemp()
	if own == "" {
		t.Fatal("no private TMPDIR although a protected path lies in the temp directory")
	}
	hostTemp := filepath.Join(os.TempDir(), "toolhost-tmp-host-test")
	ctx := context.Background()
	for _, tt := range []struct {
		name, temp, want string
	}{
		{"the gate's own", "", own},
		{"the host's", hostTemp, hostTemp},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := g.Start(ctx, Request{Conversation: "c", Dir: wd, Temp: tt.temp})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(s.Env, "TMPDIR="+tt.want) {
				t.Errorf("Start(Temp %q) environment has no TMPDIR=%s", tt.temp, tt.want)
			}
			if s.Policy == nil || !slices.Contains(s.Policy.Temp, tt.want) {
				t.Errorf("Start(Temp %q) policy temp dirs = %v, want %s among them", tt.temp, s.Policy, tt.want)
			}
			if tt.want != own && slices.Contains(s.Policy.Temp, own) {
				t.Errorf("Start(Temp %q) still writes the gate's own TMPDIR %s", tt.temp, own)
			}
		})
	}
	// Without a private TMPDIR of its own, the gate leaves the system's alone.
	plain, err := New(Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: wd, Probe: confine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	s, err := plain.Start(ctx, Request{Conversation: "c", Dir: wd, Temp: hostTemp})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.Env, "TMPDIR="+hostTemp) || slices.Contains(s.Policy.Temp, hostTemp) {
		t.Errorf("a gate without a private TMPDIR moved the start to %s: %+v", hostTemp, s.Policy)
	}
}

// TestVerdictsFollowScripts: a line checked again gets the same verdict, and one that runs a
// script is checked against the script as it is now, not as it was when first checked.
func TestVerdictsFollowScripts(t *testing.T) {
	g, _, wd := newGate(t, []string{"deny make deploy*"}, nil)
	ctx := context.Background()
	script := filepath.Join(wd, "release.sh")
	steps := []struct {
		script string // "" leaves it as it is
		line   string
		denied bool
	}{
		{"make test\n", "bash release.sh", false},
		{"", "make deploy-prod", true},
		{"", "make deploy-prod", true},
		{"make deploy-prod\n", "bash release.sh", true},
		{"make test\n", "bash release.sh", false},
		{"", "ls", false},
		{"", "ls", false},
	}
	for i, s := range steps {
		if s.script != "" {
			if err := os.WriteFile(script, []byte(s.script), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := g.Check(ctx, "c", Line{Text: s.line, Dir: wd})
		if denied := err != nil; denied != s.denied {
			t.Errorf("step %d: Check(%q) with release.sh %q = %v, want denied=%v", i, s.line, s.script, err, s.denied)
		}
	}
}

// TestPolicyHidden: what a process may not read is every protected and secret path and the
// other projects' dotenv files, each once, in order; a conversation's read grant for terminals
// opens what it covers, except toolhost's own files, which no grant opens.
func TestPolicyHidden(t *testing.T) {
	sandboxtest.Require(t)
	home := sandboxtest.OutsideTemp(t)
	wd := filepath.Join(home, "src", "app")
	state := filepath.Join(home, ".local", "state", "toolhost")
	for _, d := range []string{wd, state, filepath.Join(home, ".ssh"), filepath.Join(home, "src", "other")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(home, "src", "other", ".env"), filepath.Join(home, "src", "other", ".env.local"), filepath.Join(wd, ".env")} {
		if err := os.WriteFile(f, []byte("K=v\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	guard, err := authz.New(ctx, authz.Config{WorkDir: wd, HomeDir: home, Store: storetest.OpenDir(t, state)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { guard.Close() })
	g, err := New(Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: wd, Home: home, Guard: guard,
		Protected: []string{state}, Hidden: []string{state, state}, // twice: listed once
		Runner: authz.Runner{Tool: "terminal_operations", Operations: []string{"run_command"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ssh, otherEnv := filepath.Join(home, ".ssh"), filepath.Join(home, "src", "other", ".env")
	tests := []struct {
		name     string
		grants   []authz.GrantSpec
		hidden   []string // must be in Policy.Hidden
		readable []string // must not
	}{
		{"no grant", nil, []string{state, ssh, otherEnv, otherEnv + ".local"}, []string{filepath.Join(wd, ".env")}},
		{"a grant on ~/.ssh", []authz.GrantSpec{{Access: "terminal_operations:read", Path: ssh, Recursive: true}},
			[]string{state, otherEnv}, []string{ssh}},
		{"a grant on one dotenv file", []authz.GrantSpec{{Access: "terminal_operations:read", Path: otherEnv}},
			[]string{state, ssh, otherEnv + ".local"}, []string{otherEnv}},
		{"a grant on the whole home", []authz.GrantSpec{{Access: "terminal_operations:read", Path: home, Recursive: true}},
			[]string{state}, []string{ssh, otherEnv, otherEnv + ".local"}},
		{"a grant on the state", []authz.GrantSpec{{Access: "terminal_operations:read", Path: state, Recursive: true}},
			[]string{state, ssh}, nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conv := "c" + strconv.Itoa(i)
			for _, s := range tt.grants {
				s.Conversation, s.By = conv, "t"
				if _, err := guard.CreateGrant(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			p, err := g.Policy(ctx, conv)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(p.Hidden) || len(slices.Compact(slices.Clone(p.Hidden))) != len(p.Hidden) || slices.Contains(p.Hidden, "") {
				t.Errorf("Hidden is not sorted, unique and without empty entries: %q", p.Hidden)
			}
			for _, h := range tt.hidden {
				if !slices.Contains(p.Hidden, h) {
					t.Errorf("%s is readable; Hidden = %q", h, p.Hidden)
				}
			}
			for _, r := range tt.readable {
				if slices.Contains(p.Hidden, r) {
					t.Errorf("%s is hidden; Hidden = %q", r, p.Hidden)
				}
			}
		})
	}
}

// TestPolicyHiddenFollowsChanges: the hidden list kept between starts follows a dotenv file
// that appears or goes, and one conversation's read grant opens nothing to another's.
func TestPolicyHiddenFollowsChanges(t *testing.T) {
	sandboxtest.Require(t)
	home := sandboxtest.OutsideTemp(t)
	wd := filepath.Join(home, "src", "app")
	other := filepath.Join(home, "src", "other")
	for _, d := range []string{wd, other, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	g := benchGate(t, home, wd)
	ctx := context.Background()
	hidden := func(conv, path string) bool {
		t.Helper()
		p, err := g.Policy(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(p.Hidden, path)
	}
	env := filepath.Join(other, ".env")
	if hidden("c", env) {
		t.Fatalf("%s is hidden before it exists", env)
	}
	if err := os.WriteFile(env, []byte("K=v\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !hidden("c", env) {
		t.Fatalf("%s is readable after it was created", env)
	}
	if _, err := g.cfg.Guard.CreateGrant(ctx, authz.GrantSpec{Conversation: "opened", Access: "terminal_operations:read", Path: env, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if hidden("opened", env) {
		t.Errorf("%s is hidden from the conversation that was granted it", env)
	}
	if !hidden("c", env) {
		t.Errorf("%s is readable by a conversation that was not granted it", env)
	}
	if err := os.Remove(env); err != nil {
		t.Fatal(err)
	}
	if hidden("c", env) {
		t.Errorf("%s is hidden after it was removed", env)
	}
}

// TestPolicyFollowsOtherProcessesGrants: a grant another process on the same state directory
// (here a second Store on the file) creates reaches the very next start of this one, and so does
// its revocation, while this process keeps the grants it read between starts.
func TestPolicyFollowsOtherProcessesGrants(t *testing.T) {
	sandboxtest.Require(t)
	home := sandboxtest.OutsideTemp(t)
	wd := filepath.Join(home, "src", "app")
	granted := filepath.Join(home, "src", "granted")
	for _, d := range []string{wd, granted} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	g := benchGate(t, home, wd)
	ctx := context.Background()
	other, err := authz.New(ctx, authz.Config{WorkDir: wd, HomeDir: home, Store: storetest.OpenDir(t, filepath.Join(home, ".local", "state", "toolhost"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	writable := func(step string, want bool) {
		t.Helper()
		for range 2 { // read from the store, then kept
			s, err := g.Start(ctx, Request{Conversation: "c", Line: "true", Dir: wd})
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(s.Policy.Writable, granted); got != want {
				t.Fatalf("%s: %s writable = %v, want %v (Writable %q)", step, granted, got, want, s.Policy.Writable)
			}
		}
	}
	writable("no grant", false)
	gr, err := other.CreateGrant(ctx, authz.GrantSpec{Conversation: "c", Access: "terminal_operations:write", Path: granted, Recursive: true, By: "t"})
	if err != nil {
		t.Fatal(err)
	}
	writable("granted by the other process", true)
	if err := other.Revoke(ctx, gr.ID, "t"); err != nil {
		t.Fatal(err)
	}
	writable("revoked by the other process", false)
}
