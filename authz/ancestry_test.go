//go:build linux

package authz

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The ancestry tests run a real "server": this test binary re-run as TestHelperAncestryServer,
// which marks itself with MarkServer and then starts descendants the ways a model's command
// could (directly, setsid, a double fork, nohup, env -i, a renamed copy of the binary). Each
// descendant is this test binary again, as TestHelperAncestryCheck, which runs CheckOperator
// and writes the answer to a file.

func helperArgs() []string {
	if i := indexOf(os.Args, "--"); i >= 0 {
		return os.Args[i+1:]
	}
	return flag.Args()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// selfUnderServer skips tests that need a clean ancestry when the test itself runs inside a
// toolhost terminal (a developer running go test there).
func selfUnderServer(t *testing.T) {
	t.Helper()
	if err := CheckOperator(""); errors.Is(err, ErrDescendant) {
		t.Skipf("the test runs under a toolhost server itself: %v", err)
	}
}

func TestHelperAncestryCheck(t *testing.T) {
	args := helperArgs()
	if len(args) < 3 || args[0] != "check" {
		t.Skip("helper")
	}
	state, out := args[1], args[2]
	res := "ok"
	if err := CheckOperator(state); errors.Is(err, ErrDescendant) {
		res = "descendant"
	} else if err != nil {
		res = "unknown: " + err.Error()
	}
	if err := os.WriteFile(out, []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHelperAncestryServer(t *testing.T) {
	args := helperArgs()
	if len(args) < 3 || args[0] != "server" {
		t.Skip("helper")
	}
	state, dir := args[1], args[2]
	reapEvery = 200 * time.Millisecond
	release, err := MarkServer(state, nil)
	if err != nil {
		fmt.Println("MARK-ERROR", err)
		return
	}
	defer release()
	bin := os.Args[0]
	copyBin := filepath.Join(dir, "renamed-tool")
	if err := copyFile(bin, copyBin); err != nil {
		fmt.Println("COPY-ERROR", err)
		return
	}
	check := func(b, out string) string {
		return fmt.Sprintf("%q -test.run='^TestHelperAncestryCheck$' -- check %q %q", b, state, out)
	}
	scenarios := map[string]string{
		"direct":      check(bin, filepath.Join(dir, "direct")),
		"setsid":      "setsid -f sh -c " + shq(check(bin, filepath.Join(dir, "setsid"))),
		"double-fork": "(sh -c " + shq(check(bin, filepath.Join(dir, "double-fork"))) + " &) ; exit 0",
		"nohup":       "nohup sh -c " + shq(check(bin, filepath.Join(dir, "nohup"))) + " >/dev/null 2>&1 & disown; exit 0",
		"env-i":       "env -i " + check(bin, filepath.Join(dir, "env-i")),
		"renamed":     check(copyBin, filepath.Join(dir, "renamed")),
	}
	for name, script := range scenarios {
		cmd := exec.Command("bash", "-c", script)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Println("SCENARIO-ERROR", name, err, string(out))
		}
	}
	// Wait for the detached ones, and let the reaper collect them.
	deadline := time.Now().Add(20 * time.Second)
	for name := range scenarios {
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// An orphan that exits is re-parented here and must not stay a zombie.
	orphan := exec.Command("/bin/sh", "-c", "setsid -f sh -c 'echo $$ > "+filepath.Join(dir, "orphan.pid")+"; sleep 0.2'")
	_ = orphan.Run()
	time.Sleep(300 * time.Millisecond)
	b, _ := os.ReadFile(filepath.Join(dir, "orphan.pid"))
	opid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	zombieGone := false
	for i := 0; i < 100 && opid > 0; i++ {
		p, err := readProc(opid)
		if err != nil || p.ppid != os.Getpid() {
			zombieGone = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Println("REAPED", zombieGone, opid)
	// Peer checks: a descendant connects to this server over loopback.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("LISTEN-ERROR", err)
		return
	}
	defer ln.Close()
	fmt.Println("LISTEN", ln.Addr())
	go func() {
		c := exec.Command(bin, "-test.run=^TestHelperAncestryConnect$", "--", "connect", ln.Addr().String())
		_ = c.Run()
	}()
	for i := 0; i < 2; i++ {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		res := "ok"
		if err := CheckPeer(conn.LocalAddr(), conn.RemoteAddr()); errors.Is(err, ErrDescendant) {
			res = "descendant"
		} else if err != nil {
			res = "unknown: " + err.Error()
		}
		fmt.Println("PEER", res)
		_, _ = io.WriteString(conn, res+"\n")
		conn.Close()
	}
}

// TestHelperAncestryConnect connects to the address and reads the server's verdict.
func TestHelperAncestryConnect(t *testing.T) {
	args := helperArgs()
	if len(args) < 2 || args[0] != "connect" {
		t.Skip("helper")
	}
	c, err := net.Dial("tcp", args[1])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = bufio.NewReader(c).ReadString('\n')
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// TestDescendantsCannotActAsOperator: every way a command can detach still counts as a
// descendant, the peer of a loopback connection from a descendant is found and refused,
// a process outside is accepted, and orphans are reaped.
func TestDescendantsCannotActAsOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	selfUnderServer(t)
	state, dir := t.TempDir(), t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAncestryServer$", "-test.v", "--", "server", state, dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	var lines []string
	peers := 0
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if addr, ok := strings.CutPrefix(line, "LISTEN "); ok {
			// The outside client: this test process, not a descendant of the server.
			go func() {
				time.Sleep(500 * time.Millisecond) // after the descendant's connection
				c, err := net.Dial("tcp", addr)
				if err == nil {
					_, _ = bufio.NewReader(c).ReadString('\n')
					c.Close()
				}
			}()
		}
		if strings.HasPrefix(line, "PEER ") {
			peers++
			if peers == 2 {
				break
			}
		}
	}
	_ = cmd.Wait()
	out := strings.Join(lines, "\n")
	for _, l := range lines {
		if strings.Contains(l, "-ERROR") {
			t.Fatalf("helper: %s\n%s", l, out)
		}
	}
	for _, name := range []string{"direct", "setsid", "double-fork", "nohup", "env-i", "renamed"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: no answer: %v\n%s", name, err, out)
			continue
		}
		if string(b) != "descendant" {
			t.Errorf("%s: CheckOperator from a descendant = %q, want descendant", name, b)
		}
	}
	if !strings.Contains(out, "PEER descendant") {
		t.Errorf("a descendant's loopback connection was not refused:\n%s", out)
	}
	if !strings.Contains(out, "PEER ok") {
		t.Errorf("an outside client's loopback connection was refused:\n%s", out)
	}
	if !strings.Contains(out, "REAPED true") {
		t.Errorf("an orphan that exited stayed a zombie of the subreaper:\n%s", out)
	}
	// After the server exits its record is gone, and the user's own CLI may act.
	if err := CheckOperator(state); err != nil {
		t.Errorf("CheckOperator from outside after the server ended: %v", err)
	}
}

// TestForeignNamespaceRecordFailsClosed: a server recorded from another namespace cannot
// be seen into, so the operator check refuses; a stale record of this namespace is removed.
func TestForeignNamespaceRecordFailsClosed(t *testing.T) {
	selfUnderServer(t)
	state := t.TempDir()
	dir := recordsDir(state)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	pidns, userns := namespaces()
	write := func(name string, r serverRecord) string {
		p := filepath.Join(dir, name)
		b := fmt.Sprintf(`{"pid":%d,"start":%d,"boot":%q,"pid_ns":%q,"user_ns":%q}`, r.PID, r.Start, r.Boot, r.PIDNS, r.UserNS)
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := write("stale", serverRecord{PID: 1 << 22, Start: 1, Boot: bootID(), PIDNS: pidns, UserNS: userns})
	if err := CheckOperator(state); err != nil {
		t.Fatalf("a stale record refused the operator: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("the stale record was not removed")
	}
	write("foreign", serverRecord{PID: 7, Start: 1, Boot: bootID(), PIDNS: "pid:[1]", UserNS: userns})
	if err := CheckOperator(state); !errors.Is(err, ErrAncestryUnknown) {
		t.Errorf("CheckOperator with a server in another namespace = %v, want ErrAncestryUnknown", err)
	}
}

// TestHiddenProcFailsClosed runs the check in a mount namespace without /proc.
func TestHiddenProcFailsClosed(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("needs root for a private mount namespace (CI runs as root)")
		}
		t.Skip("needs root for a private mount namespace")
	}
	res := filepath.Join(t.TempDir(), "res")
	script := "umount -l /proc && " + shq(os.Args[0]) + " -test.run='^TestHelperAncestryCheck$' -- check '' " + shq(res)
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	if b, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("unshare: %v\n%s", err, b)
		}
		t.Skipf("unshare: %v\n%s", err, b)
	}
	b, _ := os.ReadFile(res)
	if !strings.HasPrefix(string(b), "unknown:") || !strings.Contains(string(b), "/proc") {
		t.Errorf("check without /proc = %q, want a refusal naming /proc", b)
	}
}

// TestServerEnvironmentUnreadable: a descendant of a marked server (same user) cannot read
// the server's environment. Run as an unprivileged user: root reads any /proc file.
func TestServerEnvironmentUnreadable(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	// Not t.TempDir: its parent is private to this user, and the helper may run as nobody.
	dir, err := os.MkdirTemp("", "toolhost-envtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "server.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestHelperEnvServer$", "--", "envserver", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "TOOLHOST_TOKEN=secret-in-env")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "secret-in-env") || !strings.Contains(string(b), "denied") {
		t.Errorf("a descendant read the server's environment: %q", b)
	}
}

func TestHelperEnvServer(t *testing.T) {
	args := helperArgs()
	if len(args) < 2 || args[0] != "envserver" {
		t.Skip("helper")
	}
	if _, err := MarkServer("", nil); err != nil {
		t.Fatal(err)
	}
	out := args[1]
	c := exec.Command("/bin/sh", "-c", "cat /proc/$PPID/environ > "+shq(out)+" 2>/dev/null || echo denied > "+shq(out))
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
}

func TestProcAddr(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"0100007F:1F90", "127.0.0.1:8080"},
		{"00000000000000000000000001000000:0050", "[::1]:80"},
		{"0000000000000000FFFF00000100007F:1F90", "127.0.0.1:8080"},
	} {
		a, ok := parseProcAddr(c.in)
		if !ok || a.String() != c.want {
			t.Errorf("parseProcAddr(%q) = %v, %v; want %s", c.in, a, ok, c.want)
		}
	}
}

// TestScrubEnviron: the value leaves /proc/self/environ and stays in the process.
func TestScrubEnviron(t *testing.T) {
	args := helperArgs()
	if len(args) == 0 || args[0] != "scrub" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestScrubEnviron$", "--", "scrub")
		cmd.Env = append(os.Environ(), "TOOLHOST_TOKEN=scrub-me-0123456789", "TOOLHOST_OTHER=also-me", "KEEP_ME=visible")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SCRUBBED") {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		return
	}
	if err := ScrubEnviron([]string{"TOOLHOST_*"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "scrub-me") || strings.Contains(string(b), "also-me") || !strings.Contains(string(b), "KEEP_ME=visible") {
		t.Fatalf("environ after scrub: %q", b)
	}
	if os.Getenv("TOOLHOST_TOKEN") != "scrub-me-0123456789" {
		t.Fatalf("the process lost its own value: %q", os.Getenv("TOOLHOST_TOKEN"))
	}
	fmt.Println("SCRUBBED")
}
