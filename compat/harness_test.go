//go:build compat

package compat

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the stdio recorder: a CLI configured with
// `compat.test mcp-record LOG -- toolhost stdio ...` gets this binary as its MCP server.
func TestMain(m *testing.M) {
	if len(os.Args) > 3 && os.Args[1] == "mcp-record" && os.Args[3] == "--" {
		os.Exit(recordStdio(os.Args[2], os.Args[4:]))
	}
	code := m.Run()
	recordRun()
	if sharedBuildDir != "" {
		os.RemoveAll(sharedBuildDir)
	}
	os.Exit(code)
}

// inCI reports whether a missing part must fail instead of skip.
func inCI() bool { return os.Getenv("CI") != "" && os.Getenv("CI") != "false" }

// need fails under CI and skips elsewhere when a part the test drives is missing.
func need(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if ok {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if inCI() {
		t.Fatalf("%s (CI must have it: .ci/run installs it)", msg)
	}
	t.Skipf("%s; skipped outside CI", msg)
}

// suite is what every client run shares.
type suite struct {
	dir      string // compat/
	bin      string // compat/node_modules/.bin
	toolhost string // the toolhost binary built from this checkout
	self     string // this test binary (the stdio recorder)
}

var (
	sharedBuildDir string
	buildOnce      sync.Once
	buildPath      string
	buildErr       error
)

// buildToolhost builds cmd/toolhost once per test binary.
func buildToolhost() (string, error) {
	buildOnce.Do(func() {
		sharedBuildDir, buildErr = os.MkdirTemp("", "toolhost-compat-bin-")
		if buildErr != nil {
			return
		}
		buildPath = filepath.Join(sharedBuildDir, "toolhost")
		out, err := exec.Command("go", "build", "-o", buildPath, "../cmd/toolhost").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/toolhost: %w\n%s", err, out)
		}
	})
	return buildPath, buildErr
}

func newSuite(t *testing.T) *suite {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	_, err = os.Stat(filepath.Join(bin, "node"))
	need(t, err == nil, "compat/node_modules is not installed (run `npm ci` in compat/)")
	th, err := buildToolhost()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &suite{dir: dir, bin: bin, toolhost: th, self: self}
	return s
}

// baseEnv is the environment every client process gets: a private HOME and XDG dirs, the
// pinned Node first on PATH, and a proxy that refuses (and records) every connection that is
// not to loopback, so nothing leaves the machine even if a setting was missed.
func (s *suite) baseEnv(home string, network *refuser) []string {
	env := []string{
		"HOME=" + home,
		"USER=compat",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=true", // the CLIs' own non-interactive switch
		"PATH=" + s.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"NODE_USE_ENV_PROXY=1",
		"NODE_NO_WARNINGS=1", // Node's "EnvHttpProxyAgent is experimental" on every start
		"DO_NOT_TRACK=1",
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, k+"="+network.URL)
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		env = append(env, k+"=127.0.0.1,localhost,::1")
	}
	return env
}

// refuser is an HTTP proxy on loopback that refuses every request and remembers the hosts the
// clients tried to reach.
type refuser struct {
	*httptest.Server
	mu    sync.Mutex
	hosts map[string]int
}

func newRefuser() *refuser {
	r := &refuser{hosts: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		host := req.Host
		if req.URL.Host != "" {
			host = req.URL.Host
		}
		r.mu.Lock()
		r.hosts[host]++
		r.mu.Unlock()
		http.Error(w, "compat: no network beyond loopback", http.StatusForbidden)
	}))
	return r
}

// Hosts returns the hosts refused so far and resets the record.
func (r *refuser) Hosts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.hosts
	r.hosts = map[string]int{}
	return h
}

// mcpServer says how a client reaches toolhost.
type mcpServer struct {
	// stdio
	Command string
	Args    []string
	// http
	URL   string
	Token string
}

// fixture is a toolhost instance for one run: a working directory with the script's files,
// its own state directory and config, reached over stdio (through the recorder) or HTTP
// (toolhost serve behind the recorder).
type fixture struct {
	transport string
	dir       string // the run's temp dir
	home      string // HOME for the client
	work      string // toolhost's working directory and the client's cwd
	marker    string
	config    string // toolhost's config file
	mcp       mcpServer
	mcpLog    string
	served    *served  // HTTP only
	network   *refuser // the clients' proxy: refuses and records off-machine connections

	mu   sync.Mutex
	idle *idleWait // HTTP, once the model reached the after_idle step
}

// clientSlot needs the agent CLI c installed, then waits for one of sem's slots, which the
// function it returns frees: the suite runs a few clients at a time.
func (s *suite) clientSlot(t *testing.T, c *client, sem chan struct{}) (release func()) {
	t.Helper()
	_, err := os.Stat(filepath.Join(s.bin, c.bin))
	need(t, err == nil, "%s (%s) is not installed in compat/node_modules", c.name, c.pkg)
	sem <- struct{}{}
	return func() { <-sem }
}

// serverArgs is how a client script reaches the fixture's toolhost: the transport, then the
// command and its arguments (stdio) or the URL and the token (http).
func (f *fixture) serverArgs() []string {
	if f.transport == "stdio" {
		return append([]string{"stdio", f.mcp.Command}, f.mcp.Args...)
	}
	return []string{"http", f.mcp.URL, f.mcp.Token}
}

// idleSessionTimeout is the [http] session_timeout of the serve that replaces the first one
// (before the after_restart step): short, so that the client's session closes idle before the
// after_idle step.
const idleSessionTimeout = 2 * time.Second

// idleWait is what the suite saw while it waited, before the after_idle step, for toolhost
// serve to close the client's idle session.
type idleWait struct {
	closed   bool // toolhost logged closing an idle session
	streams  int  // GET streams open at the end of the wait: they keep a session in use
	waited   time.Duration
	logLines []string // toolhost's log lines about sessions since the restart
}

// run is one client run: a fixture, the client and the fake model.
type run struct {
	*fixture
	suite    *suite
	client   *client
	model    *Model
	modelURL string // http://127.0.0.1:PORT (no path)
	prompt   string
	// connected runs the client on the entry `toolhost connect` wrote: setups leave toolhost
	// out of configs that connect does not edit in place.
	connected bool
}

// outcome is everything a run produced.
type outcome struct {
	exitCode int
	timedOut bool
	stdout   string
	stderr   string
	duration time.Duration
	requests []*Request
	unknown  []string
	session  Session
	refused  map[string]int
	log      string // toolhost's log
	idle     *idleWait
}

func randomMarker() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newToolhost prepares directories, workspace files and toolhost on the given transport; extra
// are more toolhost flags (--no-auth).
func (s *suite) newToolhost(t *testing.T, transport string, extra ...string) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{transport: transport, dir: dir, home: filepath.Join(dir, "home"), work: filepath.Join(dir, "work"),
		marker: randomMarker(), mcpLog: filepath.Join(dir, "mcp.jsonl"), network: newRefuser()}
	t.Cleanup(f.network.Close)
	for _, d := range []string{f.home, f.work, filepath.Join(f.home, "tmp"), filepath.Join(f.home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeWorkspace(t, f.work, f.marker)
	cfg := filepath.Join(dir, "toolhost.toml")
	f.config = cfg
	// A reminder after every quiet call makes the todo reminder due within the script.
	if err := os.WriteFile(cfg, []byte("approval_wait = \"1s\"\n\n[reminders]\nevery_n_calls = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stopHostsAtCleanup(t, s.toolhost, filepath.Join(dir, "state"))
	thArgs := []string{"--workdir", f.work, "--state-dir", filepath.Join(dir, "state"), "--config", cfg,
		"--log-file", filepath.Join(dir, "toolhost.log"), "--log-level", "debug"}
	thArgs = append(thArgs, extra...)
	switch transport {
	case "stdio":
		f.mcp = mcpServer{Command: s.self, Args: append([]string{"mcp-record", f.mcpLog, "--", s.toolhost, "stdio"}, thArgs...)}
	case "http":
		f.mcp, f.served = startServe(t, s.toolhost, thArgs, f.mcpLog)
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	return f
}

// session reads what the recorder saw so far.
func (f *fixture) session(t *testing.T) Session {
	t.Helper()
	// The stdio recorder may still be flushing after its client went away.
	time.Sleep(100 * time.Millisecond)
	msgs, err := readLog(f.mcpLog)
	if err != nil {
		t.Errorf("read mcp recording: %v", err)
	}
	return analyze(msgs)
}

// newRun prepares a toolhost fixture and the fake model for one client run.
func (s *suite) newRun(t *testing.T, c *client, transport string) *run {
	t.Helper()
	r := &run{fixture: s.newToolhost(t, transport), suite: s, client: c}
	r.model = &Model{Script: script(r.marker), Final: "compat-done " + r.marker, Outside: r.outside()}
	var logFrom int64
	r.model.BeforeCall = func(step int) {
		switch script("")[step].Name {
		case "approval_check":
			// The user approves the model's request in a terminal.
			if err := r.approvePending(); err != nil {
				t.Errorf("toolhost approve: %v", err)
			}
		}
		if r.served == nil {
			return
		}
		switch script("")[step].Name {
		case "after_restart":
			// Restart toolhost serve: the client's session id is then unknown to the new
			// process, which closes sessions idle for idleSessionTimeout.
			if err := appendFile(r.config, fmt.Sprintf("[http]\nsession_timeout = %q\n", idleSessionTimeout)); err != nil {
				t.Errorf("config: %v", err)
			}
			if fi, err := os.Stat(r.logPath()); err == nil {
				logFrom = fi.Size()
			}
			if err := r.served.restart(); err != nil {
				t.Errorf("restart toolhost serve: %v", err)
			}
		case "after_idle":
			// End the client's GET stream, which would keep its session in use, and wait
			// for toolhost to close the idle session.
			r.served.rec.cutStreams()
			w := r.awaitIdle(logFrom)
			r.mu.Lock()
			r.idle = w
			r.mu.Unlock()
		}
	}
	ms := httptest.NewServer(r.model)
	t.Cleanup(ms.Close)
	r.modelURL = ms.URL
	r.prompt = "Run the toolhost compatibility script " + r.marker + "."
	return r
}

func (f *fixture) logPath() string { return filepath.Join(f.dir, "toolhost.log") }

// outside is the file the approval round trip writes: beside the working directory.
func (f *fixture) outside() string { return filepath.Join(f.dir, "outside-"+f.marker+".txt") }

// approvePending approves every pending authorization request of the fixture's toolhost, as
// the user would in a terminal: `toolhost approvals`, then `toolhost approve ID`.
func (r *run) approvePending() error {
	flags := []string{"--state-dir", filepath.Join(r.dir, "state"), "--config", r.config, "--workdir", r.work}
	out, err := exec.Command(r.suite.toolhost, append([]string{"approvals"}, flags...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("toolhost approvals: %v: %s", err, out)
	}
	// None pending: the client answered toolhost's question itself (elicitation), and
	// approval_roundtrip says how.
	ids := requestIDRE.FindAllString(string(out), -1)
	for _, id := range ids {
		if out, err := exec.Command(r.suite.toolhost, append([]string{"approve", id}, flags...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("toolhost approve %s: %v: %s", id, err, out)
		}
	}
	return nil
}

// awaitIdle waits until toolhost serve logs that it closed an idle session (after the log's
// first from bytes), or, when none does, a few seconds past the session timeout (a stateless
// client has no session; a request still in flight keeps one in use).
func (f *fixture) awaitIdle(from int64) *idleWait {
	start := time.Now()
	deadline := start.Add(idleSessionTimeout + 5*time.Second)
	w := &idleWait{}
	for {
		b, _ := os.ReadFile(f.logPath())
		w.logLines = w.logLines[:0]
		if int64(len(b)) > from {
			for line := range strings.Lines(string(b[from:])) {
				if strings.Contains(line, "session") {
					w.logLines = append(w.logLines, strings.TrimSpace(line))
				}
				if strings.Contains(line, "http session idle") {
					w.closed = true
				}
			}
		}
		if w.closed || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.waited = time.Since(start)
	w.streams = f.served.rec.openStreams()
	return w
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeWorkspace writes the files the script reads and edits.
func writeWorkspace(t *testing.T, dir, marker string) {
	t.Helper()
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&big, "line %06d of the big log: lorem ipsum dolor sit amet, consectetur adipiscing\n", i)
	}
	files := map[string]string{
		"notes.txt": "These notes hold file-marker-" + marker + " for the compat suite.\n",
		"edit.txt":  "alpha-" + marker + "\nbeta\ndelta\n",
		"other.txt": "nothing to see here\n",
		"big.log":   big.String(),
		// 3,000 short lines: a whole read_file page is 2,000 lines and its header.
		"lines.txt": shortLines(3000),
	}
	for _, kb := range probeSizes {
		files[sizedName(kb)] = sizedText(kb)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// resultSizes are the sizes, in KB, of the files whose read_file results show what a client
// does to a result of that size.
var resultSizes = []int{5, 10, 20, 80}

// probeSizes are the sizes TestClientLimits sends whole, finer where clients cut.
var probeSizes = []int{5, 10, 20, 30, 40, 60, 80}

func sizedName(kb int) string { return fmt.Sprintf("size-%dk.txt", kb) }

// sizedText is kb KB of 100-byte lines, each numbered, with quotes and a tab so that a client
// counting JSON sees them grow.
func sizedText(kb int) string {
	var b strings.Builder
	for i := 1; b.Len() < kb*1000; i++ {
		line := fmt.Sprintf("%dK line %05d: \"quoted\"\tlorem ipsum dolor sit amet, consectetur adipiscing elit", kb, i)
		b.WriteString(line + strings.Repeat(".", max(0, 99-len(line))) + "\n")
	}
	return b.String()
}

func shortLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "l%06d\n", i)
	}
	return b.String()
}

// served is `toolhost serve` on a loopback port with a token, behind an HTTP recorder whose
// URL stays the same across restarts.
type served struct {
	toolhost string
	args     []string
	token    string
	rec      *httpRecorder
	cmd      *exec.Cmd
	// Restarts counts restarts, for reports.
	Restarts int
}

// startServe starts toolhost serve behind a recorder and stops it when the test ends.
func startServe(t *testing.T, toolhost string, args []string, logPath string) (mcpServer, *served) {
	t.Helper()
	log, err := openLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	sv := &served{toolhost: toolhost, args: args, token: "compat-" + randomMarker() + randomMarker(), rec: &httpRecorder{log: log}}
	if err := sv.start(); err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(sv.rec)
	t.Cleanup(func() { sv.stop(); front.Close(); log.close() })
	return mcpServer{URL: front.URL + "/mcp", Token: sv.token}, sv
}

// start runs toolhost serve on a new port and points the recorder at it.
func (sv *served) start() error {
	cmd := exec.Command(sv.toolhost, append([]string{"serve", "--addr", "127.0.0.1:0"}, sv.args...)...)
	cmd.Env = append(os.Environ(), "TOOLHOST_TOKEN="+sv.token)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sv.cmd = cmd
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(60 * time.Second):
		return errors.New("toolhost serve printed no address within 60s")
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		return fmt.Errorf("toolhost serve: no URL in %q", line)
	}
	target, err := url.Parse(strings.Fields(line[i:])[0])
	if err != nil {
		return err
	}
	target.Path = ""
	sv.rec.setTarget(target)
	return nil
}

// stop ends toolhost serve (SIGTERM, then SIGKILL to its process group after 10s).
func (sv *served) stop() {
	if sv.cmd == nil {
		return
	}
	cmd := sv.cmd
	sv.cmd = nil
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// restart stops toolhost serve and starts a new one on the same state directory, as a user
// restarting the server would; clients keep the recorder's URL.
func (sv *served) restart() error {
	sv.stop()
	sv.Restarts++
	return sv.start()
}

// finished is how a bounded program run ended.
type finished struct {
	stdout, stderr string
	exitCode       int // -1 after a timeout
	timedOut       bool
	duration       time.Duration
}

// runBounded runs a program from node_modules/.bin in the fixture's working directory with the
// suite's environment plus env, bounded by timeout; its whole process group is killed at the
// end, so no helper (an MCP server, a CLI's worker) outlives the run.
func (s *suite) runBounded(t *testing.T, f *fixture, timeout time.Duration, env []string, bin string, args ...string) finished {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, bin), args...)
	cmd.Dir = f.work
	cmd.Env = append(s.baseEnv(f.home, f.network), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	fin := finished{duration: time.Since(start)}
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	s.killLeftovers(f.dir)
	fin.stdout, fin.stderr = stdout.String(), stderr.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		fin.timedOut, fin.exitCode = true, -1
	case errors.As(err, &ee):
		fin.exitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", bin, err)
	}
	return fin
}

// killLeftovers ends the processes a client left running in a process group of their own
// (Cline's hub daemon, started with the run's working directory): every process whose command
// line names the run's directory, but toolhost and the recorder, which the fixture ends.
func (s *suite) killLeftovers(dir string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); exe == s.toolhost || exe == s.self {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(dir+"/")) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// exec runs the client with its arguments and environment, bounded by timeout, and collects
// what the run left: the model's requests, the MCP recording, toolhost's log.
func (r *run) exec(t *testing.T, args, env []string, timeout time.Duration) outcome {
	t.Helper()
	fin := r.suite.runBounded(t, r.fixture, timeout, env, r.client.bin, args...)
	o := outcome{duration: fin.duration, stdout: fin.stdout, stderr: fin.stderr, exitCode: fin.exitCode, timedOut: fin.timedOut}
	o.requests = r.model.Requests()
	o.unknown = r.model.Unknown()
	o.refused = r.network.Hosts()
	o.session = r.session(t)
	if b, err := os.ReadFile(r.logPath()); err == nil {
		o.log = string(b)
	}
	r.mu.Lock()
	o.idle = r.idle
	r.mu.Unlock()
	return o
}

// keepArtifacts copies what a run left (requests, MCP recording, outputs) to
// $COMPAT_ARTIFACTS/<name>/ when set, for reading after a failure.
func (r *run) keepArtifacts(t *testing.T, name string, o outcome) {
	base := os.Getenv("COMPAT_ARTIFACTS")
	if base == "" {
		return
	}
	dir := filepath.Join(base, strings.ReplaceAll(name, "/", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("artifacts: %v", err)
		return
	}
	var index bytes.Buffer
	os.MkdirAll(filepath.Join(dir, "requests"), 0o755)
	for i, q := range o.requests {
		fmt.Fprintf(&index, "%03d %s %s main=%v answer=%q\n", i, q.API, q.Path, q.main(), q.Answer)
		os.WriteFile(filepath.Join(dir, "requests", fmt.Sprintf("%03d.json", i)), q.Body, 0o644)
	}
	files := map[string][]byte{
		"requests.txt": index.Bytes(),
		"stdout.txt":   []byte(o.stdout),
		"stderr.txt":   []byte(o.stderr),
		"toolhost.log": []byte(o.log),
		"unknown.txt":  []byte(strings.Join(o.unknown, "\n")),
	}
	if b, err := os.ReadFile(r.mcpLog); err == nil {
		files["mcp.jsonl"] = b
	}
	refused, _ := json.MarshalIndent(o.refused, "", "  ")
	files["refused.json"] = refused
	for name, b := range files {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	// The client's own config and logs, for setup problems.
	filepath.WalkDir(r.home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() < 1<<20 {
			rel, _ := filepath.Rel(r.home, p)
			dst := filepath.Join(dir, "home", rel)
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if src, err := os.Open(p); err == nil {
				if f, err := os.Create(dst); err == nil {
					io.Copy(f, src)
					f.Close()
				}
				src.Close()
			}
		}
		return nil
	})
}
