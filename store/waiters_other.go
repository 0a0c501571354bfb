//go:build !linux

package store

// watchLocked has no file-event source here: s.watch stays nil, and a kept handle is let go at
// this process's next transaction or after idleClose, as before the watch existed.
func (s *Store) watchLocked() {}
