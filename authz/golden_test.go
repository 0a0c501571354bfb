package authz

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/fifotest"
	"toolhost/internal/golden"
)

// TestDenialGolden pins what the model sees for each kind of refusal.
func TestDenialGolden(t *testing.T) {
	f := newFixture(t, nil)
	f.populate(t)
	writeFile(t, filepath.Join(f.wd, "hl"), "x")
	if err := os.Link(filepath.Join(f.wd, "hl"), filepath.Join(f.wd, "hl2")); err != nil {
		t.Fatal(err)
	}
	fifotest.Make(t, filepath.Join(f.wd, "fifo"))
	del := func(p string) Request {
		return Request{Conversation: "c1", Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: p, Delete: true}
	}
	cases := []struct {
		name string
		r    Request
	}{
		{"outside write", req(ClassWrite, "create_file", f.out+"/new.txt")},
		{"outside execute", Request{Tool: "terminal_operations", Operation: "run_command", Class: ClassExecute, Path: f.out}},
		{"protected hook", req(ClassWrite, "create_file", ".git/hooks/pre-commit")},
		{"protected state", req(ClassRead, "read_file", f.state+"/toolhost.db")},
		{"secret", req(ClassRead, "read_file", "~/.ssh/id_ed25519")},
		{"dotenv outside", req(ClassRead, "read_file", f.out+"/.env")},
		{"hard link", req(ClassWrite, "replace_string", "hl")},
		{"fifo", req(ClassRead, "read_file", "fifo")},
		{"workdir delete", del(".")},
		{"NUL byte", req(ClassRead, "read_file", "a\x00b")},
		{"too long", req(ClassRead, "read_file", strings.Repeat("x/", 3000))},
		{"loop", req(ClassRead, "read_file", "loop1")},
		{"bad request", Request{Tool: "file_operations", Operation: "read_file", Class: "delete", Path: "x"}},
	}
	var b strings.Builder
	for _, c := range cases {
		_, err := f.g.Check(context.Background(), c.r)
		d, ok := AsDenial(err)
		if !ok {
			t.Fatalf("Check(%s) error = %v, want a Denial", c.name, err)
		}
		b.WriteString("## " + c.name + "\n")
		b.WriteString("code: " + d.Code + "\ncanonical: " + d.Canonical + "\naccess: " + d.Access +
			"\nmessage: " + d.Message + "\nnext_step: " + d.NextStep + "\n\n")
	}
	got := strings.ReplaceAll(b.String(), f.base, "$BASE")
	golden.CheckString(t, "testdata/denials.golden", got)
}
