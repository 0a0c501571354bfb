//go:build !linux && !darwin && !windows

package authz

import (
	"fmt"
	"log/slog"
	"net"
)

// MarkServer has nothing to mark without /proc: the ancestry checks fail closed instead.
func MarkServer(stateDir string, log *slog.Logger) (func(), error) { return func() {}, nil }

// LiveServers finds none: servers record themselves only where /proc shows them.
func LiveServers(stateDir string) ([]int, error) { return nil, nil }

// CheckProcess cannot see process ancestry on this system and refuses.
func CheckProcess(pid int) error {
	return fmt.Errorf("%w: no /proc on this system", ErrAncestryUnknown)
}

// CheckOperator cannot see process ancestry on this system and refuses.
func CheckOperator(stateDir string) error {
	return fmt.Errorf("%w: no /proc on this system", ErrAncestryUnknown)
}

// PeerPIDs cannot find socket owners on this system.
func PeerPIDs(local, remote net.Addr) ([]int, error) {
	return nil, fmt.Errorf("%w: no /proc on this system", ErrAncestryUnknown)
}

// CheckPeer cannot find socket owners on this system and refuses.
func CheckPeer(local, remote net.Addr) error {
	return fmt.Errorf("%w: no /proc on this system", ErrAncestryUnknown)
}

// ScrubEnviron has nothing to scrub where /proc does not show the environment.
func ScrubEnviron(names []string) error { return nil }

// ProcessOrigin knows only the pid here.
func ProcessOrigin(channel string, pid int) Origin {
	return Origin{Channel: channel, PID: pid, UID: -1}
}

// CheckPeerOrigin cannot find socket owners on this system and refuses.
func CheckPeerOrigin(channel string, local, remote net.Addr) (Origin, error) {
	return Origin{}, fmt.Errorf("%w: no /proc on this system", ErrAncestryUnknown)
}
