package consolidated

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"toolhost/authz"
)

// TestBuildGitDiffRefused: the refs and paths git_diff refuses, each naming the parameter;
// testdata/scenarios/build_git_diff.txtar pins the diffs themselves.
func TestBuildGitDiffRefused(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.write("a.txt", "one\nTWO\nthree\n")
	h.git("", "commit", "-qam", "second") // HEAD~1..HEAD is a range
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"missing ref", map[string]any{"ref": "nope"}, []string{"error not_found", "parameter: ref"}},
		{"missing side of a range", map[string]any{"ref": "main..nope"}, []string{"error not_found", "parameter: ref"}},
		{"a ref that starts with a dash", map[string]any{"ref": "--output=/tmp/x"}, []string{"error invalid_value", "parameter: ref", "may not start with '-'"}},
		{"a path outside the repository", map[string]any{"paths": []string{"../elsewhere"}}, []string{"error outside_repository", "parameter: paths"}},
		{"an absolute path outside", map[string]any{"paths": []string{"/etc/passwd"}}, []string{"error outside_repository"}},
		{"repository internals", map[string]any{"paths": []string{".git/config"}}, []string{"error outside_repository"}},
		{"staged against a range", map[string]any{"staged": true, "ref": "HEAD~1..HEAD"}, []string{"error invalid_value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := h.errOp("git_diff", tc.args)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("git_diff %v = %s\nwant it to contain %q", tc.args, text, w)
				}
			}
		})
	}
}

// A 50 MB diff is cut to the budget: the diffstat comes first, the marker says how to read the
// rest, and read_tool_result pages the spilled text.
func TestBuildGitDiffHuge(t *testing.T) {
	h := newBuildHarness(t, buildOptions{budget: 4000})
	h.repo("")
	var b strings.Builder
	line := strings.Repeat("x", 99) + "\n"
	for b.Len() < 50<<20 {
		b.WriteString(line)
	}
	h.write("big.txt", b.String())
	h.git("", "add", "big.txt")
	text := h.mustOp("git_diff", map[string]any{"staged": true})
	if len(text) > 4000*4 {
		t.Errorf("the diff result is %d bytes, over the budget", len(text))
	}
	if _, body, _ := strings.Cut(text, "\n"); !strings.HasPrefix(body, "staged changes (index against HEAD)\n1 file changed, +") {
		t.Errorf("the cut diff does not start with its stat after the cut notice:\n%.300s", text)
	}
	m := regexp.MustCompile(`the read_tool_result tool pages the rest: \{"id":"(r[0-9a-f]+)","offset":(\d+)\}`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no read_tool_result marker in:\n%.500s...%s", text, text[max(0, len(text)-500):])
	}
	page, isErr := h.call("read_tool_result", map[string]any{"id": m[1], "offset": m[2], "length": 1000})
	if isErr || !strings.Contains(page, "+xxxxxxxx") {
		t.Errorf("read_tool_result page:\n%.300s", page)
	}
	if text := h.mustOp("git_diff", map[string]any{"staged": true, "stat_only": true}); !strings.Contains(text, "+") || len(text) > 200 {
		t.Errorf("stat_only of the huge diff:\n%s", text)
	}
}

// TestBuildGitBranches: a switch never loses uncommitted work, and the refusals of
// git_branch; testdata/scenarios/build_git_branch.txtar pins a branch's texts.
func TestBuildGitBranches(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.mustOp("git_branch", map[string]any{"action": "create", "name": "feature"})
	// A switch that would overwrite an uncommitted change is refused and loses nothing.
	h.mustOp("git_branch", map[string]any{"action": "switch", "name": "feature"})
	h.write("a.txt", "feature version\n")
	h.git("", "commit", "-qam", "feature change")
	h.git("", "checkout", "-q", "main")
	h.write("a.txt", "precious uncommitted work\n")
	text := h.errOp("git_branch", map[string]any{"action": "switch", "name": "feature"})
	if !strings.Contains(text, "error local_changes") || !strings.Contains(text, "a.txt") {
		t.Errorf("switch over a dirty tree:\n%s", text)
	}
	if got := h.read("a.txt"); got != "precious uncommitted work\n" {
		t.Errorf("the uncommitted change was lost: a.txt = %q", got)
	}
	if text := h.mustOp("git_status", nil); !strings.HasPrefix(text, "branch main") {
		t.Errorf("the failed switch moved HEAD:\n%s", text)
	}
	// A change that does not conflict is carried along, as git does.
	h.write("a.txt", "one\ntwo\nthree\n")
	h.write("other.txt", "untracked but harmless\n")
	if text := h.mustOp("git_branch", map[string]any{"action": "switch", "name": "feature"}); !strings.HasPrefix(text, "switched to feature\nbranch feature") || !strings.Contains(text, "other.txt") {
		t.Errorf("switch with an untracked file:\n%s", text)
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"switch to a branch that does not exist", map[string]any{"action": "switch", "name": "featur"}, "did you mean feature?"},
		{"a name that is an option", map[string]any{"action": "switch", "name": "-c"}, "error invalid_value"},
		{"create with an option as name", map[string]any{"action": "create", "name": "--exec=sh"}, "error invalid_value"},
		{"create with an invalid name", map[string]any{"action": "create", "name": "a..b"}, "error invalid_value"},
		{"create at a missing ref", map[string]any{"action": "create", "name": "x", "ref": "nope"}, "error not_found"},
		{"create without a name", map[string]any{"action": "create"}, "error missing_parameter"},
		{"switch to a tag", map[string]any{"action": "switch", "name": "HEAD~1"}, "error"},
		{"an unknown action", map[string]any{"action": "delete", "name": "x"}, "error invalid_value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := h.errOp("git_branch", tc.args)
			if !strings.Contains(text, tc.want) {
				t.Errorf("git_branch %v:\n%s\nwant %q", tc.args, text, tc.want)
			}
		})
	}
}

// TestBuildGitStageRefused: what git_stage and git_commit refuse; the way from no commits to a
// pushed one is testdata/scenarios/build_git_commit.txtar.
func TestBuildGitStageRefused(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	tests := []struct {
		name string
		op   string
		args map[string]any
		want string
	}{
		{"commit without a message", "git_commit", map[string]any{}, "error missing_parameter"},
		{"stage without paths", "git_stage", map[string]any{}, "error missing_parameter"},
		{"stage a file that does not exist", "git_stage", map[string]any{"paths": "nope.txt"}, "error not_found"},
		{"stage outside the repository", "git_stage", map[string]any{"paths": "../x"}, "error outside_repository"},
		{"stage the repository's config", "git_stage", map[string]any{"paths": ".git/config"}, "error outside_repository"},
		{"stage a hook", "git_stage", map[string]any{"paths": ".git/hooks/pre-commit"}, "error outside_repository"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if text := h.errOp(tc.op, tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("%s %v:\n%s\nwant %q", tc.op, tc.args, text, tc.want)
			}
		})
	}
}

// .git/config and hooks stay protected: the file tool refuses to write them, so a model cannot
// plant a hook that git_commit would run, nor a core.* setting that git would obey.
func TestBuildRepositoryInternalsProtected(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	for _, p := range []string{".git/hooks/pre-commit", ".git/config", ".git/commondir"} {
		_, err := h.hs.guard.Check(context.Background(), authz.Request{Conversation: testConversation, Tool: "file_operations",
			Operation: "create_file", Class: authz.ClassWrite, Path: p})
		err = GuardError(err, "path")
		if err == nil || !strings.Contains(err.Error(), "protected") {
			t.Errorf("writing %s: %v, want protected", p, err)
		}
	}
}

// Every argument a model controls is data: nothing it sends becomes a git option, and no payload
// runs (a marker file proves it).
func TestBuildArgumentInjection(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	marker := filepath.Join(t.TempDir(), "pwned")
	payloads := []string{
		"--upload-pack=touch " + marker,
		"-c", "-ccore.pager=touch " + marker, "-c core.fsmonitor=touch " + marker,
		"--exec=touch " + marker,
		"--output=" + marker,
		"HEAD --output=" + marker,
		"--config-env=core.pager=X",
	}
	for _, p := range payloads {
		for _, call := range []struct {
			op   string
			args map[string]any
		}{
			{"git_diff", map[string]any{"ref": p}},
			{"git_diff", map[string]any{"ref": "HEAD.." + p}},
			{"git_log", map[string]any{"ref": p}},
			{"git_show", map[string]any{"ref": p}},
			{"git_blame", map[string]any{"paths": "a.txt", "ref": p}},
			{"git_branch", map[string]any{"action": "create", "name": p}},
			{"git_branch", map[string]any{"action": "create", "name": "ok-name", "ref": p}},
			{"git_branch", map[string]any{"action": "switch", "name": p}},
			{"changed_files", map[string]any{"ref": p}},
		} {
			text, isErr := h.op(call.op, call.args)
			if !isErr {
				t.Errorf("%s %v succeeded:\n%s", call.op, call.args, text)
			}
		}
		// As values they are text: an author never matches, a path is a literal file name.
		if text := h.mustOp("git_log", map[string]any{"author": p, "since": p}); text != "no commits match" {
			t.Errorf("git_log author=%q: %s", p, text)
		}
		h.errOp("git_stage", map[string]any{"paths": p})
		h.mustOp("git_commit", map[string]any{"message": p, "amend": true})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an injected option ran")
	}
	// The commit message is stored verbatim.
	if text := h.mustOp("git_log", map[string]any{"limit": 1}); !strings.Contains(text, "--config-env=core.pager=X") {
		t.Errorf("the last message was not kept as text:\n%s", text)
	}
}

// A repository outside the working directory may be read (outside reads are allowed by default)
// but not written without the user's grant.
func TestBuildRepositoryOutsideWorkdir(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.git("", "init", "-q", "-b", "main", outside)
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text := h.mustOp("git_status", map[string]any{"repo": outside}); !strings.Contains(text, "x.txt") {
		t.Errorf("status of an outside repository:\n%s", text)
	}
	text := h.errOp("git_stage", map[string]any{"repo": outside, "paths": "x.txt"})
	if !strings.Contains(text, "outside the working directory") || !strings.Contains(text, "request_authorization") {
		t.Errorf("staging in an outside repository:\n%s", text)
	}
	// A working directory inside a larger repository: writes at the root above need a grant.
	h.git("", "init", "-q", "-b", "main", filepath.Dir(h.wd))
	if text := h.errOp("git_commit", map[string]any{"message": "m"}); !strings.Contains(text, "outside the working directory") {
		t.Errorf("committing in a repository rooted above the working directory:\n%s", text)
	}
}
