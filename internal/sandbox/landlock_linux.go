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

// cached is a built ruleset and what it was built from, to tell when it is stale.
type cached struct {
	fd    int
	stamp []stamp
	used  time.Time
}

// stamp is a directory listed while planning (or a root that did not exist then): a change
// of its inode or modification time means entries were added, removed or renamed there.
type stamp struct {
	path  string
	ino   uint64
	mtime unix.Timespec
	ok    bool
}

func stampOf(path string) stamp {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return stamp{path: path}
	}
	return stamp{path: path, ino: st.Ino, mtime: st.Mtim, ok: true}
}

const cacheSize = 16

var cache struct {
	sync.Mutex
	m map[string]*cached
}

// ruleset returns a Landlock ruleset for p, from the cache when nothing it depends on has
// changed (the listed directories and the roots, by inode and modification time, so a
// symlink moved under a root is noticed too). The descriptor returned is the caller's own
// duplicate, to close when done: the cache may close its copy at any time (a stale or
// evicted entry), and a number closed under a starting command could be reused by another
// descriptor, even another ruleset, before landlock_restrict_self reads it.
func ruleset(p *Policy, abi int) (int, error) {
	key := p.key()
	cache.Lock()
	defer cache.Unlock()
	if cache.m == nil {
		cache.m = map[string]*cached{}
	}
	if c, ok := cache.m[key]; ok {
		fresh := true
		for _, s := range c.stamp {
			if stampOf(s.path) != s {
				fresh = false
				break
			}
		}
		if fresh {
			c.used = time.Now()
			return dupFD(c.fd)
		}
		unix.Close(c.fd)
		delete(cache.m, key)
	}
	raw := p
	p = p.normalized()
	pl, err := p.plan()
	if err != nil {
		return -1, err
	}
	fd, err := build(pl, handledFor(abi), scopesFor(abi))
	if err != nil {
		return -1, err
	}
	c := &cached{fd: fd, used: time.Now()}
	for _, d := range pl.dirs {
		c.stamp = append(c.stamp, stampOf(d))
	}
	for _, roots := range [][]string{p.Writable, p.Temp, raw.Writable, raw.Temp} {
		for _, r := range roots {
			c.stamp = append(c.stamp, stampOf(r))
		}
	}
	if len(cache.m) >= cacheSize {
		var oldest string
		for k, v := range cache.m {
			if oldest == "" || v.used.Before(cache.m[oldest].used) {
				oldest = k
			}
		}
		unix.Close(cache.m[oldest].fd)
		delete(cache.m, oldest)
	}
	cache.m[key] = c
	return dupFD(fd)
}

func dupFD(fd int) (int, error) {
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("sandbox: duplicate the Landlock ruleset: %w", err)
	}
	return d, nil
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
	fd, err := ruleset(p, abi)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	errc := make(chan error, 1)
	go startRestricted(fd, cmd, errc)
	return <-errc
}

// startRestricted runs on a goroutine of its own: it locks itself to its OS thread, confines
// that thread and starts cmd from it, and returns without unlocking, so the runtime ends the
// thread instead of reusing it. The main thread cannot end, so it is never the one confined:
// on it, the goroutine holds it and hands the work to another goroutine.
func startRestricted(fd int, cmd *exec.Cmd, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		inner := make(chan error, 1)
		go startRestricted(fd, cmd, inner)
		errc <- <-inner
		runtime.UnlockOSThread()
		return
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		errc <- fmt.Errorf("sandbox: set no_new_privs: %w", err)
		return
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		errc <- fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
		return
	}
	if err := dropCapabilities(); err != nil {
		errc <- err
		return
	}
	errc <- cmd.Start()
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
