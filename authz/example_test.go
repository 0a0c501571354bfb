package authz_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"toolhost/authz"
	"toolhost/store"
)

// The MCP layer builds one guard per working directory, opens every file operation through it,
// and turns a *Denial into an isError result that carries Code, Message and NextStep.
func ExampleGuard_Open() {
	ctx := context.Background()
	base, _ := os.MkdirTemp("", "authz-example")
	defer os.RemoveAll(base)
	base, _ = filepath.EvalSymlinks(base)
	wd := filepath.Join(base, "project")
	os.MkdirAll(wd, 0o755)

	st, _ := store.Open(ctx, filepath.Join(base, "state"), store.Options{})
	defer st.Close()
	g, err := authz.New(ctx, authz.Config{WorkDir: wd, StateDir: st.Dir(), Store: st})
	if err != nil {
		panic(err)
	}
	defer g.Close()

	write := func(path string) {
		t, err := g.Open(ctx, authz.Request{Conversation: "c1", Tool: "file_operations", Operation: "create_file", Class: authz.ClassWrite, Path: path})
		if d, ok := authz.AsDenial(err); ok {
			fmt.Println("denied:", d.Code, d.Access)
			return
		}
		defer t.Close()
		t.Root.WriteFile(t.Rel, []byte("hello\n"), 0o644)
		fmt.Println("wrote", t.Rel, "allowed:", t.Decision.Kind)
	}
	write("notes.txt")
	write(filepath.Join(base, "elsewhere.txt"))

	// The user accepts the request (elicitation or CLI); the MCP layer then creates the grant.
	g.CreateGrant(ctx, authz.GrantSpec{Conversation: "c1", Access: "file_operations:write", Path: base + "/elsewhere.txt", Once: true, By: "elicitation"})
	write(filepath.Join(base, "elsewhere.txt"))
	write(filepath.Join(base, "elsewhere.txt"))
	// Output:
	// wrote notes.txt allowed: allowed_inside
	// denied: outside_workdir file_operations.create_file
	// wrote elsewhere.txt allowed: allowed_by_grant
	// denied: outside_workdir file_operations.create_file
}
