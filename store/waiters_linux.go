package store

import (
	"log/slog"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// watchLocked starts watching the waiters' file with inotify, unless a watch runs already, so a
// kept handle is let go as soon as another process announces that it waits (announce opens the
// file, and opens and closes it again once its lock is held), not only at this process's next
// transaction. Without the watch (inotify unavailable or out of instances, no waiters' file)
// s.watch stays nil and handles close after idleClose as before. Called with s.mu held; the
// watch ends with the kept handle (unwatchLocked).
func (s *Store) watchLocked() {
	if s.watch != nil || s.wait == nil {
		return
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		slog.Debug("state store: no inotify, idle database handles close at once", "err", err)
		return
	}
	if _, err := unix.InotifyAddWatch(fd, filepath.Join(s.dir, waitFileName), unix.IN_OPEN|unix.IN_CLOSE); err != nil {
		unix.Close(fd)
		slog.Debug("state store: cannot watch the waiters' file, idle database handles close at once", "err", err)
		return
	}
	// Non-blocking, so the runtime's poller waits for events and Close ends the Read below.
	f := os.NewFile(uintptr(fd), "inotify "+waitFileName)
	s.watch = f
	go func() {
		// Events are only a cue to look at the lock: their content does not matter, and a queue
		// overflow is one more event.
		var buf [4096]byte
		for {
			if _, err := f.Read(buf[:]); err != nil {
				return
			}
			s.yieldToWaiters()
		}
	}()
}
