package terminal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		filepath.Base(mine):                    false, // this process
		termDirPrefix + dead.String() + "-123": true,  // dead owner
		termDirPrefix + "4567890":              false, // older version: no owner, left alone
		"other-" + dead.String() + "-1":        false, // not ours
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
	if n := sweepTermDirs(tmp); n != 1 {
		t.Errorf("sweepTermDirs removed %d, want 1", n)
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
