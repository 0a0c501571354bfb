package consolidated

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
)

// BenchmarkBuildGit compares git_status and git_diff stat_only, end to end through the in-memory
// MCP transport (guard checks, repository discovery, git, parsing, rendering), with the git CLI's
// own `git status` and `git diff --stat` on the same generated repository of 10,000 files, 500 of
// them modified, in the same run. Each iteration times one CLI run and one tool call back to back,
// so machine load hits both alike; x-cli is the tool's time over the CLI's (target <= 1.3).
// The _sandboxed cases run git as toolhost does by default, under a workspace-write Landlock
// policy laid out as on a user's machine (where the kernel has Landlock).
func BenchmarkBuildGit(b *testing.B) {
	var policy *sandbox.Policy
	if _, err := sandbox.ABI(); err == nil {
		policy = sandboxtest.HomePolicy(b) // before the harness moves HOME into a temp dir
	}
	confine := false
	h := newBuildHarness(b, buildOptions{sandbox: func(context.Context, string) (*sandbox.Policy, error) {
		if !confine {
			return nil, nil
		}
		return policy, nil
	}})
	if policy != nil {
		policy.Writable, policy.Temp = []string{h.wd}, sandbox.TempDirs()
	}
	const dirs, perDir, modified = 100, 100, 500
	h.git("", "init", "-q", "-b", "main")
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(h.wd, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < perDir; f++ {
			content := fmt.Sprintf("package pkg%03d\n\n// File %d of %d.\nvar V%d = %d\n", d, f, perDir, f, d*perDir+f)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	h.git("", "add", "-A")
	h.git("", "commit", "-qm", "10,000 files")
	for i := 0; i < modified; i++ {
		p := filepath.Join(h.wd, fmt.Sprintf("pkg%03d", i%dirs), fmt.Sprintf("f%03d.go", i/dirs))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package pkg%03d\n\n// Changed.\nvar V = %d\n", i%dirs, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Warm the index stat cache and the page cache once for both.
	h.git("", "status")
	cases := []struct {
		name    string
		cli     []string
		op      string
		args    map[string]any
		want    string
		confine bool
	}{
		{"status", []string{"status"}, "git_status", nil, "unstaged (500)", false},
		{"diff_stat", []string{"diff", "--stat"}, "git_diff", map[string]any{"stat_only": true}, "500 files changed", false},
		{"status_sandboxed", []string{"status"}, "git_status", nil, "unstaged (500)", true},
		{"diff_stat_sandboxed", []string{"diff", "--stat"}, "git_diff", map[string]any{"stat_only": true}, "500 files changed", true},
	}
	for _, c := range cases {
		if c.confine && policy == nil {
			continue
		}
		confine = c.confine
		b.Run(c.name, func(b *testing.B) {
			// Once untimed: a server builds a policy's Landlock ruleset once and keeps it.
			h.mustOp(c.op, c.args)
			var cli, tool time.Duration
			for b.Loop() {
				start := time.Now()
				cmd := exec.Command("git", c.cli...)
				cmd.Dir = h.wd
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("git %v: %v", c.cli, err)
				}
				cli += time.Since(start)
				start = time.Now()
				text := h.mustOp(c.op, c.args)
				tool += time.Since(start)
				if !strings.Contains(text, c.want) {
					b.Fatalf("%s = %.200s, want %q", c.op, text, c.want)
				}
			}
			b.ReportMetric(float64(cli.Nanoseconds())/float64(b.N), "cli-ns/op")
			b.ReportMetric(float64(tool.Nanoseconds())/float64(b.N), "tool-ns/op")
			b.ReportMetric(float64(tool)/float64(cli), "x-cli")
		})
	}
}
