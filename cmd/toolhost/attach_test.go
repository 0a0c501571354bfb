//go:build linux

package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"toolhost/internal/logtest"
)

// ptyOutput collects what a program writes to its terminal.
type ptyOutput struct{ logtest.Buffer }

// await waits until the output holds want.
func (o *ptyOutput) await(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(o.String(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows:\n%q", want, o.String())
		}
	}
}

// consoleConversation is the conversation the console's Terminals page shows session id in.
func consoleConversation(t *testing.T, sv served, id string) string {
	t.Helper()
	f := signInForm(t, sv)
	_, page := f.get("/terminals")
	m := regexp.MustCompile(`(?s)Conversation <code>([^<]+)</code>.*?id="term-` + regexp.QuoteMeta(id) + `"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the terminals page shows no session %s:\n%s", id, page)
	}
	return m[1]
}

// TestAttach: `toolhost attach` on a real terminal (a PTY) shows the session's screen, sends
// the user's keys to the program reading them (a read prompt), and detaches on Ctrl-] with the
// terminal restored; the model's next get_output names the keys as the user's; the batch is in
// the audit log. It refuses a session that does not exist.
func TestAttach(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	sv := startServeFull(t, "")
	cs := httpClient(t, sv, "2025-06-18", nil)
	if text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "dev"}); strings.HasPrefix(text, "ERROR") {
		t.Fatal(text)
	}
	call(t, cs, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "dev", "text": `read -p 'name? ' n; echo "hello $n"`})
	call(t, cs, "terminal_operations", map[string]any{"operation": "get_output", "session_id": "dev", "wait_for": `name\? $`, "wait_ms": 15000})
	conv := consoleConversation(t, sv, "dev")

	if _, errOut, err := cli(t, sv.state, sv.work, "attach", conv, "nope"); err == nil || !strings.Contains(errOut, `no session "nope"`) {
		t.Errorf("attach to a session that does not exist: %v, %s", err, errOut)
	}

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := commandIn(t, sv.state, sv.work, "attach", conv, "dev")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	var out ptyOutput
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			out.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	out.await(t, "Ctrl-] detaches")
	out.await(t, "name? ")
	if tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err != nil || tio.Lflag&(unix.ICANON|unix.ECHO) != 0 {
		t.Errorf("attach's terminal is not in raw mode: lflag %#x, %v", tio.Lflag, err)
	}
	for _, k := range []string{"A", "d", "a", "\r"} {
		ptmx.Write([]byte(k))
		time.Sleep(30 * time.Millisecond)
	}
	out.await(t, "hello Ada")

	text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "get_output", "session_id": "dev", "wait_for": "hello Ada", "wait_ms": 15000})
	if !regexp.MustCompile(`⟦user typed \(attach [0-9:-]+\): Ada⏎⟧`).MatchString(text) || !strings.Contains(text, "hello Ada") {
		t.Errorf("the model's get_output after the user typed:\n%s", text)
	}

	ptmx.Write([]byte{0x1d})
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("attach after Ctrl-]: %v\n%s", err, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("attach did not detach on Ctrl-]:\n%q", out.String())
	}
	out.await(t, "detached")
	if tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err != nil || tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ECHO == 0 {
		t.Errorf("the terminal was not restored after detaching: lflag %#x, %v", tio.Lflag, err)
	}
	// One record per batch the terminal gave attach: keys typed fast may come in one.
	audit, _ := os.ReadFile(filepath.Join(sv.state, "audit.jsonl"))
	var keys strings.Builder
	for _, m := range regexp.MustCompile(`"via":"attach","bytes":\d+,"keys":"([^"]*)"`).FindAllStringSubmatch(string(audit), -1) {
		keys.WriteString(m[1])
	}
	if keys.String() != "Ada⏎" {
		t.Errorf("the audit records of attach hold the keys %q, want Ada⏎:\n%s", keys.String(), audit)
	}
}

// TestTerminalAPIRefusesClientTokens: /api/terminals/ takes the operator token only; a
// view_only client token (or any other) is refused with 403 and the refusal audited, and a
// request without a token is refused before it.
func TestTerminalAPIRefusesClientTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	sv := startServeFull(t, "")
	cs := httpClient(t, sv, "2025-06-18", nil)
	call(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "dev"})
	conv := consoleConversation(t, sv, "dev")
	viewer := createToken(t, sv.state, sv.work, "ci-bot", "--tier", "view_only")
	admin := createToken(t, sv.state, sv.work, "agent", "--tier", "admin")
	base := strings.TrimSuffix(sv.url, "/mcp")
	post := func(token string) (int, string) {
		resp, b := send(t, "POST", base+"/api/terminals/input?conversation="+conv+"&id=dev", token, "touch pwned\r")
		return resp.StatusCode, b
	}
	tests := []struct {
		name, token string
		status      int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"view_only client token", viewer, http.StatusForbidden},
		{"admin client token", admin, http.StatusForbidden},
		{"the MCP token", sv.token, http.StatusForbidden},
	}
	for _, tt := range tests {
		if code, body := post(tt.token); code != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, code, body, tt.status)
		}
	}
	if _, err := os.Stat(filepath.Join(sv.work, "pwned")); err == nil {
		t.Error("a client token's keys ran")
	}
	audit, _ := os.ReadFile(filepath.Join(sv.state, "audit.jsonl"))
	for _, who := range []string{"client token ci-bot (tier view_only)", "client token agent (tier admin)"} {
		if !strings.Contains(string(audit), `"event":"terminal_input","outcome":"refused"`) || !strings.Contains(string(audit), who) {
			t.Errorf("the audit log does not record the refusal of %s:\n%s", who, audit)
		}
	}
	token, err := os.ReadFile(filepath.Join(sv.state, "operator-token"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := post(strings.TrimSpace(string(token))); code != http.StatusNoContent {
		t.Errorf("the operator token: %d %s", code, body)
	}
}

// TestConsoleTypeIntoRead: in Chromium, the Terminals page links a running session's Type
// page; keys typed on its screen answer a read prompt in the session, the screen follows, and
// the model's next get_output names them as the user's.
func TestConsoleTypeIntoRead(t *testing.T) {
	tab, sv, cs := consoleSession(t, "2025-06-18", nil)
	if text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "dev"}); strings.HasPrefix(text, "ERROR") {
		t.Fatal(text)
	}
	call(t, cs, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "dev", "text": `read -p 'name? ' n; echo "hello $n"`})
	call(t, cs, "terminal_operations", map[string]any{"operation": "get_output", "session_id": "dev", "wait_for": `name\? $`, "wait_ms": 15000})
	base := strings.TrimSuffix(sv.url, "/mcp")
	within(t, tab, 20*time.Second, "terminals page", chromedp.Navigate(base+"/terminals"),
		chromedp.WaitVisible(chromedp.CSS(`#term-dev a[href^="/terminals/type"]`)))
	within(t, tab, 20*time.Second, "Type page", clickLive(`#term-dev a[href^="/terminals/type"]`),
		chromedp.WaitVisible(chromedp.CSS("#typing")),
		chromedp.Poll[chromedp.Void](`document.querySelector("#typing").textContent.includes("name? ")`))
	within(t, tab, 20*time.Second, "type", chromedp.Click(chromedp.CSS("#typing")), chromedp.KeyEvent("Ada\r"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#typing").textContent.includes("hello Ada")`))
	screenshot(t, tab, "type")
	text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "get_output", "session_id": "dev", "wait_for": "hello Ada", "wait_ms": 15000})
	if !regexp.MustCompile(`⟦user typed \(console [0-9:-]+\): Ada⏎⟧`).MatchString(text) {
		t.Errorf("the model's get_output after the user typed in the console:\n%s", text)
	}
	if state, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#typing-state"))); state != "" {
		t.Errorf("the Type page says %q", state)
	}
}
