package store

import (
	"os"
	"time"
)

// How a reader learns that the database changed, cheaply.
//
// Several processes write one file, so a notification inside this process is not enough, and
// asking the database costs an open, a lock and an mmap (handle.go closes idle handles within
// milliseconds) while it competes for the lock with the processes that do the work. A
// Version costs one stat(2): this process's count of committed writes, and the file's inode,
// size and modification time, which every commit of any process moves (bbolt writes its pages
// and meta page with pwrite).
//
// File times move at the kernel's coarse clock, truncated to the file system's granularity
// (a few milliseconds on ext4 and tmpfs, a second or two on older file systems), so a second
// commit in the same tick as the first leaves the time where it was. A Version taken while
// the file's time was that recent is therefore not settled: Changed says yes to it until a
// Version is taken at least versionSlack after the file's last change.

// versionSlack is how recent a file time may be before a Version cannot rule out a later
// change in the same clock tick; it covers file systems with two-second times.
const versionSlack = 2 * time.Second

// Version identifies what a reader saw of the database, as far as a stat can tell.
type Version struct {
	local   uint64
	ino     uint64
	size    int64
	mtime   int64 // nanoseconds
	settled bool
}

// Version returns the database's version now: one stat of the file and an atomic load.
func (s *Store) Version() Version {
	v := Version{local: s.commits.Load()}
	info, err := os.Stat(s.path)
	if err != nil {
		return v // unsettled: a reader that cannot stat keeps reading
	}
	v.size, v.mtime = info.Size(), info.ModTime().UnixNano()
	v.ino = fileIno(info)
	v.settled = time.Since(info.ModTime()) >= versionSlack
	return v
}

// Changed reports whether the database may have changed between v and now (a later
// Version). It errs towards yes: an unsettled v, or a zero one, always changed.
func (v Version) Changed(now Version) bool {
	return !v.settled || v.local != now.local || v.ino != now.ino || v.size != now.size || v.mtime != now.mtime
}

// Commits returns a channel that is closed when this process next commits a write
// transaction: a reader in this process wakes at once instead of at its next look at the
// Version.
func (s *Store) Commits() <-chan struct{} {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if s.commitCh == nil {
		s.commitCh = make(chan struct{})
	}
	return s.commitCh
}

// committed counts a committed write, wakes the readers waiting on Commits and returns the
// write's number.
func (s *Store) committed() uint64 {
	n := s.commits.Add(1)
	s.commitMu.Lock()
	if s.commitCh != nil {
		close(s.commitCh)
		s.commitCh = nil
	}
	s.commitMu.Unlock()
	return n
}
