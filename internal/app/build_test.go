package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/config"
	"toolhost/internal/git/gittest"
)

// Profiles filter build_and_version_control by risk like every tool: read-only keeps what only
// reads; disabling the tool drops it and its git context resource.
func TestBuildProfiles(t *testing.T) {
	reads := []string{"git_status", "git_diff", "git_log", "git_show", "git_blame", "changed_files", "list_tasks"}
	all := append(append([]string{}, reads[:5]...), "git_branch", "git_stage", "git_unstage", "git_commit", "changed_files", "list_tasks", "run_task", "run_tests", "get_errors")
	tests := []struct {
		name     string
		profile  config.Profile
		want     []string
		resource bool
	}{
		{"full", config.Profile{}, all, true},
		{"read-only", config.Profile{ReadOnly: true}, reads, true},
		{"one operation", config.Profile{Tools: []string{"build_and_version_control.git_status"}}, []string{"git_status"}, true},
		{"disabled", config.Profile{Disable: []string{"build_and_version_control"}}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts"),
				Profile: "p", Profiles: map[string]config.Profile{"p": tc.profile}}
			a, err := Open(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var got []string
			for _, tl := range a.Registry.Tools() {
				if tl.Name != "build_and_version_control" {
					continue
				}
				got = operationEnum(t, tl.InputSchema)
				for _, op := range all {
					if !contains(got, op) && strings.Contains(tl.Description, op+",") {
						t.Errorf("the description names %s, which the profile disables:\n%s", op, tl.Description)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("operations (-want +got):\n%s", diff)
			}
			res, err := connect(t, a, nil, "").ListResources(context.Background(), nil)
			found := false
			if err == nil {
				for _, r := range res.Resources {
					found = found || r.URI == "toolhost://workdir/git"
				}
			}
			if found != tc.resource {
				t.Errorf("git context resource listed = %v, want %v", found, tc.resource)
			}
		})
	}
}

func contains(list []string, s string) bool { return indexOf(list, s) >= 0 }

// Hooks run in git's environment, which the wiring scrubs like a terminal's: toolhost's token
// never reaches a hook a repository carries.
func TestBuildHooksGetNoSecrets(t *testing.T) {
	t.Setenv("TOOLHOST_TOKEN", "th_secret_for_test")
	gittest.Isolate(t)
	a := testApp(t)
	gittest.Run(t, a.Workdir, "init", "-q", "-b", "main")
	gittest.Run(t, a.Workdir, "commit", "-q", "--allow-empty", "-m", "first")
	hook := filepath.Join(a.Workdir, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nenv > hook-env.txt\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Workdir, "f.txt"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, call := range []string{
		`{"operation":"git_stage","paths":["f.txt"]}`,
		`{"operation":"git_commit","message":"with hook"}`,
	} {
		res := a.Registry.Dispatch(ctx, "build_and_version_control", []byte(call), nil)
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError {
			t.Fatalf("%s: %s", call, text)
		}
	}
	env, err := os.ReadFile(filepath.Join(a.Workdir, "hook-env.txt"))
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	if strings.Contains(string(env), "th_secret_for_test") || strings.Contains(string(env), "TOOLHOST_") {
		t.Errorf("a hook saw toolhost's secrets:\n%s", env)
	}
	if !strings.Contains(string(env), "GIT_TERMINAL_PROMPT=0") {
		t.Errorf("the hook's environment lacks git's safe settings:\n%s", env)
	}
}
