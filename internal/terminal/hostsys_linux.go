//go:build linux

package terminal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"toolhost/authz"
)

// hostSupported: the terminal host runs here (unix sockets with peer credentials, /proc for
// the ancestry of a peer).
const hostSupported = true

// ErrHostUnsupported: no terminal host on this platform.
var ErrHostUnsupported = errors.New("the terminal host is not supported on this platform")

// hostID names this binary: a server only talks to a host built from the same file, so an
// upgrade starts a host of its own instead of speaking to an older one.
func hostID() (string, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return "", fmt.Errorf("terminal host: identify this binary: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d/%d/%d/%d.%d/%d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, hostProto)
	return hex.EncodeToString(h.Sum(nil)[:6]), nil
}

// lockHost takes the host's lock file, which it holds for as long as it runs; ErrHostRunning
// when another process holds it.
func lockHost(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("terminal host lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrHostRunning
		}
		return nil, fmt.Errorf("terminal host lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// maxSockPath is what a sockaddr_un holds, less its terminating NUL.
const maxSockPath = 107

// shortPath calls f with a name for path that fits a unix socket address: path itself, or,
// when it is too long (a deep state directory), the directory through /proc/self/fd.
func shortPath(path string, f func(addr string) error) error {
	if len(path) <= maxSockPath {
		return f(path)
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return f("/proc/self/fd/" + strconv.Itoa(fd) + "/" + filepath.Base(path))
}

// listenHost listens on the socket path, replacing a stale one (the caller holds the lock).
func listenHost(path string) (net.Listener, error) {
	_ = os.Remove(path)
	var ln net.Listener
	err := shortPath(path, func(addr string) error {
		var err error
		ln, err = net.Listen("unix", addr)
		return err
	})
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// dialHost connects to the host's socket.
func dialHost(path string) (net.Conn, error) {
	var c net.Conn
	err := shortPath(path, func(addr string) error {
		var err error
		c, err = net.Dial("unix", addr)
		return err
	})
	return c, err
}

// checkPeer decides whether the process on the other end of conn may use the host: the same
// user, and neither it nor any of its ancestors is a toolhost server (a model's terminal or
// command, however it detached, descends from this host or from a server: the confined
// process could reach the socket, since Landlock does not restrict connecting to it). The
// key the peer must then show (hello) proves it can read the state directory, which the
// sandbox hides from commands.
func checkPeer(conn net.Conn) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("peer credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("peer pid %d runs as uid %d, the host as %d", cred.Pid, cred.Uid, os.Geteuid())
	}
	ppid, err := parentOf(int(cred.Pid))
	if err != nil {
		return fmt.Errorf("peer pid %d: %w", cred.Pid, err)
	}
	if err := authz.CheckProcess(ppid); err != nil {
		return fmt.Errorf("peer pid %d: %w", cred.Pid, err)
	}
	return nil
}

// parentOf reads the parent pid from /proc/PID/stat.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, errors.New("malformed /proc stat")
	}
	return strconv.Atoi(f[1])
}

// hostSysProcAttr starts the host in a session of its own: no terminal, no process group of
// the server's, so a signal to the server's group (a client stopping it) does not reach it.
func hostSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
