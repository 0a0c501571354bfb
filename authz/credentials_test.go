package authz

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"toolhost/store/storetest"
)

// TestAnnouncedCredentialsProtected: a credential file one server announces (a token file
// its own configuration names) is refused to every other guard on the state directory, in
// and outside the working directory, to reads and walks alike, although their configurations
// never name it.
func TestAnnouncedCredentialsProtected(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wd, other := filepath.Join(base, "wd"), filepath.Join(base, "tokens")
	for _, d := range []string{wd, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outside, inside := filepath.Join(other, "serve-token"), filepath.Join(wd, "dev-token")
	for _, p := range []string{outside, inside, filepath.Join(other, "plain.txt")} {
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := storetest.Open(t)
	ctx := context.Background()
	g, err := New(ctx, Config{WorkDir: wd, HomeDir: base, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	read := func(p string) string {
		_, err := g.Check(ctx, Request{Conversation: "c", Tool: "file_operations", Operation: "read_file", Class: ClassRead, Path: p})
		if d, ok := AsDenial(err); ok {
			return d.Code
		}
		if err != nil {
			t.Fatal(err)
		}
		return "allowed"
	}
	if read(outside) != "allowed" || read(inside) != "allowed" {
		t.Fatal("the files are refused before anyone announced them")
	}
	// Another server on the same state directory announces both.
	if err := AnnounceCredentials(ctx, st, outside, inside); err != nil {
		t.Fatal(err)
	}
	time.Sleep(credentialCheckEvery + 50*time.Millisecond)
	for _, p := range []string{outside, inside} {
		if got := read(p); got != CodeProtectedPath {
			t.Errorf("read of announced %s = %s, want %s", p, got, CodeProtectedPath)
		}
	}
	if got := read(filepath.Join(other, "plain.txt")); got != "allowed" {
		t.Errorf("a plain file beside the announced one = %s, want allowed", got)
	}
	tgt, err := g.Open(ctx, Request{Conversation: "c", Tool: "file_operations", Operation: "list_dir", Class: ClassRead, Path: wd, NamesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	if !tgt.Withhold("dev-token", false) {
		t.Error("a walk of the working directory shows the announced token file")
	}
	if files := g.CredentialFiles(); len(files) != 2 {
		t.Errorf("CredentialFiles = %v, want both", files)
	}
	if sp := g.SecretPaths(); !slices.Contains(sp, outside) || !slices.Contains(sp, inside) {
		t.Errorf("SecretPaths = %v, want the announced files among them", sp)
	}
}
