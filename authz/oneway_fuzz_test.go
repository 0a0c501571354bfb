package authz

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"toolhost/internal/fsread"
)

// oneWayTree fills the fixture with files whose content is their own canonical path, plus
// names that look like separators, so a file read through a Target proves which file was opened.
func oneWayTree(t testing.TB, f *fixture) {
	t.Helper()
	f.populate(t)
	for _, p := range []string{
		filepath.Join(f.wd, `a\b`),
		filepath.Join(f.wd, "a", "b"),
		filepath.Join(f.wd, `sub\a.txt`),
		filepath.Join(f.wd, "café"),
		filepath.Join(f.wd, "cafe\u0301"),
		filepath.Join(f.wd, "~", "x"),
		filepath.Join(f.home, "x"),
		filepath.Join(f.out, `dir\f.txt`),
		filepath.Join(f.home, `.ssh\id_ed25519`),
	} {
		writeFile(t, p, p)
	}
	// Rewrite the populated files so that every regular file names itself.
	filepath.WalkDir(f.base, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(p, f.state) {
			os.WriteFile(p, []byte(p), 0o644)
		}
		return nil
	})
}

// FuzzOpenedIsDecided asserts the one-path rule: whatever path the model writes (separators,
// "~", "..", Unicode, symlinks), the file a Target reads is the file the guard decided on, so
// the guard's canonical path is the only thing ever opened.
func FuzzOpenedIsDecided(f *testing.F) {
	for _, s := range []string{
		"file.txt", `a\b`, "a/b", `sub\a.txt`, "sub/a.txt", "~/x", `~\x`, "~", "~/.ssh/id_ed25519",
		`~\.ssh\id_ed25519`, `..\..\..\home\.ssh\id_ed25519`, "../../../out/secret.txt", `..\..\..\out\secret.txt`,
		"link_out_file", "link_out_dir/f.txt", `link_out_dir\f.txt`, "chain1", "deep/ld/esc", "café", "cafe\u0301",
		"./~/x", "sub/../file.txt", "sub//a.txt/", `\`, "/", "", ".", "..", "\u2215etc\u2215passwd", "sub\\..\\file.txt",
	} {
		f.Add(s)
	}
	fx := newFixture(f, nil)
	oneWayTree(f, fx)
	reader := fsread.NewReader(0)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, p string) {
		for _, in := range []string{p, fx.wd + "/" + p, fx.home + "/" + p, fx.out + "/" + p} {
			tg, err := fx.g.Open(ctx, req(ClassRead, "read_file", in))
			if err != nil {
				continue
			}
			if want := filepath.Join(tg.dir, filepath.FromSlash(tg.Rel)); filepath.Clean(tg.Canonical) != want {
				t.Fatalf("Open(%q): Canonical %q but root %q + rel %q = %q", in, tg.Canonical, tg.dir, tg.Rel, want)
			}
			r, err := reader.Read(ctx, tg.Root, tg.Rel, fsread.ReadOptions{Screen: tg})
			tg.Close()
			if err != nil {
				if errors.Is(err, fsread.ErrIsDir) || errors.Is(err, os.ErrNotExist) || errors.Is(err, fsread.ErrInvalidOptions) ||
					errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
					continue
				}
				if _, ok := AsDenial(err); ok {
					continue
				}
				t.Fatalf("Read(%q) after Open: %v", in, err)
			}
			if got := strings.TrimRight(r.Text, "\n"); got != tg.Canonical {
				t.Fatalf("Open(%q) decided %q but the read opened %q", in, tg.Canonical, got)
			}
		}
	})
}

// FuzzWalkRevealsOnlyReadable asserts that secret rules are the same for walks as for direct
// reads: every name a recursive listing below a Target shows is one a direct names-only read
// allows, and every file a search reads is one read_file would read.
func FuzzWalkRevealsOnlyReadable(f *testing.F) {
	for _, s := range []string{".", "~", "..", "../..", "../../..", "~/.ssh", "link_out_dir", "sub", "/", "~/.sshx"} {
		f.Add(s)
	}
	fx := newFixture(f, nil)
	oneWayTree(f, fx)
	writeFile(f, filepath.Join(fx.home, "proj", ".env.local"), "secret")
	writeFile(f, filepath.Join(fx.home, ".config", "toolhost", "token"), "secret")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, p string) {
		if strings.HasPrefix(p, "/") && p != "/" && !strings.HasPrefix(p, fx.base) {
			return // keep the walks inside the fixture
		}
		if p == "/" {
			p = fx.base
		}
		tg, err := fx.g.Open(ctx, namesOnly(req(ClassRead, "list_dir", p)))
		if err != nil {
			return
		}
		defer tg.Close()
		res, err := fsread.ListDir(ctx, tg.Root, tg.Rel, fsread.ListOptions{Screen: tg, Recursive: true, IncludeHidden: true, IncludeIgnored: true, MaxEntries: 10_000})
		if err != nil {
			return
		}
		for _, e := range res.Entries {
			c := filepath.Join(tg.dir, e.Path)
			if e.Type == fsread.TypeSymlink || e.Type == fsread.TypeOther {
				continue // the name of a link or a FIFO, never followed or opened
			}
			if _, err := fx.g.Check(ctx, namesOnly(req(ClassRead, "list_dir", c))); err != nil {
				t.Errorf("listing %q showed %s, which a direct read refuses: %v", p, c, err)
			}
		}
		gr, err := fsread.Grep(ctx, tg.Root, tg.Rel, fsread.GrepOptions{Screen: tg, Pattern: ".", IncludeHidden: true, IncludeIgnored: true, MaxMatches: 10_000})
		if err != nil {
			return
		}
		for _, m := range gr.Matches {
			c := filepath.Join(tg.dir, m.Path)
			if _, err := fx.g.Check(ctx, req(ClassRead, "read_file", c)); err != nil {
				t.Errorf("a search of %q read %s, which read_file refuses: %v", p, c, err)
			}
		}
	})
}

// TestOpenedFileIsTheDecidedOne: a file swapped in under the decided name between the check
// and the open is refused, by read_file's engine and by Target.OpenRead alike.
func TestOpenedFileIsTheDecidedOne(t *testing.T) {
	fx := newFixture(t, nil)
	ctx := context.Background()
	for _, where := range []string{fx.wd, fx.out} {
		t.Run(filepath.Base(where), func(t *testing.T) {
			p := filepath.Join(where, "decided.txt")
			writeFile(t, p, "decided")
			tg, err := fx.g.Open(ctx, req(ClassRead, "read_file", p))
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			writeFile(t, p+".new", "swapped in")
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
			_, err = fsread.NewReader(0).Read(ctx, tg.Root, tg.Rel, fsread.ReadOptions{Screen: tg})
			if d, ok := AsDenial(err); !ok || d.Code != CodeChanged {
				t.Errorf("Read after a swap = %v, want a %s denial", err, CodeChanged)
			}
			if f, err := tg.OpenRead(); err == nil {
				f.Close()
				t.Errorf("OpenRead after a swap succeeded, want a %s denial", CodeChanged)
			}
		})
	}
}
