package app

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"toolhost/internal/edit"
	"toolhost/internal/owner"
)

// consoleFile, in the state directory, names the console a running `toolhost serve` offers, so
// that other toolhost processes on the same state (the stdio servers an editor starts) can send
// their user there to answer approval requests.
const consoleFile = "console.json"

// consoleAnnouncement is the content of consoleFile.
type consoleAnnouncement struct {
	URL   string `json:"url"`
	Owner string `json:"owner"`
}

// AnnounceConsole writes url (http://HOST:PORT/) to the state directory as this process's
// console; the function returned takes it back if it is still this process's. A failure is
// logged: only the text of approval requests in other processes depends on it.
func (a *App) AnnounceConsole(url string) (withdraw func()) {
	path := filepath.Join(a.StateDir, consoleFile)
	self := owner.Self().String()
	data, _ := json.Marshal(consoleAnnouncement{URL: url, Owner: self})
	root, err := os.OpenRoot(a.StateDir)
	if err == nil {
		err = edit.WriteAtomic(root, consoleFile, data, 0o600)
		root.Close()
	}
	if err != nil {
		a.Logger.Warn("console: cannot tell other toolhost processes where the console is", "path", path, "err", err)
		return func() {}
	}
	return func() {
		if ann, ok := readConsoleFile(path); ok && ann.Owner == self {
			_ = os.Remove(path)
		}
	}
}

func readConsoleFile(path string) (consoleAnnouncement, bool) {
	var ann consoleAnnouncement
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &ann) != nil || !strings.HasPrefix(ann.URL, "http://") {
		return ann, false
	}
	return ann, true
}

// consoleElsewhere returns a lookup of the console announced in stateDir by a process that is
// still running. Answers are kept for a second: a model's burst of refused calls reads the
// file once.
func consoleElsewhere(stateDir string) func() string {
	path := filepath.Join(stateDir, consoleFile)
	var (
		mu      sync.Mutex
		checked time.Time
		url     string
	)
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(checked) < time.Second {
			return url
		}
		checked, url = time.Now(), ""
		ann, ok := readConsoleFile(path)
		if !ok {
			return ""
		}
		if id, ok := owner.Parse(ann.Owner); ok && owner.Alive(id) {
			url = ann.URL
		}
		return url
	}
}

// listenerElsewhere is authz.NetConfig.Elsewhere: the host:port of the `toolhost serve` that
// announced its console on this state directory, whose listener also serves /mcp and the
// operator API. A stdio server's requests and pages must not reach it, even where the user
// allowed loopback.
func (a *App) listenerElsewhere() func() string {
	if a.Env.Approvals == nil || a.Env.Approvals.Elsewhere == nil {
		return nil
	}
	at := a.Env.Approvals.Elsewhere
	return func() string {
		u, err := url.Parse(at())
		if err != nil {
			return ""
		}
		return u.Host
	}
}
