//go:build darwin || windows

package authz

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Process ancestry where there is no /proc and no child subreaper (macOS, Windows). A server
// records its pid and start time in the state directory's servers/ (which confined commands
// cannot write); CheckOperator walks the caller's parent chain and refuses when an ancestor is
// a recorded, live server. On macOS a caller inside the terminal sandbox is refused whatever its
// ancestry (see sandboxedCaller). Weaker than Linux, and documented: a process that detaches
// from its parent (double fork) is re-parented to launchd or has no live parent, so with the
// sandbox off it can pass for the operator; and the peer of a loopback connection cannot be
// found without /proc, so operator actions over HTTP are refused (CheckPeer fails closed).

type serverRecord struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

func recordsDir(stateDir string) string { return filepath.Join(stateDir, "servers") }

// MarkServer records this process as a toolhost server in stateDir; release removes the record.
func MarkServer(stateDir string, log *slog.Logger) (func(), error) {
	if stateDir == "" {
		return func() {}, nil
	}
	start, ok := processStart(os.Getpid())
	if !ok {
		return nil, fmt.Errorf("mark server: cannot read this process's start time")
	}
	rec := serverRecord{PID: os.Getpid(), Start: start}
	b, _ := json.Marshal(rec)
	path := filepath.Join(recordsDir(stateDir), fmt.Sprintf("%d-%d", rec.PID, rec.Start))
	if err := os.MkdirAll(recordsDir(stateDir), 0o700); err != nil {
		return nil, fmt.Errorf("mark server: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("mark server: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// liveServers reads the records of stateDir, dropping those whose process is gone.
func liveServers(stateDir string) map[int]uint64 {
	out := map[int]uint64{}
	entries, err := os.ReadDir(recordsDir(stateDir))
	if err != nil {
		return out
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(recordsDir(stateDir), e.Name()))
		if err != nil {
			continue
		}
		var rec serverRecord
		if json.Unmarshal(b, &rec) != nil || rec.PID <= 0 {
			continue
		}
		if start, ok := processStart(rec.PID); ok && start == rec.Start {
			out[rec.PID] = rec.Start
		} else if !strings.HasPrefix(e.Name(), ".") {
			_ = os.Remove(filepath.Join(recordsDir(stateDir), e.Name())) // the server is gone
		}
	}
	return out
}

// LiveServers returns the pids of the toolhost servers recorded in stateDir (MarkServer) that
// still run, other than this process.
func LiveServers(stateDir string) ([]int, error) {
	var pids []int
	for pid := range liveServers(stateDir) {
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids, nil
}

// CheckProcess cannot tell a server without its state directory's records here.
func CheckProcess(pid int) error {
	return fmt.Errorf("%w: servers are known by their records on this system; use CheckOperator", ErrAncestryUnknown)
}

// CheckOperator returns nil when the calling process may act as the operator: it is not inside
// the terminal sandbox, and no process on its parent chain is a live server recorded in
// stateDir. Without stateDir it refuses: there is nothing to compare against.
func CheckOperator(stateDir string) error {
	if stateDir == "" {
		return fmt.Errorf("%w: no state directory to find servers in", ErrAncestryUnknown)
	}
	if err := sandboxedCaller(stateDir); err != nil {
		return err
	}
	servers := liveServers(stateDir)
	pid := os.Getpid()
	for hops := 0; hops < 1024; hops++ {
		ppid, ok := parentOf(pid)
		switch {
		case !ok && hops == 0:
			return fmt.Errorf("%w: this process's parent cannot be read", ErrAncestryUnknown)
		case !ok:
			return nil // the chain ends at a process that has exited: no live server above
		}
		if ppid <= 1 {
			return nil
		}
		if start, ok := servers[ppid]; ok {
			if s, ok := processStart(ppid); ok && s == start {
				return fmt.Errorf("%w (server pid %d)", ErrDescendant, ppid)
			}
		}
		pid = ppid
	}
	return fmt.Errorf("%w: the parent chain does not end", ErrAncestryUnknown)
}

// sandboxedCaller refuses a caller that cannot create a file in the state directory because a
// sandbox forbids it (every confined mode protects the state directory), while the directory
// itself would let it: that caller is a terminal command or one of its descendants.
func sandboxedCaller(stateDir string) error {
	f, err := os.CreateTemp(stateDir, ".operator-check-*")
	if err == nil {
		name := f.Name()
		f.Close()
		os.Remove(name)
		return nil
	}
	if errors.Is(err, os.ErrPermission) && sandboxDenial(stateDir) {
		return fmt.Errorf("%w (inside the terminal sandbox)", ErrDescendant)
	}
	return nil // a read-only state directory: the ancestry walk decides
}

// PeerPIDs cannot find socket owners without /proc.
func PeerPIDs(local, remote net.Addr) ([]int, error) {
	return nil, fmt.Errorf("%w: the owner of a loopback connection cannot be found on this system", ErrAncestryUnknown)
}

// CheckPeer refuses: the peer process cannot be found (use the CLI, or answer in the client).
func CheckPeer(local, remote net.Addr) error {
	_, err := PeerPIDs(local, remote)
	return err
}

// ScrubEnviron has nothing to scrub: other processes cannot read this one's environment here.
func ScrubEnviron(names []string) error { return nil }

// ProcessOrigin knows only the pid here.
func ProcessOrigin(channel string, pid int) Origin {
	return Origin{Channel: channel, PID: pid, UID: -1}
}

// CheckPeerOrigin refuses like CheckPeer.
func CheckPeerOrigin(channel string, local, remote net.Addr) (Origin, error) {
	return Origin{}, CheckPeer(local, remote)
}
