//go:build linux

package authz

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSwapDirForSymlinkRace swaps a directory for a symlink pointing outside while writers go
// through Guard.Open: the check may pass on the real directory, but the write through the root
// handle must never land outside.
func TestSwapDirForSymlinkRace(t *testing.T) {
	f := newFixture(t, nil)
	victim := filepath.Join(f.out, "victim")
	granted := filepath.Join(f.out, "granted")
	forbidden := filepath.Join(f.out, "forbidden")
	mkdirs(t, victim, forbidden, filepath.Join(f.wd, "d"), filepath.Join(granted, "sub"))
	f.grant(t, GrantSpec{Access: "file_operations:write", Path: granted, Recursive: true})

	iterations := 400
	if testing.Short() {
		iterations = 100
	}
	swaps := []swap{
		{filepath.Join(f.wd, "d"), victim, "../../../out/victim"},
		{filepath.Join(granted, "sub"), forbidden, "../forbidden"},
	}
	ctx := context.Background()
	var written, refused atomic.Int64
	// A loaded machine (or GOMAXPROCS=1) can schedule the writers only while the symlink is in
	// place, so that every write is refused and the race is never run: the swapper yields with the
	// real directory back, and the round repeats until some write has landed and some was refused.
	for round := 0; round < 10 && (written.Load() == 0 || refused.Load() == 0); round++ {
		raceRound(t, f.g, ctx, swaps, granted, iterations, round, &written, &refused)
	}
	if written.Load() == 0 || refused.Load() == 0 {
		t.Errorf("in 10 rounds %d writes landed and %d were refused; the race was not exercised", written.Load(), refused.Load())
	}
	t.Logf("%d writes landed inside their scope, %d were refused", written.Load(), refused.Load())
	for _, dir := range []string{victim, forbidden} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 0 {
			t.Errorf("%d writes landed outside in %s (first %s)", len(ents), dir, ents[0].Name())
		}
	}
}

type swap struct{ dir, abs, rel string }

// raceRound runs one round of TestSwapDirForSymlinkRace: per swap, one goroutine swaps the
// directory for a symlink and back while two write through the guard.
func raceRound(t *testing.T, g *Guard, ctx context.Context, swaps []swap, granted string, iterations, round int, written, refused *atomic.Int64) {
	var wg sync.WaitGroup
	for si, s := range swaps {
		wg.Go(func() {
			for i := range iterations {
				tmp := s.dir + ".tmp"
				if err := os.Rename(s.dir, tmp); err != nil {
					t.Error(err)
					return
				}
				target := s.abs
				if i%2 == 1 {
					target = s.rel
				}
				if err := os.Symlink(target, s.dir); err != nil {
					t.Error(err)
					return
				}
				if err := os.Remove(s.dir); err != nil {
					t.Error(err)
					return
				}
				if err := os.Rename(tmp, s.dir); err != nil {
					t.Error(err)
					return
				}
				runtime.Gosched()
			}
		})
		for w := range 2 {
			wg.Go(func() {
				for i := range iterations {
					name := fmt.Sprintf("f%d-%d-%d-%d", round, si, w, i)
					p := "d/" + name
					if si == 1 {
						p = filepath.Join(granted, "sub", name)
					}
					tg, err := g.Open(ctx, req(ClassWrite, "create_file", p))
					if err != nil {
						refused.Add(1) // denied while the symlink was in place: fine
						continue
					}
					if tg.Root.WriteFile(tg.Rel, []byte("x"), 0o644) == nil {
						written.Add(1)
					}
					tg.Close()
				}
			})
		}
	}
	wg.Wait()
}

// kernelPath asks the kernel where an existing path leads: open it with O_PATH and read the
// descriptor's link in /proc. ok is false when the path does not exist.
func kernelPath(p string, follow bool) (string, bool) {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(p, flags, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	s, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", false
	}
	return s, true
}

// FuzzGuard checks the guard's central invariant on a real tree of files and symlinks: whenever a
// request is allowed, the target (as the kernel resolves it, where it exists) is inside the scope
// that allowed it, and the canonical path agrees with the kernel.
func FuzzGuard(f *testing.F) {
	fx := newFixture(f, nil)
	fx.populate(f)
	grantDir := filepath.Join(fx.out, "dir")
	gr, err := fx.g.CreateGrant(context.Background(), GrantSpec{Access: "file_operations:write", Path: grantDir, Recursive: true, TTL: MaxGrantTTL, By: "fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"file.txt", "link_out_dir/f.txt", "chain1", "deep/ld/esc", "../proj_evil/x.txt",
		"/proc/self/root" + fx.wd + "/file.txt", "link_out_dir/../dir/new", ".git/hooks/x", "dangle", "loop1/x"} {
		for op := range byte(3) {
			f.Add(s, op)
		}
	}
	secretDirs := []string{fx.home + "/.ssh", fx.home + "/.aws"}
	f.Fuzz(func(t *testing.T, p string, op byte) {
		r := req(ClassRead, "read_file", p)
		switch op % 3 {
		case 1:
			r = req(ClassWrite, "create_file", p)
		case 2:
			r = Request{Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: p, Delete: true}
		}
		d, err := fx.g.Check(context.Background(), r)
		if err != nil {
			if _, ok := AsDenial(err); !ok {
				t.Fatalf("Check(%q) internal error: %v", p, err)
			}
			return
		}
		c := d.Canonical
		switch d.Kind {
		case AllowedInside:
			if !within(c, fx.wd) {
				t.Fatalf("Check(%q) = allowed inside, canonical %q is outside %q", p, c, fx.wd)
			}
		case AllowedOutsideRead:
			if r.Class != ClassRead || isEnvFile(c) {
				t.Fatalf("Check(%q) = allowed outside read for %+v", p, r)
			}
			for _, s := range secretDirs {
				if within(c, s) {
					t.Fatalf("Check(%q) = allowed outside read of secret %q", p, c)
				}
			}
		case AllowedByGrant:
			if d.GrantID != gr.ID || !within(c, grantDir) {
				t.Fatalf("Check(%q) = allowed by grant %s, canonical %q outside %q", p, d.GrantID, c, grantDir)
			}
		}
		if gitProtected(c) {
			t.Fatalf("Check(%q) = %s on protected %q", p, d.Kind, c)
		}
		// The kernel must agree where the path leads, when it exists.
		abs := p
		if !strings.HasPrefix(p, "/") {
			abs = fx.wd + "/" + p
		}
		if kp, ok := kernelPath(abs, !r.Delete); ok && kp != c {
			t.Fatalf("Check(%q) canonical = %q, kernel resolves %q", p, c, kp)
		}
	})
}

func gitProtected(c string) bool {
	return strings.Contains(c+"/", "/.git/hooks/") || strings.HasSuffix(c, "/.git/config")
}
