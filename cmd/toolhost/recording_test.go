//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"toolhost/internal/terminal/casttest"
)

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
	text := casttest.Parse(t, b).Output()
	i, j, k := strings.Index(text, "one-2"), strings.Index(text, "wörld ✓"), strings.Index(text, "three-3")
	if i < 0 || j < i || k < j {
		t.Errorf("exported output out of order or missing (one %d, world %d, three %d):\n%q", i, j, k, text)
	}
	if got := casttest.Play(t, file); got != text {
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
	if got := casttest.Parse(t, body.Bytes()).Output(); !strings.Contains(got, "three-3") {
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
