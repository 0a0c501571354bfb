//go:build linux

package sysfile

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Watch tells a cache keyed on what paths name (a directory's entries, the inode a path leads
// to) whether those may have changed, so that a use costs one read of pending change events
// instead of a stat per path. It is what DirStamp answers, learnt from the kernel (inotify)
// rather than asked again each time.
//
// A path is watched together with every directory above it, so that a rename, removal or
// creation anywhere on the way counts as a change of the path; a mount or unmount anywhere
// counts as a change of every path (the mount table is polled). Paths on file systems whose
// changes may come from elsewhere (NFS, FUSE, ...) and paths with a symbolic link on the way
// are not watched: Add says so, and the caller asks DirStamp as before.
//
// A Watch is shared by the whole process (Watcher): each caller keeps the generation Add
// gave it for a path and compares it with Gen's, so callers never reset each other's view.
type Watch struct {
	mu     sync.Mutex
	fd     int // inotify, non-blocking
	mounts int // /proc/self/mountinfo: POLLPRI when the mount table changed
	wds    map[string]int32
	masks  map[string]uint32  // what each watched directory's watch reports
	dirs   map[int32][]string // a bind mount shows one directory at several paths
	marks  map[string]*mark
	under  map[string][]*mark // by directory: the marks at or below it
	seq    uint64             // the last generation handed out: a value never names two states
	buf    []byte
	pfds   [2]unix.PollFd // sync's, kept here so that a sync allocates nothing
}

type mark struct {
	entries bool // a change of the path's entries counts, not only of what it names
	gen     uint64
	// chain are the directories watched for it, from / down, and their masks; complete
	// says the chain reached the path itself (it existed then).
	chain    []string
	masks    []uint32
	complete bool
}

// bump gives m a generation no mark had before.
func (w *Watch) bump(m *mark) {
	w.seq++
	m.gen = w.seq
}

// bumpAll moves every mark (a mount changed, events were lost).
func (w *Watch) bumpAll() {
	for _, m := range w.marks {
		w.bump(m)
	}
}

// maxMarks bounds the paths watched; past it every mark is dropped and callers add theirs again.
const maxMarks = 8192

// localFS are the file systems whose every change passes through this kernel, so inotify
// reports it.
var localFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC: true, unix.XFS_SUPER_MAGIC: true, unix.BTRFS_SUPER_MAGIC: true,
	unix.TMPFS_MAGIC: true, unix.OVERLAYFS_SUPER_MAGIC: true, unix.F2FS_SUPER_MAGIC: true,
	unix.BCACHEFS_SUPER_MAGIC: true,
}

// Watcher is the process's Watch; nil where the kernel offers none (nil answers every
// question with "not watched").
var Watcher = sync.OnceValue(newWatch)

func newWatch() *Watch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	mounts, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(fd)
		return nil
	}
	w := &Watch{fd: fd, mounts: mounts, wds: map[string]int32{}, masks: map[string]uint32{}, dirs: map[int32][]string{},
		marks: map[string]*mark{}, under: map[string][]*mark{}, buf: make([]byte, 16<<10)}
	w.pollMounts() // the first poll reports the table as changed
	return w
}

const (
	entryEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO
	selfEvents  = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
)

// Add watches path (absolute and clean) from now on: with entries, a change of its entries
// counts too. It returns the path's generation, which moves at every change seen after Add
// returned; call Add before reading what the path names. ok is false when the path cannot be
// watched (a symbolic link on the way, a remote file system, no watches left).
func (w *Watch) Add(path string, entries bool) (gen uint64, ok bool) {
	if w == nil || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.marks) >= maxMarks {
		w.reset()
	}
	m := w.marks[path]
	if m != nil && m.complete && (m.entries || !entries) && w.intact(m) {
		return m.gen, true // watched all the way since the last Add: nothing to ask the kernel
	}
	// Every directory from / down: a change on the way is a change of the path.
	var chain []string
	var masks []uint32
	complete := false
	var st unix.Stat_t
	for dir := "/"; ; {
		if err := unix.Lstat(dir, &st); err != nil {
			if err == unix.ENOENT {
				break // not there yet: its creation is an event in the directory above
			}
			return 0, false
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return 0, false
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			mask := uint32(entryEvents | selfEvents)
			if dir == path && !entries && (m == nil || !m.entries) {
				mask = selfEvents
			}
			if !w.watch(dir, mask) {
				return 0, false
			}
			chain, masks = append(chain, dir), append(masks, mask)
		} else if dir != path {
			return 0, false
		}
		if dir == path {
			complete = true
			break
		}
		next, _, _ := strings.Cut(strings.TrimPrefix(path, strings.TrimSuffix(dir, "/")+"/"), "/")
		dir = filepath.Join(dir, next)
	}
	if m == nil {
		m = &mark{}
		w.bump(m)
		w.marks[path] = m
		for d := path; ; d = filepath.Dir(d) {
			w.under[d] = append(w.under[d], m)
			if d == "/" {
				break
			}
		}
	}
	m.entries = m.entries || entries
	m.chain, m.masks, m.complete = chain, masks, complete
	return m.gen, true
}

// intact reports whether every directory of m's chain is still watched with its mask: no
// event has ended a watch since (a directory moved or removed ends its watch).
func (w *Watch) intact(m *mark) bool {
	for i, d := range m.chain {
		if w.masks[d]&m.masks[i] != m.masks[i] {
			return false
		}
	}
	return true
}

// watch adds mask to dir's watch, after checking that dir's file system reports its changes.
func (w *Watch) watch(dir string, mask uint32) bool {
	if _, ok := w.wds[dir]; !ok {
		var fs unix.Statfs_t
		if err := unix.Statfs(dir, &fs); err != nil || !localFS[int64(fs.Type)] {
			return false
		}
	}
	wd, err := unix.InotifyAddWatch(w.fd, dir, mask|unix.IN_MASK_ADD|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if err != nil {
		return false
	}
	if old, ok := w.wds[dir]; ok && old != int32(wd) {
		w.forget(old, dir) // dir names another directory now
	}
	if w.wds[dir] != int32(wd) {
		w.wds[dir] = int32(wd)
		w.dirs[int32(wd)] = append(w.dirs[int32(wd)], dir)
	}
	w.masks[dir] |= mask
	return true
}

// forget drops dir from watch wd, and the watch when no path is left on it.
func (w *Watch) forget(wd int32, dir string) {
	if w.wds[dir] == wd {
		delete(w.wds, dir)
		delete(w.masks, dir)
	}
	left := slices.DeleteFunc(w.dirs[wd], func(d string) bool { return d == dir })
	if len(left) > 0 {
		w.dirs[wd] = left
		return
	}
	delete(w.dirs, wd)
	_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
}

// Sync reads the pending change events: Gen answers from what it read.
func (w *Watch) Sync() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sync()
}

// Gen is path's generation as of the last Sync, ok false when it is not watched; it equals the
// one Add returned when no change was seen since.
func (w *Watch) Gen(path string) (gen uint64, ok bool) {
	if w == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if m := w.marks[path]; m != nil {
		return m.gen, true
	}
	return 0, false
}

// Unchanged syncs and reports whether every path's generation is still the one in gens.
func (w *Watch) Unchanged(paths []string, gens []uint64) bool {
	_, ok := w.UnchangedSince(0, paths, gens)
	return ok
}

// UnchangedSince is Unchanged for a caller that keeps asking about the same paths: seq is what
// its last call that answered true returned (0 at first). While no generation moved since that
// call, it answers true without looking at each path again; seq is then returned unchanged.
func (w *Watch) UnchangedSince(seq uint64, paths []string, gens []uint64) (now uint64, ok bool) {
	if w == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sync()
	// Every change of a generation, and every reset, advances w.seq.
	if seq != 0 && seq == w.seq {
		return seq, true
	}
	for i, p := range paths {
		if m := w.marks[p]; m == nil || m.gen != gens[i] {
			return 0, false
		}
	}
	return w.seq, true
}

// maxReads bounds the reads of one sync: past it (a directory changing faster than it is
// read), every mark moves and what is left is read by the next sync.
const maxReads = 64

// sync reads the pending events and moves the generations they concern. One poll asks both
// whether the mount table changed and whether events wait, so a sync that finds nothing (the
// usual case, at every process start) costs one system call.
func (w *Watch) sync() {
	w.pfds = [2]unix.PollFd{{Fd: int32(w.mounts), Events: unix.POLLPRI}, {Fd: int32(w.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(w.pfds[:], 0)
	if err != nil || n > 0 && w.pfds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
		w.bumpAll()
	}
	if err == nil && (n == 0 || w.pfds[1].Revents == 0) {
		return // no event waits
	}
	for range maxReads {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			return // EAGAIN: nothing more
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.event(ev.Wd, ev.Mask, name)
		}
	}
	w.bumpAll()
}

func (w *Watch) event(wd int32, mask uint32, name []byte) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.bumpAll()
		return
	}
	dirs := w.dirs[wd]
	if mask&(selfEvents|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0 {
		// The directory moved or went: what its path and those below name may differ now.
		for _, dir := range slices.Clone(dirs) {
			for _, m := range w.under[dir] {
				w.bump(m)
			}
			w.forget(wd, dir)
		}
		return
	}
	if mask&entryEvents == 0 {
		return
	}
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if len(name) == 0 {
		return
	}
	for _, dir := range dirs {
		if m := w.marks[dir]; m != nil && m.entries {
			w.bump(m)
		}
		for _, m := range w.under[filepath.Join(dir, string(name))] {
			w.bump(m)
		}
	}
}

// pollMounts reports whether the mount table changed since it was last asked.
func (w *Watch) pollMounts() bool {
	fds := []unix.PollFd{{Fd: int32(w.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
}

// reset drops every watch and mark; callers' generations no longer match, and the sequence
// moves for UnchangedSince.
func (w *Watch) reset() {
	w.seq++
	for wd := range w.dirs {
		_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
	}
	w.wds, w.masks, w.dirs = map[string]int32{}, map[string]uint32{}, map[int32][]string{}
	w.marks, w.under = map[string]*mark{}, map[string][]*mark{}
}

// close ends a Watch that is not the process's (tests).
func (w *Watch) close() {
	if w != nil {
		unix.Close(w.fd)
		unix.Close(w.mounts)
	}
}
