//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// needLandlock skips outside CI when the kernel cannot confine; in CI a missing sandbox is a
// failure, not a skip.
func needLandlock(t *testing.T) {
	t.Helper()
	if _, err := ABI(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Landlock is required in CI: %v", err)
		}
		t.Skipf("Landlock unavailable here: %v", err)
	}
}

// tree is a scratch layout: a working directory holding toolhost's state (as when the
// working directory is the home directory), a directory outside, a temp dir and a config.
type tree struct {
	root, work, state, token, outside, tmp, config, sub string
}

func newTree(t *testing.T) tree {
	t.Helper()
	root := Canonical(t.TempDir())
	tr := tree{
		root:    root,
		work:    filepath.Join(root, "work"),
		state:   filepath.Join(root, "work", ".local", "state", "toolhost"),
		outside: filepath.Join(root, "outside"),
		tmp:     filepath.Join(root, "tmp"),
		sub:     filepath.Join(root, "work", "src"),
	}
	tr.token = filepath.Join(tr.state, "token")
	tr.config = filepath.Join(root, "work", ".config", "toolhost", "config.toml")
	for _, d := range []string{tr.state, tr.outside, tr.tmp, tr.sub, filepath.Dir(tr.config), filepath.Join(tr.work, ".local", "share")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string]string{tr.token: "secret-token\n", tr.config: "[terminal]\n", filepath.Join(tr.outside, "keep"): "outside\n", filepath.Join(tr.sub, "a.txt"): "a\n"} {
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func (tr tree) policy(mode Mode) *Policy {
	return &Policy{
		Mode:      mode,
		Writable:  []string{tr.work},
		Temp:      []string{tr.tmp},
		Protected: []string{tr.state, tr.config, filepath.Dir(tr.config)},
		Hidden:    []string{tr.state},
	}
}

// run runs script with sh under p in dir and returns its exit code and combined output.
func run(t *testing.T, p *Policy, dir, script string) (int, string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(dir))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Start(cmd, p); err != nil {
		t.Fatalf("Start(%q): %v", script, err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wait %q: %v", script, err)
	}
	return code, out.String()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWorkspaceWritePromises checks each promise of workspace-write on the file system: the
// write happened or it did not, and toolhost's files are untouched.
func TestWorkspaceWritePromises(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	p := tr.policy(ModeWorkspaceWrite)
	q := strconv.Quote
	cases := []struct {
		name   string
		script string
		ok     bool   // exit status 0 expected
		check  string // path that must exist afterwards ("" none)
		absent string // path that must not exist afterwards
	}{
		{name: "write in a subdirectory of the working directory", script: "echo hi > src/new.txt", ok: true, check: filepath.Join(tr.sub, "new.txt")},
		{name: "mkdir and write deep inside", script: "mkdir -p src/a/b && echo x > src/a/b/c", ok: true, check: filepath.Join(tr.sub, "a/b/c")},
		{name: "write in the temp dir", script: "echo t > " + q(filepath.Join(tr.tmp, "t")), ok: true, check: filepath.Join(tr.tmp, "t")},
		{name: "write outside", script: "echo x > " + q(filepath.Join(tr.outside, "x")), absent: filepath.Join(tr.outside, "x")},
		{name: "delete outside", script: "rm -f " + q(filepath.Join(tr.outside, "keep")), check: filepath.Join(tr.outside, "keep")},
		{name: "write into the state dir", script: "echo x > " + q(filepath.Join(tr.state, "x")), absent: filepath.Join(tr.state, "x")},
		{name: "overwrite the token", script: "echo stolen > " + q(tr.token)},
		{name: "truncate the token", script: "truncate -s 0 " + q(tr.token)},
		{name: "read the token", script: "cat " + q(tr.token)},
		{name: "copy the token out", script: "cp " + q(tr.token) + " src/stolen", absent: filepath.Join(tr.sub, "stolen")},
		{name: "hard link the token into the workdir", script: "ln " + q(tr.token) + " src/link", absent: filepath.Join(tr.sub, "link")},
		{name: "read the token through a symlink", script: "ln -s " + q(tr.token) + " src/sym && cat src/sym"},
		{name: "write outside through a symlink", script: "ln -sf " + q(tr.outside) + " src/out && echo x > src/out/y", absent: filepath.Join(tr.outside, "y")},
		{name: "rename the state dir away", script: "mv " + q(filepath.Join(tr.work, ".local", "state")) + " gone", check: tr.state},
		{name: "remove the state dir", script: "rm -rf " + q(filepath.Join(tr.work, ".local")), check: tr.token},
		{name: "rewrite the config", script: "echo 'x=1' >> " + q(tr.config)},
		{name: "replace the config dir", script: "rm -rf " + q(filepath.Join(tr.work, ".config")), check: tr.config},
		{name: "create the prompts dir beside the config", script: "mkdir " + q(filepath.Join(filepath.Dir(tr.config), "prompts")), absent: filepath.Join(filepath.Dir(tr.config), "prompts")},
		{name: "a detached child stays confined", script: "setsid -w sh -c 'echo x > " + filepath.Join(tr.outside, "z") + "'", absent: filepath.Join(tr.outside, "z")},
		{name: "list the state dir names", script: "ls " + q(tr.state) + " | grep -q token", ok: true},
		{name: "write to /dev/null", script: "echo x > /dev/null", ok: true},
		{name: "no privilege gain (no_new_privs)", script: "grep -q 'NoNewPrivs:.*1' /proc/self/status", ok: true},
		{name: "no ptrace of the server", script: "grep -q '^CapBnd:.*' /proc/self/status && ! (cat /proc/" + strconv.Itoa(os.Getpid()) + "/mem 2>/dev/null | head -c1 | grep -q .)", ok: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out := run(t, p, tr.work, c.script)
			if (code == 0) != c.ok {
				t.Errorf("%q: exit %d, want success=%v; output:\n%s", c.script, code, c.ok, out)
			}
			if !c.ok && strings.Contains(out, "secret-token") {
				t.Errorf("%q printed the token: %s", c.script, out)
			}
			if c.check != "" && !exists(c.check) {
				t.Errorf("%q: %s does not exist afterwards", c.script, c.check)
			}
			if c.absent != "" && exists(c.absent) {
				t.Errorf("%q: %s exists afterwards", c.script, c.absent)
			}
		})
	}
	if got := read(t, tr.token); got != "secret-token\n" {
		t.Errorf("token = %q after the attempts", got)
	}
	if got := read(t, tr.config); got != "[terminal]\n" {
		t.Errorf("config = %q after the attempts", got)
	}
}

// TestLimitsOfExclusion pins the documented limit: directly in a directory that holds a
// protected path, entries cannot be created; everywhere else in the tree they can.
func TestLimitsOfExclusion(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	p := tr.policy(ModeWorkspaceWrite)
	if code, _ := run(t, p, tr.work, "echo x > top.txt"); code == 0 || exists(filepath.Join(tr.work, "top.txt")) {
		t.Errorf("creating a file directly in a directory that holds toolhost's state succeeded; the documented limit changed")
	}
	if code, out := run(t, p, tr.work, "echo x > .local/share/ok"); code != 0 {
		t.Errorf("a sibling subtree of the state dir is not writable: %s", out)
	}
	// Without a protected path inside, the working directory is writable at its top.
	plain := &Policy{Mode: ModeWorkspaceWrite, Writable: []string{tr.sub}, Temp: []string{tr.tmp}, Protected: []string{tr.state}, Hidden: []string{tr.state}}
	if code, out := run(t, plain, tr.sub, "echo x > top.txt"); code != 0 {
		t.Errorf("writing at the top of a plain working directory failed: %s", out)
	}
}

func TestReadOnlyMode(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	p := tr.policy(ModeReadOnly)
	if code, _ := run(t, p, tr.work, "echo x > src/new"); code == 0 || exists(filepath.Join(tr.sub, "new")) {
		t.Error("read-only: a write in the working directory succeeded")
	}
	if code, out := run(t, p, tr.work, "cat src/a.txt && echo t > "+filepath.Join(tr.tmp, "t")); code != 0 {
		t.Errorf("read-only: reading the workdir or writing temp failed: %s", out)
	}
	if code, _ := run(t, p, tr.work, "cat "+tr.token); code == 0 {
		t.Error("read-only: the token was readable")
	}
}

// TestServerThreadsStayUnconfined starts many confined commands at once and then checks
// that every goroutine of the test process can still write outside the policy: no
// restricted thread was reused.
func TestServerThreadsStayUnconfined(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	p := tr.policy(ModeReadOnly)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("/bin/true")
			if err := Start(cmd, p); err != nil {
				t.Errorf("start %d: %v", i, err)
				return
			}
			_ = cmd.Wait()
		}()
	}
	wg.Wait()
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := filepath.Join(tr.outside, "w"+strconv.Itoa(i))
			if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
				t.Errorf("the server lost write access: %v", err)
			}
		}()
	}
	wg.Wait()
}

// TestStoppedStarterEnds stops a starter, as the cache does when its rules go stale or it is
// evicted: it starts nothing more, and its confined thread ends without leaving a descriptor.
func TestStoppedStarterEnds(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	fds, confined := countFds(t), confinedThreads(t)
	abi, _ := ABI()
	pl, err := tr.policy(ModeReadOnly).normalized().plan()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := build(pl, handledFor(abi), scopesFor(abi))
	if err != nil {
		t.Fatal(err)
	}
	st, err := newStarter(fd)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	if n := confinedThreads(t); n != confined+1 {
		t.Errorf("%d confined threads with a starter running, want %d", n, confined+1)
	}
	cmd := exec.Command("/bin/true")
	if err, ok := st.start(cmd); err != nil || !ok {
		t.Fatalf("start: %v (ok %v)", err, ok)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	st.stop()
	st.stop() // twice: nothing more happens
	if err, ok := st.start(exec.Command("/bin/true")); ok {
		t.Errorf("a stopped starter started a command (err %v)", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for countFds(t) != fds || confinedThreads(t) != confined {
		if time.Now().After(deadline) {
			t.Fatalf("after stop: %d open descriptors (%d before), %d confined threads (%d before)", countFds(t), fds, confinedThreads(t), confined)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCacheTellsPoliciesApart: the ruleset cache finds a policy by its hash and hands its
// starter only to an equal policy — the same paths in the same lists, whatever slices hold
// them — and keeps a copy of its own, which a caller changing its policy afterwards leaves
// alone.
func TestCacheTellsPoliciesApart(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	base := tr.policy(ModeWorkspaceWrite)
	same := base.clone()
	if !same.equal(base) || same.hash() != base.hash() {
		t.Error("a copy of a policy is not equal to it or hashes otherwise")
	}
	for name, p := range map[string]*Policy{
		"read-only":               {Mode: ModeReadOnly, Writable: base.Writable, Temp: base.Temp, Protected: base.Protected, Hidden: base.Hidden},
		"one more hidden path":    {Mode: base.Mode, Writable: base.Writable, Temp: base.Temp, Protected: base.Protected, Hidden: append(slices.Clone(base.Hidden), tr.outside)},
		"a path in another list":  {Mode: base.Mode, Writable: base.Writable, Temp: append(slices.Clone(base.Temp), tr.outside), Protected: base.Protected, Hidden: base.Hidden},
		"paths split differently": {Mode: base.Mode, Writable: base.Writable, Temp: base.Temp, Protected: base.Protected[:1], Hidden: append(slices.Clone(base.Protected[1:]), base.Hidden...)},
		"paths joined":            {Mode: base.Mode, Writable: []string{base.Writable[0] + "\x01" + base.Temp[0]}, Protected: base.Protected, Hidden: base.Hidden},
	} {
		if p.equal(base) || base.equal(p) {
			t.Errorf("%s: equal to the base policy", name)
		}
		if p.hash() == base.hash() {
			t.Errorf("%s: hashes as the base policy", name)
		}
	}
	abi, _ := ABI()
	changed := *base
	changed.Hidden = append([]string(nil), base.Hidden...) // the caller's own slice
	if _, err := starterFor(&changed, abi); err != nil {
		t.Fatal(err)
	}
	changed.Hidden[0] = tr.outside // the caller's slice, not the cache's
	cache.Lock()
	c := cache.m[base.hash()]
	cache.Unlock()
	if c == nil || !c.policy.equal(base) {
		t.Error("changing a policy after its start changed the cached one")
	}
}

// TestCommandsKeepTheSignalMask: a confined command starts with the signals an unconfined one
// starts with unblocked: a child inherits its thread's mask, and the starter's thread must not
// pass on anything it blocked for itself (a shell's job control needs SIGCHLD).
func TestCommandsKeepTheSignalMask(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	p := tr.policy(ModeWorkspaceWrite)
	blocked := func(p *Policy) string {
		t.Helper()
		cmd := exec.Command("grep", "^SigBlk:", "/proc/self/status")
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := Start(cmd, p); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	want := blocked(nil)
	for i := range 3 { // the first start, then starts on the cached starter
		if got := blocked(p); got != want {
			t.Errorf("start %d: confined command has %q, unconfined %q", i, got, want)
		}
	}
}

func countFds(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries) - 1 // the one ReadDir opened
}

// confinedThreads counts this process's threads under no_new_privs: the starters' (the
// server's own threads never set it).
func confinedThreads(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err == nil && strings.Contains(string(b), "\nNoNewPrivs:\t1\n") {
			n++
		}
	}
	return n
}

func TestParseMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		ok   bool
	}{{"", ModeWorkspaceWrite, true}, {"workspace-write", ModeWorkspaceWrite, true}, {"read-only", ModeReadOnly, true}, {"off", ModeOff, true}, {"none", "", false}, {"Off", "", false}} {
		got, err := ParseMode(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestCanWrite(t *testing.T) {
	tr := newTree(t)
	p := tr.policy(ModeWorkspaceWrite)
	for _, c := range []struct {
		path          string
		ok, protected bool
	}{
		{filepath.Join(tr.sub, "x"), true, false},
		{filepath.Join(tr.outside, "x"), false, false},
		{tr.token, false, true},
		{tr.config, false, true},
		{filepath.Join(tr.tmp, "x"), true, false},
		{"/dev/null", true, false},
	} {
		ok, prot := p.CanWrite(c.path)
		if ok != c.ok || prot != c.protected {
			t.Errorf("CanWrite(%s) = %v, %v; want %v, %v", c.path, ok, prot, c.ok, c.protected)
		}
	}
}

// TestWithWritable: a policy widened for an approved write lets commands write there and
// nowhere else new; protected paths stay excluded, even when named; the original policy is
// unchanged; read-only widens to the named paths only.
func TestWithWritable(t *testing.T) {
	tr := newTree(t)
	out := filepath.Join(tr.outside, "x")
	cases := []struct {
		name  string
		p     *Policy
		paths []string
		// mode is the widened policy's mode; writable and refused are paths it must (not) let
		// commands write.
		mode              Mode
		writable, refused []string
		// added is how many entries Writable gains.
		added int
	}{
		{"workspace-write, a directory outside", tr.policy(ModeWorkspaceWrite), []string{tr.outside},
			ModeWorkspaceWrite, []string{out, filepath.Join(tr.sub, "x"), filepath.Join(tr.tmp, "x")}, []string{tr.token, tr.config}, 1},
		{"workspace-write, already writable", tr.policy(ModeWorkspaceWrite), []string{tr.sub, tr.work},
			ModeWorkspaceWrite, []string{filepath.Join(tr.sub, "x")}, []string{out}, 0},
		{"workspace-write, a protected path named", tr.policy(ModeWorkspaceWrite), []string{tr.state, tr.config},
			ModeWorkspaceWrite, nil, []string{tr.token, filepath.Join(tr.state, "x"), tr.config}, 0},
		{"read-only, a directory outside", tr.policy(ModeReadOnly), []string{tr.outside},
			ModeWorkspaceWrite, []string{out, filepath.Join(tr.tmp, "x")}, []string{filepath.Join(tr.sub, "x"), tr.token}, 1},
		{"read-only, the working directory holding the state", tr.policy(ModeReadOnly), []string{tr.work},
			ModeWorkspaceWrite, []string{filepath.Join(tr.sub, "x")}, []string{tr.token, tr.config, out}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(c.p.Writable)
			if c.p.Mode == ModeReadOnly {
				before = 0
			}
			w := c.p.WithWritable(c.paths...)
			if w.Mode != c.mode || len(w.Writable)-before != c.added {
				t.Errorf("WithWritable(%v) = mode %s, %d writable added; want %s, %d", c.paths, w.Mode, len(w.Writable)-before, c.mode, c.added)
			}
			for _, p := range c.writable {
				if ok, _ := w.CanWrite(p); !ok {
					t.Errorf("WithWritable(%v).CanWrite(%s) = false, want true", c.paths, p)
				}
			}
			for _, p := range c.refused {
				if ok, _ := w.CanWrite(p); ok {
					t.Errorf("WithWritable(%v).CanWrite(%s) = true, want false", c.paths, p)
				}
			}
			if ok, _ := c.p.CanWrite(out); ok {
				t.Errorf("WithWritable changed the original policy: it now writes %s", out)
			}
		})
	}
	for _, p := range []*Policy{nil, {Mode: ModeOff}} {
		if got := p.WithWritable(tr.outside); got != p {
			t.Errorf("(%v).WithWritable = %v, want it unchanged", p, got)
		}
	}
	// On the file system, as git started under it writes: outside now, the state never.
	needLandlock(t)
	w := tr.policy(ModeReadOnly).WithWritable(tr.outside, tr.work)
	if code, o := run(t, w, tr.work, "echo x > "+out+" && echo y > src/y"); code != 0 || !exists(out) {
		t.Errorf("writing the added paths failed: %s", o)
	}
	if code, _ := run(t, w, tr.work, "echo x > "+filepath.Join(tr.state, "x")+" || cat "+tr.token); code == 0 {
		t.Error("with the working directory added, the state dir became writable or the token readable")
	}
}

// TestPlanExcludesAlongThePath checks the rule plan itself: no rule on an ancestor of a
// protected path carries a write right, and no rule on an ancestor of a hidden path carries
// the right to read file contents.
func TestPlanExcludesAlongThePath(t *testing.T) {
	tr := newTree(t)
	pl, err := tr.policy(ModeWorkspaceWrite).normalized().plan()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pl.rules {
		for _, prot := range []string{tr.state, tr.config} {
			if within(prot, r.path) && r.rights&rightsWrite != 0 {
				t.Errorf("rule %s %b grants writes over protected %s", r.path, r.rights, prot)
			}
		}
		if within(tr.token, r.path) && r.rights&rightsContents != 0 {
			t.Errorf("rule %s %b grants reading the token", r.path, r.rights)
		}
	}
	if len(pl.dirs) == 0 {
		t.Error("no directory was listed; the exclusion did not descend")
	}
}

func TestStatusSummary(t *testing.T) {
	for _, c := range []struct {
		name string
		st   Status
		want []string
	}{
		{"enforced", Status{Mode: ModeWorkspaceWrite, Effective: ModeWorkspaceWrite, ABI: 7}, []string{"workspace-write (Landlock ABI 7)"}},
		{"read-only", Status{Mode: ModeReadOnly, Effective: ModeReadOnly, ABI: 7}, []string{"read-only", "temp dirs"}},
		{"off", Status{Mode: ModeOff, Effective: ModeOff, ABI: 7}, []string{"off", "full authority"}},
		{"refusing", Status{Mode: ModeWorkspaceWrite, Effective: ModeWorkspaceWrite, Problem: "no Landlock", Refusing: true}, []string{"unavailable (no Landlock)", "refused", "allow_unsandboxed"}},
		{"accepted unconfined", Status{Mode: ModeWorkspaceWrite, Effective: ModeOff, Problem: "no Landlock"}, []string{"UNCONFINED"}},
	} {
		got := c.st.Summary()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Summary() = %q, want it to contain %q", c.name, got, w)
			}
		}
	}
	if d := (Status{Mode: ModeWorkspaceWrite, Effective: ModeWorkspaceWrite, ABI: 2}).Details(); !strings.Contains(strings.Join(d, "\n"), "truncate(2)") {
		t.Errorf("ABI 2 details do not mention truncate: %q", d)
	}
	if p := (Status{Refusing: true}).Policy(Policy{}); p != nil {
		t.Error("a refusing status gave a policy")
	}
}

// TestStartWhileRulesetGoesStale starts commands while another goroutine keeps changing a
// root the cached ruleset was planned from: every start must confine with a ruleset of its
// own, never with a descriptor the cache closed (and the kernel may have reused) meanwhile.
func TestStartWhileRulesetGoesStale(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	p := tr.policy(ModeWorkspaceWrite)
	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Add(1)
	go func() {
		defer churn.Done()
		f := filepath.Join(tr.work, "churn")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				_ = os.WriteFile(f, nil, 0o600)
			} else {
				_ = os.Remove(f)
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				cmd := exec.Command("/bin/sh", "-c", "echo x > "+filepath.Join(tr.outside, "escape"))
				if err := Start(cmd, p); err != nil {
					t.Errorf("start %d/%d: %v", g, i, err)
					return
				}
				if err := cmd.Wait(); err == nil {
					t.Errorf("start %d/%d: a confined command wrote outside the policy", g, i)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	churn.Wait()
}

func TestMakeBuildCaches(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"GOCACHE": filepath.Join(home, "gocache")}
	getenv := func(k string) string { return env[k] }
	have := map[string]bool{"go": true, "npm": true}
	lookPath := func(p string) (string, error) {
		if have[p] {
			return "/usr/bin/" + p, nil
		}
		return "", os.ErrNotExist
	}
	if err := os.MkdirAll(filepath.Join(home, ".npm"), 0o700); err != nil {
		t.Fatal(err)
	}
	if errs := MakeBuildCaches(home, getenv, lookPath); len(errs) != 0 {
		t.Fatalf("MakeBuildCaches: %v", errs)
	}
	for dir, want := range map[string]bool{
		filepath.Join(home, "gocache"):            true,  // go is there, GOCACHE named it
		filepath.Join(home, "go", "pkg", "mod"):   true,  // the default module cache
		filepath.Join(home, ".npm"):               true,  // existed already
		filepath.Join(home, ".cache", "pip"):      false, // no pip here
		filepath.Join(home, ".cargo", "registry"): false, // no cargo here
		filepath.Join(home, ".cache", "go-build"): false, // GOCACHE moved it
	} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("after MakeBuildCaches, %s exists = %v, want %v", dir, got, want)
		}
	}
	// A cache that cannot be made is reported, not fatal.
	blocker := filepath.Join(home, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env["GOCACHE"] = filepath.Join(blocker, "gocache")
	if errs := MakeBuildCaches(home, getenv, lookPath); len(errs) != 1 {
		t.Errorf("MakeBuildCaches under a file: %v, want one error", errs)
	}
}

// TestConfinedCannotReachTheServer: a confined process cannot signal the process that started
// it (Landlock's signal scope, ABI 6), read its environment or memory, or hold a capability
// that reaches across processes, even when toolhost runs as root. Asserted by effect: the
// signal's and the reads' exit statuses, and the capability sets the kernel reports.
func TestConfinedCannotReachTheServer(t *testing.T) {
	needLandlock(t)
	tr := newTree(t)
	abi, _ := ABI()
	pid := strconv.Itoa(os.Getpid())
	script := "kill -0 " + pid + " 2>/dev/null; echo kill=$?; " +
		"cat /proc/" + pid + "/environ >/dev/null 2>&1; echo environ=$?; " +
		"head -c1 /proc/" + pid + "/mem >/dev/null 2>&1; echo mem=$?; " +
		"grep -E '^Cap(Prm|Eff|Bnd|Inh|Amb):' /proc/self/status"
	for _, mode := range []Mode{ModeWorkspaceWrite, ModeReadOnly} {
		t.Run(string(mode), func(t *testing.T) {
			_, out := run(t, tr.policy(mode), tr.work, script)
			if Scoped(abi) && !strings.Contains(out, "kill=1") {
				t.Errorf("a confined process signalled the server (Landlock ABI %d scopes signals):\n%s", abi, out)
			}
			for _, want := range []string{"environ=1", "mem=1"} {
				if !strings.Contains(out, want) {
					t.Errorf("want %s, the server's /proc files unreadable:\n%s", want, out)
				}
			}
			sets := map[string]uint64{}
			for _, line := range strings.Split(out, "\n") {
				if name, hex, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(name, "Cap") {
					v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
					if err != nil {
						t.Fatalf("%q: %v", line, err)
					}
					sets[name] = v
				}
			}
			if len(sets) != 5 {
				t.Fatalf("capability sets of the confined process: %v\n%s", sets, out)
			}
			for _, c := range droppedCaps {
				bit := uint64(1) << c.cap
				for _, set := range []string{"CapPrm", "CapEff", "CapInh", "CapAmb"} {
					if sets[set]&bit != 0 {
						t.Errorf("%s holds capability %d (%s)", set, c.cap, c.why)
					}
				}
			}
		})
	}
}
