package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"toolhost/consolidated"
)

// MaxWorkspaces bounds the working directories clients' roots open in one server: each is a
// guard, a terminal engine and tools of its own, kept until the server stops.
const MaxWorkspaces = 16

// workspaces are the apps opened for clients' roots, by canonical working directory.
type workspaces struct {
	mu        sync.Mutex
	apps      map[string]*App
	listeners []string // the server's own addresses, refused by every workspace's network guard
}

// UseRoots lets clients choose their session's working directory with their first root, for
// when the user gave none (no --workdir, no workdir in the configuration). Each directory is
// a workspace of its own, opened once and shared by the sessions that name it: its own guard,
// terminals, tools and project file, the same state directory. Over HTTP (overHTTP) roots
// apply only when the user lists [http] allowed_roots, and a root outside them is refused;
// without the list every session keeps the server's working directory. Over stdio, where the
// client is the program the user had spawn toolhost, any directory is accepted unless
// allowed_roots is set.
func (a *App) UseRoots(overHTTP bool) {
	if overHTTP && len(a.Config.HTTP.AllowedRoots) == 0 {
		a.Logger.Info("clients' roots are not used: [http] allowed_roots is empty", "workdir", a.Workdir)
		return
	}
	a.Registry.UseRoots(func(ctx context.Context, uri string) (*consolidated.Registry, error) {
		ws, err := a.openRoot(ctx, uri, overHTTP)
		if err != nil {
			return nil, err
		}
		return ws.Registry, nil
	})
}

// openRoot checks a root and returns its workspace, opening it on first use.
func (a *App) openRoot(ctx context.Context, uri string, overHTTP bool) (*App, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) {
		return nil, fmt.Errorf("%q is not a file:// URI of an absolute path", uri)
	}
	dir, err := canonicalDir(u.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Path, err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", u.Path)
	}
	if err := a.rootAllowed(dir, overHTTP); err != nil {
		return nil, err
	}
	if dir == a.Workdir {
		return a, nil
	}
	a.roots.mu.Lock()
	defer a.roots.mu.Unlock()
	if ws := a.roots.apps[dir]; ws != nil {
		return ws, nil
	}
	if len(a.roots.apps) >= MaxWorkspaces {
		return nil, fmt.Errorf("%d workspaces are open already, the most one server keeps; restart it, or start one per project with --workdir", MaxWorkspaces)
	}
	cfg := *a.Config
	cfg.Workdir = dir
	// The root's project file applies to its workspace, on the same terms as at start.
	if err := cfg.MergeProject(dir); err != nil {
		return nil, err
	}
	ws, err := open(ctx, &cfg, a.Logger.With("workspace", dir), a)
	if err != nil {
		return nil, fmt.Errorf("open the workspace %s: %w", dir, err)
	}
	for _, addr := range a.roots.listeners {
		if _, err := ws.RegisterListener(addr); err != nil {
			ws.Close()
			return nil, err
		}
	}
	if a.roots.apps == nil {
		a.roots.apps = map[string]*App{}
	}
	a.roots.apps[dir] = ws
	a.onClose(ws.Close)
	return ws, nil
}

// rootAllowed checks dir against [http] allowed_roots (separator-aware containment of
// canonical paths).
func (a *App) rootAllowed(dir string, overHTTP bool) error {
	allowed := a.Config.HTTP.AllowedRoots
	if len(allowed) == 0 {
		if overHTTP {
			return errors.New("roots are refused on serve unless the user lists the directories they may name in [http] allowed_roots") // UseRoots does not get here
		}
		return nil
	}
	for _, r := range allowed {
		p, err := canonicalPath(r)
		if err != nil {
			continue
		}
		if dir == p || strings.HasPrefix(dir, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator)) {
			return nil
		}
	}
	return fmt.Errorf("%s is not under [http] allowed_roots (%s)", dir, strings.Join(allowed, ", "))
}
