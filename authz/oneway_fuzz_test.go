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
