package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetPromptReadsUserPrompts: a Markdown prompt the user drops into the prompts directory is
// listed and read by user_collaboration's get_prompt without a restart, as MCP prompts/list
// shows it.
func TestGetPromptReadsUserPrompts(t *testing.T) {
	a := testApp(t)
	cs := connect(t, a, nil, "")
	if err := os.MkdirAll(a.PromptsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: release\ndescription: Cut a release.\narguments:\n  - name: version\n    required: true\n---\nTag {{version}} and push nothing.\n"
	if err := os.WriteFile(filepath.Join(a.PromptsDir, "release.md"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	list, isErr := callText(t, cs, "user_collaboration", map[string]any{"operation": "get_prompt"})
	if isErr || !strings.Contains(list, "- release: Cut a release. (version (required))") || !strings.Contains(list, "- fix_error:") {
		t.Errorf("get_prompt list = %q", list)
	}
	one, isErr := callText(t, cs, "user_collaboration", map[string]any{"operation": "get_prompt", "prompt": "release"})
	if isErr || !strings.HasSuffix(one, "Tag {{version}} and push nothing.") || !strings.Contains(one, "version (required)") {
		t.Errorf("get_prompt release = %q", one)
	}
}
