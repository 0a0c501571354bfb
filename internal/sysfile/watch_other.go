//go:build !linux

package sysfile

// Watch learns of changes to paths from the kernel where it can (Linux: inotify); here it
// watches nothing, and callers ask DirStamp each time.
type Watch struct{}

// Watcher is the process's Watch: none here.
var Watcher = func() *Watch { return nil }

// Add watches nothing here.
func (w *Watch) Add(path string, entries bool) (gen uint64, ok bool) { return 0, false }

// Sync has nothing to read here.
func (w *Watch) Sync() {}

// Gen knows no path here.
func (w *Watch) Gen(path string) (gen uint64, ok bool) { return 0, false }

// Unchanged vouches for nothing here.
func (w *Watch) Unchanged(paths []string, gens []uint64) bool { return false }

// UnchangedSince vouches for nothing here.
func (w *Watch) UnchangedSince(seq uint64, paths []string, gens []uint64) (now uint64, ok bool) {
	return 0, false
}
