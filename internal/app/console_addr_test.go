package app

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"toolhost/consolidated"
	"toolhost/internal/owner"
)

// TestConsoleElsewhere: a console announced in the state directory is found while its process
// runs, not when the file names a process that is gone or is unreadable, and withdrawing it
// removes only this process's announcement.
func TestConsoleElsewhere(t *testing.T) {
	dir := t.TempDir()
	a := &App{StateDir: dir, Logger: slog.New(slog.DiscardHandler)}
	path := filepath.Join(dir, consoleFile)
	gone := owner.ID{PID: 1 << 22, Start: 1, Boot: owner.Self().Boot}.String()
	tests := []struct {
		name    string
		content string // "" means announced by this process
		want    string
	}{
		{"announced by a running process", "", "http://127.0.0.1:8765/"},
		{"announced by a process that is gone", `{"url":"http://127.0.0.1:9/","owner":"` + gone + `"}`, ""},
		{"unreadable", `{"url":`, ""},
		{"not an http address", `{"url":"file:///etc/passwd","owner":"` + owner.Self().String() + `"}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(path)
			withdraw := func() {}
			if tc.content == "" {
				withdraw = a.AnnounceConsole("http://127.0.0.1:8765/")
			} else if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := consoleElsewhere(dir)(); got != tc.want {
				t.Errorf("console elsewhere = %q, want %q", got, tc.want)
			}
			withdraw()
		})
	}
	// Withdrawing leaves another process's announcement in place.
	other, _ := json.Marshal(consoleAnnouncement{URL: "http://127.0.0.1:1234/", Owner: "1_1_00000000"})
	withdraw := a.AnnounceConsole("http://127.0.0.1:8765/")
	if err := os.WriteFile(path, other, 0o600); err != nil {
		t.Fatal(err)
	}
	withdraw()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("withdrawing removed another process's announcement: %v", err)
	}
}

// TestListenerElsewhere: the network guard learns the announced serve's host:port, and nothing
// when no live process announced one.
func TestListenerElsewhere(t *testing.T) {
	dir := t.TempDir()
	a := &App{StateDir: dir, Logger: slog.New(slog.DiscardHandler), Env: &consolidated.Env{}}
	a.Env.Approvals = &consolidated.ApprovalPlace{Elsewhere: consoleElsewhere(dir)}
	at := a.listenerElsewhere()
	if got := at(); got != "" {
		t.Errorf("with nothing announced: %q, want empty", got)
	}
	withdraw := a.AnnounceConsole("http://127.0.0.1:8765/")
	defer withdraw()
	a.Env.Approvals = &consolidated.ApprovalPlace{Elsewhere: consoleElsewhere(dir)} // a fresh cache
	if got := a.listenerElsewhere()(); got != "127.0.0.1:8765" {
		t.Errorf("announced http://127.0.0.1:8765/: %q, want 127.0.0.1:8765", got)
	}
}
