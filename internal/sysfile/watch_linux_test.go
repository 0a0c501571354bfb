//go:build linux

package sysfile

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWatchSeesWhatStampsSee changes a tree one way per case and checks which watched paths'
// generations move: those whose entries or whose inode a stat would find changed, and no other.
func TestWatchSeesWhatStampsSee(t *testing.T) {
	type marks struct{ dir, file, missing, below, plain bool } // which generations move
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   marks
	}{
		{"entry created in a watched directory", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "a", "dir", "new"))
		}, marks{dir: true}},
		{"entry removed from a watched directory", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "a", "dir", "old")))
		}, marks{dir: true}},
		{"file written in place", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "a", "file"))
			write(t, filepath.Join(root, "a", "dir", "old"))
		}, marks{}},
		{"mode changed", func(t *testing.T, root string) {
			must(t, os.Chmod(filepath.Join(root, "a", "dir"), 0o700))
		}, marks{}},
		{"file replaced", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "a", "file.new"))
			must(t, os.Rename(filepath.Join(root, "a", "file.new"), filepath.Join(root, "a", "file")))
		}, marks{file: true}},
		{"directory moved away and made again", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "a", "dir"), filepath.Join(root, "moved")))
			must(t, os.Mkdir(filepath.Join(root, "a", "dir"), 0o755))
		}, marks{dir: true, below: true}},
		{"ancestor moved away and made again", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "a2")))
			must(t, os.MkdirAll(filepath.Join(root, "a", "dir", "sub"), 0o755))
		}, marks{dir: true, file: true, below: true, plain: true}},
		{"missing path created", func(t *testing.T, root string) {
			must(t, os.MkdirAll(filepath.Join(root, "missing", "x"), 0o755))
		}, marks{missing: true}},
		{"entry created beside a path watched for its inode only", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "a", "plain", "new"))
		}, marks{}},
		{"entry created in a subdirectory of a watched one", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "a", "dir", "sub", "new"))
		}, marks{below: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWatch()
			if w == nil {
				t.Fatal("no inotify on Linux")
			}
			defer w.close()
			root, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			must(t, os.MkdirAll(filepath.Join(root, "a", "dir", "sub"), 0o755))
			must(t, os.MkdirAll(filepath.Join(root, "a", "plain"), 0o755))
			write(t, filepath.Join(root, "a", "file"))
			write(t, filepath.Join(root, "a", "dir", "old"))
			paths := map[string]struct {
				path    string
				entries bool
			}{
				"dir":     {filepath.Join(root, "a", "dir"), true},
				"file":    {filepath.Join(root, "a", "file"), false},
				"missing": {filepath.Join(root, "missing", "x"), true},
				"below":   {filepath.Join(root, "a", "dir", "sub"), true},
				"plain":   {filepath.Join(root, "a", "plain"), false},
			}
			gens := map[string]uint64{}
			for k, p := range paths {
				gens[k] = mustAdd(t, w, p.path, p.entries)
			}
			w.Sync()
			for k, p := range paths {
				if g, _ := w.Gen(p.path); g != gens[k] {
					t.Fatalf("Gen(%s) moved before any change", k)
				}
			}
			all := []string{paths["dir"].path, paths["file"].path}
			allGens := []uint64{gens["dir"], gens["file"]}
			seq, ok := w.UnchangedSince(0, all, allGens)
			if seq, ok = w.UnchangedSince(seq, all, allGens); !ok || seq == 0 {
				t.Fatalf("UnchangedSince before any change = %d, %v", seq, ok)
			}
			tt.change(t, root)
			w.Sync()
			moved := func(k string) bool {
				g, ok := w.Gen(paths[k].path)
				return !ok || g != gens[k]
			}
			got := marks{dir: moved("dir"), file: moved("file"), missing: moved("missing"), below: moved("below"), plain: moved("plain")}
			if got != tt.want {
				t.Errorf("moved = %+v, want %+v", got, tt.want)
			}
			if w.Unchanged(all, allGens) == (tt.want.dir || tt.want.file) {
				t.Errorf("Unchanged(dir, file) = %v, want %v", !(tt.want.dir || tt.want.file), !(tt.want.dir || tt.want.file))
			}
			// Asked again with the sequence of the last answer, before the change.
			if _, ok := w.UnchangedSince(seq, all, allGens); ok == (tt.want.dir || tt.want.file) {
				t.Errorf("UnchangedSince(dir, file) = %v, want %v", ok, !(tt.want.dir || tt.want.file))
			}
		})
	}
}

func TestWatchRefuses(t *testing.T) {
	w := newWatch()
	defer w.close()
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	must(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
	must(t, os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")))
	for _, p := range []string{filepath.Join(root, "link"), filepath.Join(root, "link", "x"), "relative", root + "/../x"} {
		if _, ok := w.Add(p, true); ok {
			t.Errorf("Add(%s) = watched, want refused", p)
		}
	}
	var nilWatch *Watch
	if _, ok := nilWatch.Add(root, true); ok || nilWatch.Unchanged(nil, nil) {
		t.Error("a nil Watch vouches for something")
	}
}

func write(t *testing.T, p string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte("x"), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWatchSeesMounts mounts a file system over a watched directory (where this process may):
// the path names another directory then, with no event on the way.
func TestWatchSeesMounts(t *testing.T) {
	w := newWatch()
	defer w.close()
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	dir := filepath.Join(root, "dir")
	must(t, os.Mkdir(dir, 0o755))
	g := mustAdd(t, w, dir, true)
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		if os.Getenv("CI") != "" && os.Geteuid() == 0 {
			t.Fatalf("mount as root under CI: %v", err)
		}
		t.Skipf("cannot mount here (not root?): %v", err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	if w.Unchanged([]string{dir}, []uint64{g}) {
		t.Error("Unchanged after a mount over the path")
	}
}

// TestWatchFollowsARecreatedDirectory adds a path again after a directory on its way was
// replaced: the new directory is the one watched from then on.
func TestWatchFollowsARecreatedDirectory(t *testing.T) {
	w := newWatch()
	defer w.close()
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	dir := filepath.Join(root, "a", "dir")
	must(t, os.MkdirAll(dir, 0o755))
	mustAdd(t, w, dir, true)
	must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "old")))
	must(t, os.MkdirAll(dir, 0o755))
	w.Sync()
	g, ok := w.Add(dir, true)
	if !ok {
		t.Fatalf("Add(%s) again = not watchable", dir)
	}
	write(t, filepath.Join(root, "old", "dir", "x")) // the old directory: no longer the path's
	if !w.Unchanged([]string{dir}, []uint64{g}) {
		t.Error("a change in the directory moved away counts for the path")
	}
	write(t, filepath.Join(dir, "x"))
	if w.Unchanged([]string{dir}, []uint64{g}) {
		t.Error("a change in the new directory at the path went unseen")
	}
}

// mustAdd watches path. A temp dir on a file system inotify cannot watch skips the test
// locally; under CI=true, where the temp dir is an ordinary local one, it fails.
func mustAdd(t *testing.T, w *Watch, path string, entries bool) uint64 {
	t.Helper()
	g, ok := w.Add(path, entries)
	if !ok {
		if os.Getenv("CI") != "" {
			t.Fatalf("Add(%s) = not watchable under CI", path)
		}
		t.Skipf("Add(%s) = not watchable (file system of the temp dir?)", path)
	}
	return g
}

// TestUnchangedSinceAfterReset: dropping every mark (too many paths watched) ends the short
// answer too.
func TestUnchangedSinceAfterReset(t *testing.T) {
	w := newWatch()
	if w == nil {
		t.Fatal("no inotify on Linux")
	}
	defer w.close()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	paths, gens := []string{dir}, []uint64{mustAdd(t, w, dir, true)}
	seq, ok := w.UnchangedSince(0, paths, gens)
	if !ok {
		t.Fatal("UnchangedSince before any change = false")
	}
	w.mu.Lock()
	w.reset()
	w.mu.Unlock()
	if _, ok := w.UnchangedSince(seq, paths, gens); ok {
		t.Error("UnchangedSince after a reset = true")
	}
}
