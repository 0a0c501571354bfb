//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// castOutput checks that b is an asciicast v2 file (a header with version 2, then events
// [time, code, data] in time order) and returns its output events' text.
func castOutput(t *testing.T, b []byte) string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	if !sc.Scan() {
		t.Fatal("empty recording")
	}
	var h struct {
		Version       int `json:"version"`
		Width, Height int
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != 2 || h.Width < 1 || h.Height < 1 {
		t.Fatalf("header %q: %v; want version 2 and a size", sc.Text(), err)
	}
	var out strings.Builder
	last := 0.0
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		ts, _ := ev[0].(float64)
		code, _ := ev[1].(string)
		data, ok := ev[2].(string)
		if ts < last || !ok || !strings.Contains("oimr", code) || len(code) != 1 {
			t.Fatalf("event %q: want [time not going back, o|i|m|r, text]", sc.Text())
		}
		last = ts
		if code == "o" {
			out.WriteString(data)
		}
	}
	return out.String()
}

// playedBy prints a recording with asciinema's own player (asciinema cat); see
// internal/terminal's test of the same name for why it runs on a PTY. Missing asciinema fails
// under CI (.ci/run installs it) and skips elsewhere.
func playedBy(t *testing.T, path string) string {
	t.Helper()
	bin, err := exec.LookPath("asciinema")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("asciinema is not installed; .ci/run installs it")
		}
		t.Skip("asciinema is not installed (apt-get install asciinema)")
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(bin, "cat", path)
	var out, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Run(); err != nil {
		t.Fatalf("asciinema cat: %v\n%s", err, stderr.String())
	}
	return out.String()
}

// TestSessionRecording: a terminal session driven over MCP is recorded; `toolhost sessions
// list` names it, `toolhost sessions export` writes an asciicast v2 that asciinema replays
// with the session's output in order, and the console's history page offers the same file
// as a download.
func TestSessionRecording(t *testing.T) {
	sv := startServeFull(t, "")
	cs := httpClient(t, sv, "", nil)
	call(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "rec"})
	for _, c := range []string{"echo one-$((1+1))", "printf 'w\\303\\266rld \\342\\234\\223\\n'", "echo three-$((1+2))"} {
		if text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "rec", "text": c, "wait_ms": 5000}); strings.HasPrefix(text, "ERROR") {
			t.Fatalf("send_input %q: %s", c, text)
		}
	}
	// Another process sees what the server recorded within a fifth of a second.
	time.Sleep(300 * time.Millisecond)
	list := exec.Command(binary, "sessions", "list", "--state-dir", sv.state, "--config", filepath.Join(sv.state, "config.toml"))
	out, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rec") {
		t.Fatalf("toolhost sessions list = %v\n%s", err, out)
	}
	conv := regexp.MustCompile(`(?m)^(\S+)\s+rec\s`).FindStringSubmatch(string(out))
	if conv == nil {
		t.Fatalf("no conversation for session rec in:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "rec.cast")
	exp := exec.Command(binary, "sessions", "export", conv[1], "rec", "--out", file, "--state-dir", sv.state, "--config", filepath.Join(sv.state, "config.toml"))
	if out, err := exp.CombinedOutput(); err != nil || !strings.Contains(string(out), "wrote "+file) {
		t.Fatalf("toolhost sessions export = %v\n%s", err, out)
	}
	b, _ := os.ReadFile(file)
	text := castOutput(t, b)
	i, j, k := strings.Index(text, "one-2"), strings.Index(text, "wörld ✓"), strings.Index(text, "three-3")
	if i < 0 || j < i || k < j {
		t.Errorf("exported output out of order or missing (one %d, world %d, three %d):\n%q", i, j, k, text)
	}
	if got := playedBy(t, file); got != text {
		t.Errorf("asciinema cat differs from the recording's output:\n%q\nwant\n%q", got, text)
	}
	if out, err := exec.Command(binary, "sessions", "export", conv[1], "nope", "--state-dir", sv.state, "--config", filepath.Join(sv.state, "config.toml")).CombinedOutput(); err == nil || !strings.Contains(string(out), "no recording of that session") {
		t.Errorf("export of an unknown session = %v\n%s", err, out)
	}

	console := signInForm(t, sv)
	code, page := console.get("/terminals/history?conversation=" + conv[1] + "&id=rec")
	m := regexp.MustCompile(`href="(/terminals/recording\?[^"]+)" download`).FindStringSubmatch(page)
	if code != 200 || m == nil {
		t.Fatalf("history page %d has no recording link:\n%s", code, page)
	}
	resp, err := console.cl.Get(console.base + strings.ReplaceAll(m[1], "&amp;", "&"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-asciicast" || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("recording download = %d %v", resp.StatusCode, resp.Header)
	}
	if got := castOutput(t, body.Bytes()); !strings.Contains(got, "three-3") {
		t.Errorf("downloaded recording lacks the session's output:\n%q", got)
	}
	if code, _ := console.get("/terminals/recording?conversation=" + conv[1] + "&id=nope"); code != 404 {
		t.Errorf("download of an unknown session = %d, want 404", code)
	}
	// The Health page shows the state directory by part, recordings among them.
	if _, page := console.get("/health"); !strings.Contains(page, "recordings") || !strings.Contains(page, "audit log") {
		t.Errorf("health page lacks the state directory's parts:\n%s", page)
	}
}
