package git

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestObjectPaths(t *testing.T) {
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"HEAD", nil},
		{"HEAD:a.txt", []string{"a.txt"}},
		{"HEAD:", []string{""}},
		{":a.txt", []string{"a.txt"}},
		{"HEAD:./a.txt", []string{"a.txt"}},
		{"HEAD:dir/", []string{"dir"}},
		{"HEAD:sub/../.env", []string{".env"}},
		{"HEAD:../x", []string{"x"}},
		// Every colon is a candidate: git 2.39 splits after the braces, later versions may not.
		{"main@{10:00}:.env", []string{"00}:.env", ".env"}},
		{"HEAD^{/fix: y}:.env", []string{" y}:.env", ".env"}},
		{":0:.env", []string{"0:.env", ".env"}},
	} {
		if got := ObjectPaths(tt.name); !cmp.Equal(got, tt.want) {
			t.Errorf("ObjectPaths(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCommitFiles: what a commit's patch can show, for a root commit, a rename and a merge whose
// sides changed different files (its combined diff is empty; each side's files are listed).
func TestCommitFiles(t *testing.T) {
	testEnv(t)
	dir := newRepo(t)
	ctx := context.Background()
	p := open(t, dir)
	id := func(rev string) string { return strings.TrimSpace(sh(t, dir, "rev-parse", rev)) }
	names := func(fs []FileStat) []string {
		var out []string
		for _, f := range fs {
			s := f.Path
			if f.Orig != "" {
				s = f.Orig + "->" + f.Path
			}
			out = append(out, s)
		}
		return out
	}
	root := id("HEAD")
	sh(t, dir, "mv", "a.txt", "b.txt")
	sh(t, dir, "commit", "-qm", "rename")
	rename := id("HEAD")
	sh(t, dir, "switch", "-q", "-c", "side")
	write(t, dir, "side.txt", "s\n")
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "side")
	sh(t, dir, "switch", "-q", "main")
	write(t, dir, "main.txt", "m\n")
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "main")
	sh(t, dir, "merge", "-q", "--no-edit", "side")
	for _, tt := range []struct {
		name, id string
		want     []string
	}{
		{"root commit", root, []string{"a.txt"}},
		{"rename", rename, []string{"a.txt->b.txt"}},
		{"merge", id("HEAD"), []string{"side.txt", "main.txt"}},
	} {
		got, err := p.CommitFiles(ctx, tt.id)
		if err != nil {
			t.Fatalf("CommitFiles(%s): %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("CommitFiles(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestShowOnly: Show limited to paths shows those and no other; limited to none, the message
// alone.
func TestShowOnly(t *testing.T) {
	testEnv(t)
	dir := newRepo(t)
	write(t, dir, "keep.txt", "KEEP\n")
	write(t, dir, "drop.txt", "DROP\n")
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "two files")
	p := open(t, dir)
	ctx := context.Background()
	head := strings.TrimSpace(sh(t, dir, "rev-parse", "HEAD"))
	for _, tt := range []struct {
		name      string
		o         ShowOptions
		want, not []string
	}{
		{"everything", ShowOptions{Context: -1}, []string{"two files", "+KEEP", "+DROP"}, nil},
		{"one path", ShowOptions{Context: -1, Only: true, Paths: []string{"keep.txt"}}, []string{"two files", "+KEEP"}, []string{"DROP"}},
		{"no path", ShowOptions{Context: -1, Only: true}, []string{"two files"}, []string{"KEEP", "DROP", "diff --git"}},
	} {
		text, _, err := p.Show(ctx, head, tt.o)
		if err != nil {
			t.Fatalf("Show(%s): %v", tt.name, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(text), w) {
				t.Errorf("Show(%s) = %s\nwant %q", tt.name, text, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(string(text), n) {
				t.Errorf("Show(%s) = %s\nholds %q", tt.name, text, n)
			}
		}
	}
}
