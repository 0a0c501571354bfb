//go:build windows

package codeindex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The calls the index makes that differ by platform: here LockFileEx, a read-only file view,
// and an open that checks for a link first (Windows has no open flag that refuses one).

// lockDir takes the index directory's lock without waiting: one process at a time writes the
// index to disk (the others keep their changes in memory).
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &windows.Overlapped{}); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// errLink: the index does not read through a symbolic link or junction.
var errLink = errors.New("a link")

// openNoFollow opens rel under root for reading unless it is a link (a reparse point). A link
// swapped in between the check and the open is still confined to root by os.Root.
func openNoFollow(root *os.Root, rel string) (*os.File, error) {
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return nil, &os.PathError{Op: "open", Path: rel, Err: errLink}
	}
	return root.OpenFile(rel, os.O_RDONLY, 0)
}

// mapFile maps the first size bytes of f read-only. The view outlives the mapping handle; a
// mapped segment cannot be deleted until unmapped, which removeStale tolerates (it tries again
// after the next build).
func mapFile(f *os.File, size int) ([]byte, error) {
	if size == 0 {
		return nil, fmt.Errorf("map an empty file")
	}
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY, 0, 0, nil)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	if err != nil {
		return nil, err
	}
	// The view is outside Go's heap; read its address as a pointer without a uintptr
	// conversion the garbage collector could not follow.
	return unsafe.Slice(*(**byte)(unsafe.Pointer(&addr)), size), nil
}

// unmapFile undoes mapFile.
func unmapFile(data []byte) {
	if len(data) > 0 {
		_ = windows.UnmapViewOfFile(uintptr(unsafe.Pointer(&data[0])))
	}
}
