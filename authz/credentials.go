package authz

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"toolhost/internal/owner"
	"toolhost/store"
)

// Credential files are the files that hold a toolhost credential outside what every process on
// the state directory knows of: an HTTP token file (`serve --token-file`), a configuration file
// holding a token. Each server announces its own in the store at start; every guard on the
// state directory protects all of them (refused to every tool, unreadable to every process
// toolhost starts), so a `toolhost stdio` cannot read the token of a `serve` it shares the
// state with, whichever configuration named the file.

// credentialBucket holds one key per announced file: its canonical path.
var credentialBucket = store.Path{"credential_files"}

// maxCredentialFiles bounds the announcements kept; past it, files that no longer exist are
// forgotten first.
const maxCredentialFiles = 256

// credentialNote is what an announcement records besides the path.
type credentialNote struct {
	Owner string    `json:"owner"`
	At    time.Time `json:"at"`
}

// AnnounceCredentials records paths as credential files in st (empty paths are skipped). Each is
// stored canonical: symlinks in its existing part resolved.
func AnnounceCredentials(ctx context.Context, st *store.Store, paths ...string) error {
	if st == nil {
		return nil
	}
	var canon []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		c, err := canonicalFile(p)
		if err != nil {
			return err
		}
		canon = append(canon, c)
	}
	if len(canon) == 0 {
		return nil
	}
	note := credentialNote{Owner: owner.Self().String(), At: time.Now().UTC()}
	return st.Update(ctx, func(tx *store.Tx) error {
		for _, c := range canon {
			if err := tx.PutJSON(credentialBucket, c, note); err != nil {
				return err
			}
		}
		var all []string
		if err := tx.ForEach(credentialBucket, func(k string, _ []byte) error {
			all = append(all, k)
			return nil
		}); err != nil {
			return err
		}
		for _, k := range all {
			if len(all) <= maxCredentialFiles {
				break
			}
			if _, err := os.Lstat(k); err != nil && !slices.Contains(canon, k) {
				if err := tx.Delete(credentialBucket, k); err != nil {
					return err
				}
				all = slices.DeleteFunc(all, func(s string) bool { return s == k })
			}
		}
		return nil
	})
}

// canonicalFile resolves the existing part of p (absolute, or made so).
func canonicalFile(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("credential file %s: %w", p, err)
	}
	if abs, err = guardPath(abs); err != nil {
		return "", fmt.Errorf("credential file %s: %w", p, err)
	}
	if res, err := resolve("", abs, true); err == nil {
		return res.path, nil
	}
	return path.Clean(abs), nil
}

// credentialCache is a guard's view of the announcements: re-read when the bucket changed, and
// asked at most every credentialCheckEvery, since a check may ask for every entry of a walk.
type credentialCache struct {
	mu      sync.Mutex
	checked time.Time
	stamp   store.Stamp
	files   []string
	// rules is the guard's rules with the files protected, for the files read last.
	rules atomic.Pointer[pathRules]
}

// credentialCheckEvery is how stale the view may be: an announcement reaches other processes'
// guards this long after it is made, at most.
const credentialCheckEvery = 200 * time.Millisecond

// CredentialFiles are the credential files every process on the state directory announced.
func (g *Guard) CredentialFiles() []string {
	g.refreshCredentials()
	g.creds.mu.Lock()
	defer g.creds.mu.Unlock()
	return slices.Clone(g.creds.files)
}

// refreshCredentials re-reads the announcements when they may have changed and rebuilds the
// rules with them.
func (g *Guard) refreshCredentials() {
	if g.store == nil {
		return
	}
	c := &g.creds
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.rules.Load() != nil && now.Sub(c.checked) < credentialCheckEvery {
		return
	}
	c.checked = now
	stamp := g.store.Stamp(credentialBucket)
	if c.rules.Load() != nil && !c.stamp.Changed(stamp) {
		return
	}
	var files []string
	err := g.store.View(context.Background(), func(tx *store.Tx) error {
		return tx.ForEach(credentialBucket, func(k string, _ []byte) error {
			files = append(files, k)
			return nil
		})
	})
	if err != nil {
		// Without the store, the files this process knows are still protected by its own
		// configuration; keep what was read before.
		g.log.Warn("authz: announced credential files unreadable", "err", err)
		if c.rules.Load() == nil {
			c.rules.Store(g.staticRules())
		}
		return
	}
	c.stamp, c.files = stamp, files
	c.rules.Store(g.staticRules().withProtected(files, g.workdir))
}

// rules are the guard's protected and secret paths, with every announced credential file
// protected.
func (g *Guard) rules() *pathRules {
	if g.store == nil {
		return g.staticRules()
	}
	g.refreshCredentials()
	return g.creds.rules.Load()
}
