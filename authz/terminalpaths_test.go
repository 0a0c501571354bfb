package authz

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"toolhost/store/storetest"
)

// terminalPaths is TerminalPaths for conversation "c" as two lists of paths.
func (f *fixture) terminalPaths(t *testing.T, g *Guard) (write, read []string) {
	t.Helper()
	w, r, err := g.TerminalPaths(context.Background(), "c", testRunner)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range w {
		write = append(write, p.Path)
	}
	for _, p := range r {
		read = append(read, p.Path)
	}
	return write, read
}

func (f *fixture) wantTerminalPaths(t *testing.T, g *Guard, step string, write, read []string) {
	t.Helper()
	// Twice: the first answer may be read from the store, the second from the cache.
	for range 2 {
		w, r := f.terminalPaths(t, g)
		if !slices.Equal(w, write) || !slices.Equal(r, read) {
			t.Fatalf("%s: TerminalPaths = %q, %q; want %q, %q", step, w, r, write, read)
		}
	}
}

// TestTerminalPathsSeeOtherHandles: a grant created or revoked through another Store on the
// same state directory (as another process does) reaches the very next TerminalPaths, and so
// does one of this guard's own.
func TestTerminalPathsSeeOtherHandles(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	other, err := New(ctx, Config{WorkDir: f.wd, StateDir: f.state, HomeDir: f.home, Store: storetest.OpenDir(t, f.state), Clock: f.clock.clock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	a, b := filepath.Join(f.out, "a"), filepath.Join(f.home, ".ssh")
	f.wantTerminalPaths(t, f.g, "no grant", nil, nil)

	wa, err := other.CreateGrant(ctx, GrantSpec{Conversation: "c", Access: "terminal_operations:write", Path: a, Recursive: true, By: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f.wantTerminalPaths(t, f.g, "write grant by the other handle", []string{a}, []string{a})
	rb, err := other.CreateGrant(ctx, GrantSpec{Conversation: "c", Access: "terminal_operations:read", Path: b, Recursive: true, By: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f.wantTerminalPaths(t, f.g, "read grant by the other handle", []string{a}, []string{b, a})
	if err := other.Revoke(ctx, wa.ID, "t"); err != nil {
		t.Fatal(err)
	}
	f.wantTerminalPaths(t, f.g, "write grant revoked by the other handle", nil, []string{b})
	// Another conversation's grant changes nothing for "c", and is read again all the same.
	if _, err := other.CreateGrant(ctx, GrantSpec{Conversation: "d", Access: "terminal_operations:write", Path: a, Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	f.wantTerminalPaths(t, f.g, "another conversation's grant", nil, []string{b})

	own, err := f.g.CreateGrant(ctx, GrantSpec{Conversation: "c", Access: "terminal_operations:write", Path: a, Recursive: true, By: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f.wantTerminalPaths(t, f.g, "own write grant", []string{a}, []string{b, a})
	f.wantTerminalPaths(t, other, "own write grant, seen by the other handle", []string{a}, []string{b, a})
	if err := f.g.Revoke(ctx, own.ID, "t"); err != nil {
		t.Fatal(err)
	}
	if err := f.g.Revoke(ctx, rb.ID, "t"); err != nil {
		t.Fatal(err)
	}
	f.wantTerminalPaths(t, f.g, "own revocations", nil, nil)
	f.wantTerminalPaths(t, other, "own revocations, seen by the other handle", nil, nil)
}

// TestTerminalPathsExpire: a kept answer ends at the first of its grants' expiry instants, on
// either clock, with nothing written to the store.
func TestTerminalPathsExpire(t *testing.T) {
	ctx := context.Background()
	a, b := "a", "b"
	tests := []struct {
		name string
		move func(c *fakeClock)
		want []string // write paths after the move
	}{
		{"just before the first expiry", func(c *fakeClock) { c.advance(time.Minute - time.Nanosecond) }, []string{a, b}},
		{"at the first expiry", func(c *fakeClock) { c.advance(time.Minute) }, []string{b}},
		{"past the first expiry", func(c *fakeClock) { c.advance(time.Minute + time.Second) }, []string{b}},
		{"past both", func(c *fakeClock) { c.advance(time.Hour) }, nil},
		{"boot clock at the first expiry, wall clock set back", func(c *fakeClock) { c.set(-time.Hour, time.Minute, "") }, []string{b}},
		{"wall clock at the first expiry, boot clock behind", func(c *fakeClock) { c.set(time.Minute, 0, "") }, []string{b}},
		{"reboot", func(c *fakeClock) { c.set(0, 0, "boot-2") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			want := map[string]string{a: filepath.Join(f.out, a), b: filepath.Join(f.out, b)}
			for _, g := range []struct {
				path string
				ttl  time.Duration
			}{{b, 10 * time.Minute}, {a, time.Minute}} {
				if _, err := f.g.CreateGrant(ctx, GrantSpec{Conversation: "c", Access: "terminal_operations:write", Path: want[g.path], Recursive: true, TTL: g.ttl, By: "t"}); err != nil {
					t.Fatal(err)
				}
			}
			f.wantTerminalPaths(t, f.g, "before", []string{want[a], want[b]}, []string{want[a], want[b]})
			tt.move(f.clock)
			var paths []string
			for _, p := range tt.want {
				paths = append(paths, want[p])
			}
			f.wantTerminalPaths(t, f.g, "after", paths, paths) // a write grant covers reads too
		})
	}
}

// TestTerminalPathsSeeOtherProcesses: a grant another toolhost process creates on the state
// directory, and its revocation, reach this process's very next TerminalPaths.
func TestTerminalPathsSeeOtherProcesses(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Clock = Clock{} }) // system clocks, shared with the child
	target := filepath.Join(f.out, "granted")
	f.wantTerminalPaths(t, f.g, "no grant", nil, nil)
	child := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTerminalGrant$")
		cmd.Env = append(os.Environ(), "AUTHZ_HELPER_STATE="+f.state, "AUTHZ_HELPER_WD="+f.wd, "AUTHZ_HELPER_ARGS="+strings.Join(args, " "))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper %q: %v\n%s", args, err, out)
		}
		_, id, ok := strings.Cut(string(out), "RESULT ")
		if !ok {
			t.Fatalf("helper %q printed no result: %s", args, out)
		}
		return strings.Fields(id)[0]
	}
	id := child("grant", target)
	f.wantTerminalPaths(t, f.g, "grant by another process", []string{target}, []string{target})
	child("revoke", id)
	f.wantTerminalPaths(t, f.g, "revoked by another process", nil, nil)
}

// TestHelperTerminalGrant is the child of TestTerminalPathsSeeOtherProcesses: "grant PATH"
// creates a terminal write grant for conversation "c" and prints its id, "revoke ID" revokes.
func TestHelperTerminalGrant(t *testing.T) {
	state := os.Getenv("AUTHZ_HELPER_STATE")
	if state == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	g, err := New(ctx, Config{WorkDir: os.Getenv("AUTHZ_HELPER_WD"), Store: storetest.OpenDir(t, state), HomeDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	args := strings.Fields(os.Getenv("AUTHZ_HELPER_ARGS"))
	switch args[0] {
	case "grant":
		gr, err := g.CreateGrant(ctx, GrantSpec{Conversation: "c", Access: "terminal_operations:write", Path: args[1], Recursive: true, By: "t"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("RESULT", gr.ID)
	case "revoke":
		if err := g.Revoke(ctx, args[1], "t"); err != nil {
			t.Fatal(err)
		}
		fmt.Println("RESULT done")
	}
}
