package consolidated

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// TestSecurityResourceNamesScreened: with the working directory at the home directory, path
// completion and the working-directory summary show what list_dir shows: nothing of ~/.ssh.
func TestSecurityResourceNamesScreened(t *testing.T) {
	h := newHarness(t, harnessOptions{guard: func(c *authz.Config) { c.HomeDir = c.WorkDir }, tools: func(h *harness) []*Tool {
		return []*Tool{testFileTool(h)}
	}})
	h.write(map[string]string{".ssh/id_ed25519": "KEYMATERIAL", ".sshx/notes": "x", "src/main.go": "package main"})
	ctx := context.Background()
	screen := h.guard.WorkDirScreen()
	tests := []struct {
		value string
		want  []string
	}{
		{".s", []string{".sshx/"}},
		{".ssh/", nil},
		{".ssh/id", nil},
		{"src/", []string{"src/main.go"}},
	}
	for _, tt := range tests {
		if got := completePath(ctx, h.guard.Root(), screen, tt.value); !slices.Equal(got, tt.want) {
			t.Errorf("completePath(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
	res, err := h.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: WorkdirURI})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Contents[0].Text; strings.Contains(text, ".ssh/") || !strings.Contains(text, "src/") {
		t.Errorf("%s = %q, want src/ and no .ssh/", WorkdirURI, text)
	}
}
