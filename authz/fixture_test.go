package authz

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"toolhost/store"
	"toolhost/store/storetest"
)

// fakeClock is an injected wall clock and boot clock that tests move by hand.
type fakeClock struct {
	mu     sync.Mutex
	wall   time.Time
	boot   time.Duration
	bootID string
}

func newFakeClock() *fakeClock {
	return &fakeClock{wall: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), boot: time.Hour, bootID: "boot-1"}
}

func (c *fakeClock) clock() Clock {
	return Clock{
		Now: func() time.Time {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.wall
		},
		Boot: func() (time.Duration, string) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.boot, c.bootID
		},
	}
}

// advance moves both clocks forward by d, as real time passing does.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wall = c.wall.Add(d)
	c.boot += d
}

// set moves the clocks independently (a wall clock jump, a reboot).
func (c *fakeClock) set(wallDelta, bootDelta time.Duration, bootID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wall = c.wall.Add(wallDelta)
	c.boot += bootDelta
	if bootID != "" {
		c.bootID = bootID
	}
}

// fixture is a real directory tree:
//
//	base/w/proj          the working directory (wd)
//	base/w/proj_evil     a sibling whose name has wd as a prefix
//	base/out             outside
//	base/home            HomeDir (with .ssh, .aws)
//	base/state           the store's state directory
type fixture struct {
	base, wd, out, home, state string
	st                         *store.Store
	clock                      *fakeClock
	g                          *Guard
	audit                      *memAudit
}

// memAudit records audit records in memory.
type memAudit struct {
	mu   sync.Mutex
	recs []AuditRecord
}

func (m *memAudit) AppendAudit(_ context.Context, v any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, v.(AuditRecord))
	return nil
}

func (m *memAudit) records() []AuditRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]AuditRecord(nil), m.recs...)
}

func mkdirs(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	mkdirs(t, filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// testAsk and testRunner name the MCP layer's tools as toolhost's wiring does (consolidated's
// AskCall and the terminal tool's Runner): authz itself knows no tool by name.
var (
	testAsk    = AskCall{Tool: "user_collaboration", Request: "request_authorization", Poll: "check_request"}
	testRunner = Runner{Tool: "terminal_operations", Operations: []string{"run_command", "create_session", "send_input"}}
)

func newFixture(t testing.TB, mutate func(*Config)) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		base:  base,
		wd:    filepath.Join(base, "w", "proj"),
		out:   filepath.Join(base, "out"),
		home:  filepath.Join(base, "home"),
		state: filepath.Join(base, "state"),
		clock: newFakeClock(),
		audit: &memAudit{},
	}
	mkdirs(t, f.wd, f.out, f.home)
	f.st = storetest.OpenDir(t, f.state)
	cfg := Config{
		WorkDir:    f.wd,
		ConfigFile: filepath.Join(f.wd, ".toolhost.toml"),
		StateDir:   f.state,
		TokenFile:  "~/.config/toolhost/token",
		HomeDir:    f.home,
		Store:      f.st,
		Audit:      f.audit,
		Clock:      f.clock.clock(),
		Ask:        testAsk,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	f.g, err = New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.g.Close() })
	return f
}

// populate builds the standard tree of files and links used by the decision table.
func (f *fixture) populate(t testing.TB) {
	t.Helper()
	writeFile(t, filepath.Join(f.wd, "file.txt"), "inside\n")
	writeFile(t, filepath.Join(f.wd, "sub", "a.txt"), "a\n")
	writeFile(t, filepath.Join(f.base, "w", "proj_evil", "x.txt"), "evil\n")
	writeFile(t, filepath.Join(f.out, "secret.txt"), "outside\n")
	writeFile(t, filepath.Join(f.out, "dir", "f.txt"), "outside dir\n")
	writeFile(t, filepath.Join(f.out, ".env"), "TOKEN=x\n")
	writeFile(t, filepath.Join(f.wd, ".env"), "LOCAL=1\n")
	writeFile(t, filepath.Join(f.home, ".ssh", "id_ed25519"), "key\n")
	writeFile(t, filepath.Join(f.home, ".aws", "credentials"), "aws\n")
	writeFile(t, filepath.Join(f.home, ".sshx", "notes"), "not secret\n")
	writeFile(t, filepath.Join(f.wd, ".git", "HEAD"), "ref: refs/heads/main\n")
	mkdirs(t, filepath.Join(f.wd, ".git", "objects"))

	symlink(t, filepath.Join(f.out, "secret.txt"), filepath.Join(f.wd, "link_out_file"))
	symlink(t, filepath.Join(f.out, "dir"), filepath.Join(f.wd, "link_out_dir"))
	symlink(t, "file.txt", filepath.Join(f.wd, "link_in_file"))
	// A three-link chain ending outside.
	symlink(t, "chain2", filepath.Join(f.wd, "chain1"))
	symlink(t, "sub/chain3", filepath.Join(f.wd, "chain2"))
	symlink(t, "../../../out/secret.txt", filepath.Join(f.wd, "sub", "chain3"))
	// A symlink whose parent is a symlink: deep/ld -> ../sub, and sub/esc resolves relative to the
	// real sub, not to deep/ld.
	symlink(t, "../sub", filepath.Join(f.wd, "deep", "ld"))
	symlink(t, "../../../out/secret.txt", filepath.Join(f.wd, "sub", "esc"))
	// A dangling symlink to a file outside that does not exist.
	symlink(t, filepath.Join(f.out, "created_by_dangle"), filepath.Join(f.wd, "dangle"))
	// Loops.
	symlink(t, "loop2", filepath.Join(f.wd, "loop1"))
	symlink(t, "loop1", filepath.Join(f.wd, "loop2"))
	symlink(t, "self", filepath.Join(f.wd, "self"))
}

func req(class Class, op, path string) Request {
	return Request{Conversation: "c1", Tool: "file_operations", Operation: op, Class: class, Path: path}
}

// namesOnly marks r as a read of names below a directory, not of contents.
func namesOnly(r Request) Request {
	r.NamesOnly = true
	return r
}
