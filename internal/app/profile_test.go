package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/config"
)

// TestProfileNamesChecked refuses typos in a profile's tools and disable lists (which the
// --tools and --disable flags fill) with a "did you mean", in the active profile and in others.
func TestProfileNamesChecked(t *testing.T) {
	tests := []struct {
		name     string
		profile  string
		profiles map[string]config.Profile
		want     string
	}{
		{"disable typo", "p", map[string]config.Profile{"p": {Disable: []string{"file_operation"}}}, `did you mean "file_operations"?`},
		{"tools operation typo", "p", map[string]config.Profile{"p": {Tools: []string{"think", "todo_operations.raed"}}}, `did you mean "todo_operations.read"?`},
		{"inactive profile", "", map[string]config.Profile{"other": {Disable: []string{"terminal_operations.run_comand"}}}, `profile "other" disable`},
		{"no match lists the tools", "p", map[string]config.Profile{"p": {Disable: []string{"zzzzzzzzzzzzzz"}}}, "names are a tool (think, "},
		{"valid names", "p", map[string]config.Profile{"p": {Tools: []string{"think", "file_operations.read_file"}, Disable: []string{"web_operations"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts"), Profile: tt.profile, Profiles: tt.profiles}
			a, err := Open(context.Background(), cfg, nil)
			if err == nil {
				a.Close()
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Open() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Open() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
