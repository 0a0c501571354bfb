package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/sysfile"
)

// How every process learns that the console switched operations, cheaply.
//
// The console writes its switches (config.Switches) to the managed file from the serve
// process, but every toolhost process on the configuration reads them: each editor window
// runs a `toolhost stdio` of its own. Rather than watch the file from a goroutine, a process
// looks at it when a client asks it something (switchesMiddleware): one stat(2) per request,
// compared with the stat taken when it last read the file. The console replaces the file
// atomically (a new file renamed in), so its inode moves on every write, and its size and
// modification time usually do too. File times move at a coarse clock, so a stat taken while
// the time was within switchSlack of now settles nothing: until the file is older, each
// request reads it again (a few hundred bytes) and applies it only if the list differs. A
// changed list is applied as a switch made in this process: the registry's rule, every MCP
// server's tools (the go-sdk sends notifications/tools/list_changed) and the workspaces.

// switchSlack is how recent a file time may be before a stat cannot rule out a later write in
// the same clock tick; it covers file systems with two-second times.
const switchSlack = 2 * time.Second

// fileStamp is what one stat says of the managed file.
type fileStamp struct {
	exists  bool
	ino     uint64
	size    int64
	mtime   int64 // nanoseconds
	settled bool
}

// stampFile stats path. A missing file is settled (a later write creates it); a file that
// cannot be stat'ed is not, so it is read again.
func stampFile(path string) fileStamp {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{settled: true}
	}
	if err != nil {
		return fileStamp{}
	}
	s := fileStamp{exists: true, size: info.Size(), mtime: info.ModTime().UnixNano(), settled: time.Since(info.ModTime()) >= switchSlack}
	s.ino = sysfile.Ino(info)
	return s
}

// same reports whether two stamps describe the same file, settled or not.
func (s fileStamp) same(now fileStamp) bool {
	return s.exists == now.exists && s.ino == now.ino && s.size == now.size && s.mtime == now.mtime
}

// changed reports whether the file may have changed since s was taken; an unsettled s always
// may have.
func (s fileStamp) changed(now fileStamp) bool { return !s.settled || !s.same(now) }

// SwitchesFile is the console's managed include file of switched-off operations.
func (a *App) SwitchesFile() string { return config.SwitchesPath(a.Config.Path) }

// allow is the registry's rule: the active profile, then the console's switches.
func (a *App) allow(tool, op string, risk consolidated.Risk) bool {
	return allowed(a.Profile, a.switches)(tool, op, risk)
}

// allowed enables what profile enables and the switches leave on.
func allowed(profile config.Profile, switches config.Switches) consolidated.Allow {
	return func(tool, op string, risk consolidated.Risk) bool {
		return profile.Enabled(tool, op, string(risk)) && !switches.Off(tool, op)
	}
}

// loadSwitches reads the managed file at start, stamped before the read so that a write
// during it is seen at the next request.
func (a *App) loadSwitches() (err error) {
	a.switchStamp = stampFile(a.SwitchesFile())
	a.switches, err = config.LoadSwitches(a.SwitchesFile())
	return err
}

// RefreshSwitches applies the managed file if it changed since this process last read it,
// another process's console having written it. It costs one stat while nothing changed. A
// file that no longer parses is logged and leaves the switches as they were.
func (a *App) RefreshSwitches() {
	path := a.SwitchesFile()
	now := stampFile(path)
	a.switchMu.Lock()
	defer a.switchMu.Unlock()
	if !a.switchStamp.changed(now) {
		return
	}
	next, err := config.LoadSwitches(path)
	if err != nil {
		if !a.switchStamp.same(now) {
			a.Logger.Warn("console switches not applied; the earlier ones stay", "file", path, "err", err)
		}
		a.switchStamp = now
		return
	}
	a.switchStamp = now
	if sameSwitches(a.switches, next) {
		return
	}
	a.Logger.Info("console switches changed", "file", path, "disable", strings.Join(next.Disable, ","))
	a.applySwitches(next)
}

// sameSwitches reports whether two lists switch the same names off.
func sameSwitches(a, b config.Switches) bool {
	norm := func(s config.Switches) []string { return slices.Compact(slices.Sorted(slices.Values(s.Disable))) }
	return slices.Equal(norm(a), norm(b))
}

// applySwitches makes next the switches of this process: the registry's rule, every server
// built by Server (connected clients get notifications/tools/list_changed) and the workspaces
// clients' roots opened, which dispatch their sessions' calls. The caller holds switchMu.
func (a *App) applySwitches(next config.Switches) {
	a.switches = next
	if a.Registry.SetAllow(a.allow) {
		for _, s := range a.servers {
			a.Registry.Sync(s)
		}
	}
	a.roots.mu.Lock()
	defer a.roots.mu.Unlock()
	for _, ws := range a.roots.apps {
		ws.switchMu.Lock()
		ws.switches = next
		ws.Registry.SetAllow(ws.allow)
		ws.switchMu.Unlock()
	}
}

// switchesMiddleware looks at the managed file before each request a client makes, so a
// switch made in another process's console holds from this process's next tools/list or
// call, with notifications/tools/list_changed to its clients.
func (a *App) switchesMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !strings.HasPrefix(method, "notifications/") {
				a.RefreshSwitches()
			}
			return next(ctx, method, req)
		}
	}
}

// DefaultListTTL is how long a client on 2026-07-28 may cache the lists ([lists] ttl unset):
// long, since the tool list is byte-identical across runs and a switch is announced at once.
const DefaultListTTL = 24 * time.Hour

// ListTTL is the ttlMs of tools/list, prompts/list and resources/templates/list: [lists] ttl
// (default DefaultListTTL), and 0 while the console's switch file is being edited (written
// within switchSlack: another write may follow), so that no client caches a list that is
// about to change. The request that asks has already looked at the file (switchesMiddleware).
func (a *App) ListTTL() time.Duration {
	ttl := DefaultListTTL
	if _, set := a.Config.Origins["lists.ttl"]; set || a.Config.Lists.TTL.Duration > 0 {
		ttl = a.Config.Lists.TTL.Duration
	}
	a.switchMu.Lock()
	editing := !a.switchStamp.settled
	a.switchMu.Unlock()
	if editing {
		return 0
	}
	return ttl
}
