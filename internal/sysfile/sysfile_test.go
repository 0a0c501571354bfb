package sysfile

import (
	"context"
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

// TestTreeSize counts regular files at every depth, never what a symlink points at, and stops
// when its context ends.
func TestTreeSize(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "big")
	for p, n := range map[string]int{"a": 3, "sub/b": 5, "sub/deeper/c": 7, "empty": 0} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	if got, err := TreeSize(context.Background(), dir); err != nil || got != 15 {
		t.Errorf("TreeSize = %d, %v; want 15", got, err)
	}
	if got, err := TreeSize(context.Background(), filepath.Join(dir, "sub", "b")); err != nil || got != 5 {
		t.Errorf("TreeSize of one file = %d, %v; want 5", got, err)
	}
	if got, err := TreeSize(context.Background(), filepath.Join(dir, "missing")); err != nil || got != 0 {
		t.Errorf("TreeSize of a missing path = %d, %v; want 0 and no error", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TreeSize(ctx, dir); err != context.Canceled {
		t.Errorf("TreeSize with an ended context: err %v, want context.Canceled", err)
	}
}
