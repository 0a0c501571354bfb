package sysfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestDirStampMoves(t *testing.T) {
	dir := t.TempDir()
	ino, m1, ok := DirStamp(dir)
	if !ok {
		t.Fatalf("DirStamp(%s) failed", dir)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	_, m2, _ := DirStamp(dir)
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ino3, m3, _ := DirStamp(dir)
	if m2 == m1 || m3 == m2 || ino3 != ino {
		t.Errorf("DirStamp mtimes %d, %d, %d (ino %d, %d): want each change to move it, the inode to stay", m1, m2, m3, ino, ino3)
	}
	if _, _, ok := DirStamp(filepath.Join(dir, "missing")); ok {
		t.Error("DirStamp of a missing directory succeeded")
	}
}

func TestInoAndOwner(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && Ino(fi) == 0 {
		t.Error("Ino = 0 for an existing file")
	}
	if OwnedByOther(fi) {
		t.Error("a file this process made is owned by another user")
	}
	if free, err := FreeSpace(filepath.Dir(p)); err != nil || free == 0 {
		t.Errorf("FreeSpace = %d, %v", free, err)
	}
}
