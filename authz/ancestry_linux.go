//go:build linux

package authz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// procInfo is what the ancestry walk reads from /proc/PID/stat.
type procInfo struct {
	comm  string
	state byte
	ppid  int
	start uint64 // start time in clock ticks since boot: with the pid, names one process
}

func readProc(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	open := bytes.IndexByte(b, '(')
	closeAt := bytes.LastIndexByte(b, ')')
	if open < 0 || closeAt < open || closeAt+2 > len(b) {
		return procInfo{}, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[closeAt+2:]))
	if len(f) < 20 {
		return procInfo{}, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procInfo{}, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return procInfo{comm: string(b[open+1 : closeAt]), state: f[0][0], ppid: ppid, start: start}, nil
}

// procUsable checks that /proc is this system's procfs, seen from this process's own PID
// namespace, so that what it says about parents is true.
func procUsable() error {
	var fs unix.Statfs_t
	if err := unix.Statfs("/proc", &fs); err != nil || fs.Type != unix.PROC_SUPER_MAGIC {
		return fmt.Errorf("%w: /proc is not mounted (or is not procfs)", ErrAncestryUnknown)
	}
	self, err := os.Readlink("/proc/self")
	if err != nil || self != strconv.Itoa(os.Getpid()) {
		return fmt.Errorf("%w: /proc belongs to another PID namespace", ErrAncestryUnknown)
	}
	return nil
}

// walk checks pid and its ancestors for a toolhost server.
func walk(pid int) error {
	from := pid
	for range 4096 {
		if pid <= 0 {
			return nil
		}
		p, err := readProc(pid)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("%w: process %d is not visible in /proc (hidepid, or it exited)", ErrAncestryUnknown, pid)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrAncestryUnknown, err)
		}
		if p.comm == ServerComm {
			return fmt.Errorf("process %d %w: the toolhost server is pid %d", from, ErrDescendant, pid)
		}
		pid = p.ppid
	}
	return fmt.Errorf("%w: the parent chain does not end", ErrAncestryUnknown)
}

// CheckProcess returns nil when pid is neither a toolhost server nor descended from one.
func CheckProcess(pid int) error {
	if err := procUsable(); err != nil {
		return err
	}
	return walk(pid)
}

// CheckOperator returns nil when the calling process may act as the operator: none of its
// ancestors is a toolhost server, and every server recorded in stateDir is one it can see.
// stateDir may be empty (no record check).
func CheckOperator(stateDir string) error {
	if err := procUsable(); err != nil {
		return err
	}
	self, err := readProc(os.Getpid())
	if err != nil {
		return fmt.Errorf("%w: %v", ErrAncestryUnknown, err)
	}
	if err := walk(self.ppid); err != nil {
		return err
	}
	if stateDir == "" {
		return nil
	}
	return checkRecords(stateDir)
}

// serverRecord is what a marked server writes to the state directory.
type serverRecord struct {
	PID    int    `json:"pid"`
	Start  uint64 `json:"start"`
	Boot   string `json:"boot"`
	PIDNS  string `json:"pid_ns"`
	UserNS string `json:"user_ns"`
}

func recordsDir(stateDir string) string { return filepath.Join(stateDir, "servers") }

func namespaces() (pidns, userns string) {
	pidns, _ = os.Readlink("/proc/self/ns/pid")
	userns, _ = os.Readlink("/proc/self/ns/user")
	return pidns, userns
}

// checkRecords refuses when a server recorded in stateDir may be alive where this process
// cannot see it (another PID or user namespace: unshare), and removes records of servers
// that are gone.
func checkRecords(stateDir string) error {
	for _, dir := range []string{recordsDir(stateDir), fallbackRecordsDir(stateDir)} {
		if err := checkRecordsIn(dir); err != nil {
			return err
		}
	}
	return nil
}

// fallbackRecordsDir is where a server records itself when its state directory cannot be written
// (read-only, full): a per-user directory under the system temp directory, one subdirectory per
// state directory. Without it a server on a read-only state directory would be invisible to
// checkRecords once the directory became writable again.
func fallbackRecordsDir(stateDir string) string {
	sum := sha256.Sum256([]byte(stateDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("toolhost-servers-%d", os.Getuid()), hex.EncodeToString(sum[:8]))
}

// privateDir creates dir (and its parent) with mode 0700 and checks that both are directories of
// this user that nobody else can write: in a shared temp directory another user could have made
// them first.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		var st unix.Stat_t
		if err := unix.Lstat(d, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
			return fmt.Errorf("%s is not a private directory of this user", d)
		}
	}
	return nil
}

func checkRecordsIn(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no server ever ran with this state directory
	}
	pidns, userns := namespaces()
	boot := bootID()
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		var r serverRecord
		if err != nil || json.Unmarshal(b, &r) != nil {
			continue
		}
		if r.Boot != boot {
			_ = os.Remove(path) // from before a reboot
			continue
		}
		if r.PIDNS != pidns || r.UserNS != userns {
			return fmt.Errorf("%w: a toolhost server recorded in %s (pid %d in %s, %s) runs in a namespace this process (in %s, %s) cannot see into; run the command where that server runs, or remove the record if it is gone",
				ErrAncestryUnknown, path, r.PID, r.PIDNS, r.UserNS, pidns, userns)
		}
		if p, err := readProc(r.PID); err != nil || p.start != r.Start {
			_ = os.Remove(path) // the server is gone
		}
	}
	return nil
}

// LiveServers returns the pids of the toolhost servers recorded in stateDir (MarkServer) that
// still run, other than this process. A server recorded from a namespace this process cannot
// see into counts as running, since it may be.
func LiveServers(stateDir string) ([]int, error) {
	if err := procUsable(); err != nil {
		return nil, err
	}
	pidns, userns := namespaces()
	boot := bootID()
	var pids []int
	for _, dir := range []string{recordsDir(stateDir), fallbackRecordsDir(stateDir)} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			var r serverRecord
			if err != nil || json.Unmarshal(b, &r) != nil || r.Boot != boot || r.PID == os.Getpid() {
				continue
			}
			if r.PIDNS != pidns || r.UserNS != userns {
				pids = append(pids, r.PID)
				continue
			}
			if p, err := readProc(r.PID); err == nil && p.start == r.Start {
				pids = append(pids, r.PID)
			}
		}
	}
	return pids, nil
}

// reapEvery is how often orphaned descendants are looked for (a variable for tests).
var reapEvery = 5 * time.Second

var reaper struct {
	sync.Mutex
	stop chan struct{}
}

// MarkServer marks this process as a toolhost server (see the package notes on ancestry):
// child subreaper, not dumpable, named ServerComm, recorded in stateDir (when not empty),
// and reaping orphaned descendants that exit. release removes the record.
func MarkServer(stateDir string, log *slog.Logger) (release func(), err error) {
	if log == nil {
		log = slog.Default()
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("mark server: become a child subreaper: %w", err)
	}
	// Writing /proc/self/comm names the thread-group leader, from any thread. It must
	// come first: a non-dumpable process's /proc files belong to root.
	if err := os.WriteFile("/proc/self/comm", []byte(ServerComm), 0); err != nil {
		return nil, fmt.Errorf("mark server: set the process name: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("mark server: make the process non-dumpable: %w", err)
	}
	startReaper(log)
	release = func() {}
	if stateDir != "" {
		self, err := readProc(os.Getpid())
		if err != nil {
			return nil, fmt.Errorf("mark server: %w", err)
		}
		pidns, userns := namespaces()
		rec := serverRecord{PID: os.Getpid(), Start: self.start, Boot: bootID(), PIDNS: pidns, UserNS: userns}
		b, _ := json.Marshal(rec)
		name := fmt.Sprintf("%d-%d", rec.PID, rec.Start)
		path := filepath.Join(recordsDir(stateDir), name)
		err = os.MkdirAll(recordsDir(stateDir), 0o700)
		if err == nil {
			err = os.WriteFile(path, b, 0o600)
		}
		if err != nil {
			// A read-only or full state directory: record where checkRecords also looks, so
			// that the server stays visible to operator checks.
			fallback := fallbackRecordsDir(stateDir)
			path = filepath.Join(fallback, name)
			if ferr := privateDir(fallback); ferr != nil {
				return nil, fmt.Errorf("mark server: %w (and %s: %v)", err, fallback, ferr)
			}
			if ferr := os.WriteFile(path, b, 0o600); ferr != nil {
				return nil, fmt.Errorf("mark server: %w (and %s: %v)", err, fallback, ferr)
			}
			log.Warn("state directory not writable; server recorded in the temp directory", "err", err, "record", path)
		}
		release = func() { _ = os.Remove(path) }
	}
	return release, nil
}

// startReaper reaps descendants re-parented to this subreaper once they exit. A zombie is
// reaped only after it was seen twice, seconds apart: a child this process started itself
// is reaped at once by its own Wait, which must not find it gone.
func startReaper(log *slog.Logger) {
	reaper.Lock()
	defer reaper.Unlock()
	if reaper.stop != nil {
		return
	}
	reaper.stop = make(chan struct{})
	stop := reaper.stop
	go func() {
		seen := map[[2]uint64]int{}
		t := time.NewTicker(reapEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			next := map[[2]uint64]int{}
			for _, pid := range children() {
				p, err := readProc(pid)
				if err != nil || p.state != 'Z' {
					continue
				}
				k := [2]uint64{uint64(pid), p.start}
				next[k] = seen[k] + 1
				if next[k] >= 2 {
					var info unix.Siginfo
					if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil); err == nil {
						log.Debug("reaped an orphaned descendant", "pid", pid)
					}
					delete(next, k)
				}
			}
			seen = next
		}
	}()
}

// children lists this process's children (every thread's), from /proc.
func children() []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// PeerPIDs returns the processes holding the client end of a loopback TCP connection that
// this process accepted: local is the connection's local (server) address, remote the
// client's. It reads the socket's inode from /proc/net/tcp{,6} and finds its holders in
// /proc/*/fd.
func PeerPIDs(local, remote net.Addr) ([]int, error) {
	l, ok1 := local.(*net.TCPAddr)
	r, ok2 := remote.(*net.TCPAddr)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%w: not a TCP connection", ErrAncestryUnknown)
	}
	if !r.IP.IsLoopback() {
		return nil, fmt.Errorf("%w: the peer %s is not on this machine", ErrAncestryUnknown, r.IP)
	}
	if err := procUsable(); err != nil {
		return nil, err
	}
	inode := ""
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		ino, err := findSocket(file, r, l)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %v", ErrAncestryUnknown, err)
		}
		if ino != "" {
			inode = ino
			break
		}
	}
	if inode == "" || inode == "0" {
		return nil, fmt.Errorf("%w: the connection from %s is not in /proc/net/tcp", ErrAncestryUnknown, r)
	}
	want := "socket:[" + inode + "]"
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAncestryUnknown, err)
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + p.Name() + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue // another user's process, or gone
		}
		for _, fd := range fds {
			if l, err := os.Readlink(dir + "/" + fd.Name()); err == nil && l == want {
				pids = append(pids, pid)
				break
			}
		}
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("%w: no visible process holds the connection from %s (another user's, or it closed)", ErrAncestryUnknown, r)
	}
	return pids, nil
}

// findSocket returns the inode of the socket whose local address is src and remote is dst.
func findSocket(file string, src, dst *net.TCPAddr) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 {
			continue
		}
		la, ok1 := parseProcAddr(fields[1])
		ra, ok2 := parseProcAddr(fields[2])
		if !ok1 || !ok2 {
			continue
		}
		if la.Port == src.Port && ra.Port == dst.Port && la.IP.Equal(src.IP) && ra.IP.Equal(dst.IP) {
			return fields[9], nil
		}
	}
	return "", sc.Err()
}

// parseProcAddr decodes "0100007F:1F90": the address as 32-bit words in host byte order,
// then the port.
func parseProcAddr(s string) (*net.TCPAddr, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok || (len(h) != 8 && len(h) != 32) {
		return nil, false
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, false
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, true
}

// CheckPeer returns nil when the process on the other end of a loopback connection accepted
// by this process is neither a toolhost server nor descended from one.
func CheckPeer(local, remote net.Addr) error {
	pids, err := PeerPIDs(local, remote)
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if err := walk(pid); err != nil {
			return err
		}
	}
	return nil
}

// ScrubEnviron removes the values of secret variables from this process's original
// environment block, the memory /proc/PID/environ shows. Being non-dumpable keeps same-user
// processes out of it, but not root's (root reads it without CAP_SYS_PTRACE); a token passed
// in the environment must not stay there. The variables keep their values inside the
// process: each is first set again, which gives Go (and C) a copy of its own. names are
// variable names; a trailing * matches a prefix.
func ScrubEnviron(names []string) error {
	match := func(name string) bool {
		for _, n := range names {
			if p, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(name, p) || n == name {
				return true
			}
		}
		return false
	}
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return fmt.Errorf("scrub environment: %w", err)
	}
	closeAt := bytes.LastIndexByte(b, ')')
	if closeAt < 0 {
		return errors.New("scrub environment: malformed /proc/self/stat")
	}
	f := strings.Fields(string(b[closeAt+2:]))
	if len(f) < 49 {
		return errors.New("scrub environment: /proc/self/stat lacks env_start and env_end")
	}
	start, err1 := strconv.ParseInt(f[47], 10, 64)
	end, err2 := strconv.ParseInt(f[48], 10, 64)
	if err1 != nil || err2 != nil || end <= start || end-start > 16<<20 {
		return errors.New("scrub environment: no environment block")
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("scrub environment: %w", err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("scrub environment: %w", err)
	}
	off := 0
	for _, kv := range bytes.Split(block, []byte{0}) {
		name, value, ok := bytes.Cut(kv, []byte{'='})
		if ok && len(value) > 0 && match(string(name)) {
			if v, set := os.LookupEnv(string(name)); set {
				// Detach the process's own copy from the block before it is overwritten.
				if err := os.Setenv(string(name), strings.Clone(v)); err != nil {
					return fmt.Errorf("scrub environment: %w", err)
				}
			}
			at := start + int64(off+len(name)+1)
			if _, err := mem.WriteAt(make([]byte, len(value)), at); err != nil {
				return fmt.Errorf("scrub environment: %w", err)
			}
		}
		off += len(kv) + 1
	}
	return nil
}

// ProcessOrigin describes pid as the origin of a decision made through channel: its name and
// real user id from /proc, the user's name from the user database. What cannot be read stays
// unknown (PID is kept).
func ProcessOrigin(channel string, pid int) Origin {
	o := Origin{Channel: channel, PID: pid, UID: -1}
	if p, err := readProc(pid); err == nil {
		o.Command = p.comm
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					if uid, err := strconv.Atoi(f[0]); err == nil {
						o.UID = uid
					}
				}
				break
			}
		}
	}
	if o.UID >= 0 {
		if u, err := user.LookupId(strconv.Itoa(o.UID)); err == nil {
			o.User = u.Username
		}
	}
	return o
}

// CheckPeerOrigin is CheckPeer that also describes the peer process, for the grant its
// decision creates.
func CheckPeerOrigin(channel string, local, remote net.Addr) (Origin, error) {
	pids, err := PeerPIDs(local, remote)
	if err != nil {
		return Origin{}, err
	}
	for _, pid := range pids {
		if err := walk(pid); err != nil {
			return Origin{}, err
		}
	}
	return ProcessOrigin(channel, pids[0]), nil
}
