//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"toolhost/internal/sysfile"
)

var (
	abiOnce sync.Once
	abiVer  int
	abiErr  error
)

// ABI returns the kernel's Landlock ABI version, 0 with the reason when Landlock is missing
// (kernel too old, not enabled at boot, or blocked by a seccomp filter).
func ABI() (int, error) {
	abiOnce.Do(func() {
		v, err := ll.LandlockGetABIVersion()
		switch {
		case errors.Is(err, unix.ENOSYS):
			abiErr = errors.New("the kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)")
		case errors.Is(err, unix.EOPNOTSUPP):
			abiErr = errors.New("Landlock is built into the kernel but not enabled (add landlock to the lsm= boot parameter)")
		case err != nil:
			abiErr = fmt.Errorf("Landlock is unavailable: %w", err)
		case v < 1:
			abiErr = errors.New("Landlock is unavailable")
		default:
			abiVer = v
		}
	})
	return abiVer, abiErr
}

// cached is a confined starter for one policy and what its rules were built from, to tell
// when they are stale.
type cached struct {
	starter *starter
	policy  Policy // as Start was given it (its own copy): the hash finds it, this confirms it
	stamp   []stamp
	// watch says, per stamp, whether the kernel reports changes of its path (sysfile.Watch),
	// and gen its generation then; watched and gens list those paths for one question per
	// start. Only the other stamps are stat'ed again while the watched ones hold.
	watch   []watchState
	gen     []uint64
	watched []string
	gens    []uint64
	seq     uint64 // for sysfile.Watch.UnchangedSince: 0 when watched changed
	used    time.Time
}

type watchState uint8

const (
	notWatched watchState = iota // not yet, or not since the watch saw a change
	watched
	unwatchable // a symlink on the way, a remote file system: stat'ed each time
)

// stamp is a directory listed while planning, or a root of the policy: a change of a listed
// directory's inode or modification time means entries were added, removed or renamed there;
// a change of a root's inode means the path now leads elsewhere (a directory replaced, a
// symlink on the way moved). A root's own modification time does not matter (its entries are
// covered by the rule on it), and it moves all the time for /tmp.
type stamp struct {
	path    string
	ino     uint64
	mtime   int64
	ok      bool
	entries bool // a listed directory: its modification time counts
}

func stampOf(path string, entries bool) stamp {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return stamp{path: path, entries: entries}
	}
	s := stamp{path: path, ino: st.Ino, ok: true, entries: entries}
	if entries {
		s.mtime = st.Mtim.Nano()
	}
	return s
}

const cacheSize = 16

var cache struct {
	sync.Mutex
	m map[uint64]*cached // by Policy.hash
}

// fresh reports whether nothing c's rules depend on has changed. The watched paths answer all
// at once; the others, or all of them once the watch saw a change (which may be one that does
// not matter, such as a mount elsewhere), are stat'ed and compared with their stamps, and
// watched from then on where the kernel can.
func (c *cached) fresh() bool {
	w := sysfile.Watcher()
	if len(c.watched) > 0 {
		seq, ok := w.UnchangedSince(c.seq, c.watched, c.gens)
		c.seq = seq
		if !ok {
			for i, st := range c.watch {
				if st == watched {
					c.watch[i] = notWatched
				}
			}
			c.watched, c.gens = c.watched[:0], c.gens[:0]
		}
	}
	added := false
	for i, s := range c.stamp {
		switch c.watch[i] {
		case watched:
			continue
		case notWatched:
			// Watch first, then stat: a change after the stat moves the generation.
			gen, ok := w.Add(s.path, s.entries)
			if stampOf(s.path, s.entries) != s {
				return false
			}
			if ok {
				c.watch[i], c.gen[i], added = watched, gen, true
			} else {
				c.watch[i] = unwatchable
			}
		case unwatchable:
			if stampOf(s.path, s.entries) != s {
				return false
			}
		}
	}
	if added {
		c.watched, c.gens, c.seq = c.watched[:0], c.gens[:0], 0
		for i, st := range c.watch {
			if st == watched {
				c.watched, c.gens = append(c.watched, c.stamp[i].path), append(c.gens, c.gen[i])
			}
		}
	}
	return true
}

// starterFor returns the starter that starts commands under p, from the cache when nothing
// its rules depend on has changed (the listed directories and the roots: see stamp). A stale
// or evicted starter is stopped; one already handed out finishes the start it was given.
func starterFor(p *Policy, abi int) (*starter, error) {
	key := p.hash()
	cache.Lock()
	defer cache.Unlock()
	if cache.m == nil {
		cache.m = map[uint64]*cached{}
	}
	if c, ok := cache.m[key]; ok {
		// Another policy with the same hash (never seen in practice) takes the place.
		if c.policy.equal(p) && c.fresh() && !c.starter.stopped() {
			c.used = time.Now()
			return c.starter, nil
		}
		c.starter.stop()
		delete(cache.m, key)
	}
	raw := p
	p = p.normalized()
	pl, err := p.plan()
	if err != nil {
		return nil, err
	}
	fd, err := build(pl, handledFor(abi), scopesFor(abi))
	if err != nil {
		return nil, err
	}
	st, err := newStarter(fd)
	unix.Close(fd) // the starter's thread holds the domain now
	if err != nil {
		return nil, err
	}
	c := &cached{starter: st, policy: raw.clone(), used: time.Now()}
	// Each path once, and each watched from before it is stamped: a change after the stamp
	// moves its generation.
	w := sysfile.Watcher()
	add := func(path string, entries bool) {
		i := len(c.stamp)
		gen, ok := w.Add(path, entries)
		c.stamp = append(c.stamp, stampOf(path, entries))
		c.watch, c.gen = append(c.watch, unwatchable), append(c.gen, gen)
		if ok {
			c.watch[i] = watched
			c.watched, c.gens = append(c.watched, path), append(c.gens, gen)
		}
	}
	stamped := map[string]bool{}
	for _, d := range pl.dirs {
		stamped[d] = true
		add(d, true)
	}
	for _, roots := range [][]string{p.Writable, p.Temp, raw.Writable, raw.Temp} {
		for _, r := range roots {
			if !stamped[r] {
				stamped[r] = true
				add(r, false)
			}
		}
	}
	if len(cache.m) >= cacheSize {
		var oldest uint64
		first := true
		for k, v := range cache.m {
			if first || v.used.Before(cache.m[oldest].used) {
				oldest, first = k, false
			}
		}
		cache.m[oldest].starter.stop()
		delete(cache.m, oldest)
	}
	cache.m[key] = c
	return st, nil
}

// scopesFor returns the scopes a kernel of this Landlock ABI offers (ABI 6): a confined process
// can then neither signal nor connect to an abstract unix socket of a process outside its
// domain — the server that started it, or any other program the user runs.
func scopesFor(abi int) uint64 {
	if Scoped(abi) {
		return ll.ScopeSignal | ll.ScopeAbstractUnixSocket
	}
	return 0
}

// build creates the ruleset and adds the planned rules.
func build(pl *plan, handled, scoped uint64) (int, error) {
	attr := ll.RulesetAttr{HandledAccessFS: handled, Scoped: scoped}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, fmt.Errorf("sandbox: create Landlock ruleset: %w", err)
	}
	for _, r := range pl.rules {
		rights := r.rights & handled
		if rights == 0 {
			continue
		}
		// O_NOFOLLOW: a symlink swapped in since planning must not carry the rule to its target.
		flags := unix.O_PATH | unix.O_CLOEXEC
		if r.path != "/" {
			flags |= unix.O_NOFOLLOW
		}
		pfd, err := unix.Open(r.path, flags, 0)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOENT) {
			// /dev/ptmx and the like may be symlinks: follow those, nothing else moved.
			if isDevice(r.path) {
				pfd, err = unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
			}
			if err != nil {
				continue // gone since planning: nothing to grant
			}
		} else if err != nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			unix.Close(pfd)
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			unix.Close(pfd)
			continue
		case unix.S_IFDIR:
		default:
			rights &= rightsFile
		}
		if rights != 0 {
			err = ll.LandlockAddPathBeneathRule(fd, &ll.PathBeneathAttr{AllowedAccess: rights, ParentFd: pfd}, 0)
		}
		unix.Close(pfd)
		if err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("sandbox: add rule for %s: %w", r.path, err)
		}
	}
	return fd, nil
}

func isDevice(p string) bool {
	for _, d := range devices {
		if within(p, d) {
			return true
		}
	}
	return false
}

// Start starts cmd confined by p (plain cmd.Start when p is nil or its mode is off). It
// fails, starting nothing, when Landlock is unavailable or the ruleset cannot be built:
// a command never runs less confined than the policy says.
func Start(cmd *exec.Cmd, p *Policy) error {
	if p == nil || p.Mode == ModeOff {
		return cmd.Start()
	}
	abi, err := ABI()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for {
		st, err := starterFor(p, abi)
		if err != nil {
			return err
		}
		if err, ok := st.start(cmd); ok {
			return err
		}
		// Stopped between the lookup and the start (stale, evicted): ask again.
	}
}

// A starter is a goroutine locked to an OS thread of its own that it confined once, with a
// policy's ruleset, and that starts every command of that policy: a command forked from the
// thread inherits its Landlock domain, so a start costs a fork and exec, not the merge of
// thousands of rules into a new domain (landlock_restrict_self is linear in the rules: a HOME
// of 5,000 entries, each granted its own rule to keep ~/.ssh out, cost 1.5 ms a start).
//
// The runtime schedules nothing else on a locked thread and clones new threads from its
// template thread, never from a locked one, so the confinement stays on this thread; when
// the starter stops, its goroutine returns still locked and the runtime ends the thread.
type starter struct {
	mu     sync.Mutex
	reqs   chan startReq
	closed bool
}

type startReq struct {
	cmd  *exec.Cmd
	errc chan error
}

// newStarter confines a fresh thread with the ruleset fd and starts serving on it.
func newStarter(fd int) (*starter, error) {
	s := &starter{reqs: make(chan startReq)}
	ready := make(chan error, 1)
	go s.serve(fd, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return s, nil
}

// serve runs on a goroutine of its own: it locks itself to its OS thread, confines that
// thread, and starts commands from it until stopped. The main thread cannot end, so it is
// never the one confined: on it, the goroutine holds it and hands the work to another.
func (s *starter) serve(fd int, ready chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		go s.serve(fd, ready)
		runtime.UnlockOSThread()
		return
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		ready <- fmt.Errorf("sandbox: set no_new_privs: %w", err)
		return
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		ready <- fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
		return
	}
	if err := dropCapabilities(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for r := range s.reqs {
		r.errc <- r.cmd.Start()
	}
	// Return without unlocking: the runtime ends the confined thread.
}

// start starts cmd on the starter's thread; ok is false when the starter has stopped and
// started nothing.
func (s *starter) start(cmd *exec.Cmd) (err error, ok bool) {
	errc := make(chan error, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, false
	}
	s.reqs <- startReq{cmd, errc}
	s.mu.Unlock()
	return <-errc, true
}

// stop ends the starter once the start it is given (if any) has been handed over.
func (s *starter) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.reqs)
	}
}

func (s *starter) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// selfTest reports whether this thread can be confined at all (a seccomp filter or an
// unprivileged container may refuse it even when the ABI answers).
func selfTest() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			errc <- nil
			runtime.UnlockOSThread()
			return
		}
		attr := ll.RulesetAttr{HandledAccessFS: accessMakeBlock}
		fd, err := ll.LandlockCreateRuleset(&attr, 0)
		if err == nil {
			defer unix.Close(fd)
			if err = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err == nil {
				err = ll.LandlockRestrictSelf(fd, 0)
			}
		}
		errc <- err
	}()
	return <-errc
}

// droppedCaps are the capabilities a confined process never holds, even when toolhost runs
// as root (containers, CI): those that reach across process boundaries or around Landlock.
// Capabilities a root build needs inside its own files (chown, DAC override, setuid for a
// package manager's user) stay.
var droppedCaps = []struct {
	cap int
	why string
}{
	{unix.CAP_SYS_PTRACE, "read another process's memory and environment (/proc/PID/mem, environ)"},
	{unix.CAP_SYS_ADMIN, "mounts, namespaces and the rest of the administrator's powers"},
	{unix.CAP_DAC_READ_SEARCH, "open files by handle (open_by_handle_at), around path rules"},
	{unix.CAP_KILL, "signal processes of other users"},
	{unix.CAP_MKNOD, "make device nodes, such as the disk's, and read it raw"},
	{unix.CAP_SYS_RAWIO, "raw I/O on memory and ports"},
	{unix.CAP_SYS_MODULE, "load kernel modules"},
	{unix.CAP_BPF, "load BPF programs"},
	{unix.CAP_PERFMON, "observe other processes with perf"},
	{unix.CAP_SYSLOG, "read the kernel log and kernel addresses"},
	{unix.CAP_IPC_OWNER, "use other processes' System V IPC objects"},
	{unix.CAP_CHECKPOINT_RESTORE, "checkpoint and restore other processes"},
	{unix.CAP_SYS_BOOT, "reboot the machine"},
	{unix.CAP_SYS_TIME, "set the system clock"},
	{unix.CAP_MAC_ADMIN, "change the mandatory access control policy"},
	{unix.CAP_MAC_OVERRIDE, "override the mandatory access control policy"},
	{unix.CAP_AUDIT_CONTROL, "change the audit rules"},
	{unix.CAP_SYS_CHROOT, "chroot, a step in escaping a path policy"},
}

// dropCapabilities takes droppedCaps out of this thread's permitted, effective and
// inheritable sets, empties its ambient set, and takes them out of its bounding set where it
// may. Under no_new_privs an exec cannot gain a capability the thread does not hold, not even
// as root, so nothing started from this thread holds them; the bounding set is a second wall
// for a thread that may change it (CAP_SETPCAP).
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("sandbox: read capabilities: %w", err)
	}
	changed := false
	for _, c := range droppedCaps {
		i, bit := c.cap/32, uint32(1)<<(c.cap%32)
		if (data[i].Permitted|data[i].Effective|data[i].Inheritable)&bit != 0 {
			data[i].Permitted &^= bit
			data[i].Effective &^= bit
			data[i].Inheritable &^= bit
			changed = true
		}
	}
	if changed {
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return fmt.Errorf("%w: cannot drop capabilities for the command: %v", ErrUnavailable, err)
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for _, c := range droppedCaps {
		// EPERM (no CAP_SETPCAP) or EINVAL (unknown to this kernel): the sets above hold.
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c.cap), 0, 0, 0)
	}
	return nil
}

// Mechanism names what confines commands for a Landlock ABI version.
func Mechanism(abi int) string { return fmt.Sprintf("Landlock ABI %d", abi) }

func scoped(abi int) bool { return Scoped(abi) }
