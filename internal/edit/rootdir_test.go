//go:build linux

package edit

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// openThroughFD opens dir the way authz does on Linux: a descriptor first, then the root through
// /proc/self/fd/N, and the descriptor closed again, so the root's name names a closed fd.
func openThroughFD(t *testing.T, dir string) *os.Root {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("roots are opened through /proc/self/fd on Linux only")
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(procFD + strconv.Itoa(fd))
	syscall.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// TestRootDirThroughFD: a transaction records the directory of a root opened through a
// descriptor, not the descriptor's number (which another process, the one that recovers the
// journal, would resolve to something else), and an absolute symlink inside it is followed.
func TestRootDirThroughFD(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := openThroughFD(t, dir)
	// Take the closed descriptor's number with something else, as a later open would.
	other, err := os.Open(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	got, err := rootDir(root)
	if err != nil || got != dir {
		t.Fatalf("rootDir(root named %s) = %q, %v; want %q", root.Name(), got, err, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "target.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "target.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if rel, err := resolve(root, "link.txt"); err != nil || rel != "target.txt" {
		t.Errorf("resolve(link.txt -> absolute path inside) = %q, %v; want target.txt", rel, err)
	}
	p := &Plan{Changes: []Change{{Op: OpUpdate, Path: "target.txt", Old: []byte("x"), New: []byte("y")}}}
	txn, err := newTxn(root, p)
	if err != nil {
		t.Fatal(err)
	}
	if txn.rec.Root != dir {
		t.Errorf("journal record root = %q, want %q", txn.rec.Root, dir)
	}
}
