package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourcesThroughBinary lists, reads and completes resources through the real binary, over
// stdio and over HTTP: the working directory summary tells where the project is, a file there
// reads through file://, a new terminal session appears in resources/list after list_changed,
// and completion proposes the file's path.
func TestResourcesThroughBinary(t *testing.T) {
	for name, transport := range binaryTransports {
		t.Run(name, func(t *testing.T) {
			listChanged := make(chan struct{}, 16)
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
			})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, transport(t), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			list := func() []string {
				res, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var uris []string
				for _, r := range res.Resources {
					uris = append(uris, r.URI)
				}
				return uris
			}
			uris := list()
			for _, want := range []string{"toolhost://workdir", "toolhost://workdir/git"} {
				if !slices.Contains(uris, want) {
					t.Errorf("resources/list = %v, want %s", uris, want)
				}
			}
			wdRes, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "toolhost://workdir"})
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(wdRes.Contents[0].Text, "\n")
			wd := strings.TrimPrefix(first, "Working directory: ")
			if err := os.WriteFile(filepath.Join(wd, "notes.md"), []byte("# notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			file, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://" + wd + "/notes.md"})
			if err != nil || file.Contents[0].Text != "# notes\n" {
				t.Fatalf("read file://%s/notes.md = %v, %v", wd, file, err)
			}
			comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "file:///{path}"},
				Argument: mcp.CompleteParamsArgument{Name: "path", Value: strings.TrimPrefix(wd, "/") + "/no"}})
			if err != nil || !slices.Equal(comp.Completion.Values, []string{strings.TrimPrefix(wd, "/") + "/notes.md"}) {
				t.Errorf("complete the file path = %v, %v", comp, err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{"operation": "create_session", "session_id": "live"}})
			if err != nil || res.IsError {
				t.Fatalf("create_session: %v %v", res, err)
			}
			select {
			case <-listChanged:
			case <-ctx.Done():
				t.Fatal("no notifications/resources/list_changed after create_session")
			}
			if uris := list(); !slices.ContainsFunc(uris, func(u string) bool { return strings.HasSuffix(u, "/live/screen") }) {
				t.Errorf("resources/list after create_session = %v, want the session's screen", uris)
			}
		})
	}
}
