package authz

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/fsread"
)

// TestLinkCensus: a file is linked only inside while the census finds all its names in the
// working directory, and a link made or removed later is noticed by its status change time.
func TestLinkCensus(t *testing.T) {
	base := t.TempDir()
	wd, out := filepath.Join(base, "wd"), filepath.Join(base, "out")
	mkdirs(t, wd, out)
	a := filepath.Join(wd, "a")
	writeFile(t, a, "x")
	if err := os.Link(a, filepath.Join(wd, "sub-b")); err != nil {
		t.Fatal(err)
	}
	x := &linkIndex{dir: wd}
	ctx := context.Background()
	ask := func() bool {
		var st statT
		if err := lstat(a, &st); err != nil {
			t.Fatal(err)
		}
		return x.onlyInside(ctx, statKey(&st), uint64(st.Nlink), ctimeOf(&st))
	}
	age := func() { x.built = x.built.Add(-time.Minute) } // as if the census were old
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"both names inside", func() {}, true},
		{"asked again, from the census", func() {}, true},
		{"a name outside added, census too recent to redo", func() { os.Link(a, filepath.Join(out, "c")) }, false},
		{"a name outside, new census", age, false},
		{"the outside name removed", func() { os.Remove(filepath.Join(out, "c")); age() }, true},
	}
	for _, s := range steps {
		s.do()
		if got := ask(); got != s.want {
			t.Errorf("%s: onlyInside = %v, want %v", s.name, got, s.want)
		}
	}
}

func TestHasGitName(t *testing.T) {
	tests := []struct {
		rel  string
		want bool
	}{
		{".git", true},
		{"a/.git/config", true},
		{"a/.GIT", true},
		{".gitignore", false},
		{"a/x.git", false},
		{"a/.github/workflows", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := hasGitName(tt.rel); got != tt.want {
			t.Errorf("hasGitName(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

// TestWalkRefusalNamesReadAccess: a file below a walked directory that has a link outside the
// working directory is refused, and the next step asks for the access the caller declared for
// reading one file (the guard knows no operation by name), else for the request's own.
func TestWalkRefusalNamesReadAccess(t *testing.T) {
	f := newFixture(t, nil)
	mkdirs(t, filepath.Join(f.wd, "sub"))
	hl := filepath.Join(f.wd, "sub", "hl")
	writeFile(t, hl, "x")
	if err := os.Link(hl, filepath.Join(f.out, "hl")); err != nil {
		t.Fatal(err)
	}
	var st statT
	if err := lstat(hl, &st); err != nil {
		t.Fatal(err)
	}
	id := fsread.FileID{Dev: uint64(st.Dev), Ino: st.Ino, Nlink: uint64(st.Nlink), Ctime: ctimeOf(&st)}
	for _, c := range []struct {
		name, readAccess, want string
	}{
		{"declared", "file_operations.read_file", "file_operations.read_file"},
		{"the request's own", "", "file_operations.grep_search"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := req(ClassRead, "grep_search", "sub")
			r.ReadAccess = c.readAccess
			tg, err := f.g.Open(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			d, ok := AsDenial(tg.Opened("hl", id))
			if !ok || d.Code != CodeHardLink {
				t.Fatalf("Opened(hl) = %v, want a hard_link denial", d)
			}
			if want := `"access":"` + c.want + `"`; !strings.Contains(d.NextStep, want) {
				t.Errorf("NextStep = %q, want it to ask for %s", d.NextStep, want)
			}
		})
	}
}
