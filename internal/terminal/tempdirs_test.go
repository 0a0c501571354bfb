package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/gate"
	"toolhost/internal/owner"
)

func TestSweepTermDirs(t *testing.T) {
	self := owner.Self()
	dead := owner.ID{PID: self.PID, Start: self.Start + 1, Boot: self.Boot}
	if owner.Alive(dead) {
		t.Skip("no /proc: a dead owner cannot be told from a live one here")
	}
	tmp := t.TempDir()
	mine, err := makeTermDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{ // name -> removed
		filepath.Base(mine):                              false, // this process
		termDirPrefix + dead.String() + "-123":           true,  // dead owner
		gate.PrivateTempPrefix + dead.String() + "-ab12": true,  // a dead owner's private TMPDIR
		gate.PrivateTempPrefix + self.String() + "-cd34": false, // this process's private TMPDIR
		termDirPrefix + "4567890":                        false, // older version: no owner, left alone
		"other-" + dead.String() + "-1":                  false, // not ours
	}
	for name := range dirs {
		if err := os.MkdirAll(filepath.Join(tmp, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name, "bashrc"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A file (not a directory) with a matching name is not touched.
	file := filepath.Join(tmp, termDirPrefix+dead.String()+"-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := sweepTermDirs(tmp); n != 2 {
		t.Errorf("sweepTermDirs removed %d, want 2", n)
	}
	for name, wantGone := range dirs {
		_, err := os.Stat(filepath.Join(tmp, name))
		if gone := os.IsNotExist(err); gone != wantGone {
			t.Errorf("%s removed = %v, want %v", name, gone, wantGone)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("a file named like a directory was removed: %v", err)
	}
	if !strings.Contains(filepath.Base(mine), self.String()) {
		t.Errorf("terminal dir %s does not name its owner %s", mine, self)
	}
}

// TestRCDirMadeOnFirstUse: a manager that runs nothing makes no temporary directory; the first
// session makes its rc file, later ones reuse it, and Shutdown removes it.
func TestRCDirMadeOnFirstUse(t *testing.T) {
	m, err := NewManager(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	if m.rcDir != "" {
		t.Fatalf("NewManager made %s before any session", m.rcDir)
	}
	createSession(t, m, "c", "a")
	dir := m.rcDir
	if _, err := os.Stat(filepath.Join(dir, "bashrc")); err != nil {
		t.Fatalf("after the first session: %v", err)
	}
	createSession(t, m, "c", "b")
	if m.rcDir != dir {
		t.Errorf("second session: rc dir %s, want the first one's %s", m.rcDir, dir)
	}
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after Shutdown: stat %s = %v, want it removed", dir, err)
	}
}
