package consolidated

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// Each repository state git can be in gets a compact, useful status (or a clear error).
func TestBuildGitStatusStates(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	// A clean repository at the working directory.
	h.repo("")
	h.golden("status_clean.txt", h.mustOp("git_status", nil))

	// No commits yet, with a staged and an untracked file.
	h.git("", "init", "-q", "-b", "main", "fresh")
	h.write("fresh/staged.txt", "s\n")
	h.write("fresh/new.txt", "n\n")
	h.git("fresh", "add", "staged.txt")
	h.golden("status_no_commits.txt", h.mustOp("git_status", map[string]any{"repo": "fresh"}))

	// Detached HEAD.
	h.repo("detached")
	h.write("detached/a.txt", "changed\n")
	h.git("detached", "commit", "-qam", "second")
	h.git("detached", "checkout", "-q", "HEAD~1")
	h.golden("status_detached.txt", h.mustOp("git_status", map[string]any{"repo": "detached"}))

	// A merge stopped on a conflict, with a staged rename and an untracked file.
	h.repo("merge")
	h.git("merge", "checkout", "-qb", "feature")
	h.write("merge/a.txt", "one\nTWO-feature\nthree\n")
	h.git("merge", "commit", "-qam", "feature edit")
	h.git("merge", "checkout", "-q", "main")
	h.write("merge/a.txt", "one\nTWO-main\nthree\n")
	h.git("merge", "commit", "-qam", "main edit")
	if _, err := runGit(h, "merge", "merge", "feature"); err == nil {
		t.Fatal("the merge should have stopped on a conflict")
	}
	h.write("merge/untracked.txt", "u\n")
	h.golden("status_merge_conflict.txt", h.mustOp("git_status", map[string]any{"repo": "merge"}))
	// A commit with the conflict unresolved is refused, naming the file.
	text := h.errOp("git_commit", map[string]any{"repo": "merge", "message": "merge"})
	if !strings.Contains(text, "error unresolved_conflicts") || !strings.Contains(text, "a.txt") {
		t.Errorf("commit during a conflict:\n%s", text)
	}

	// A shallow clone.
	h.git("", "clone", "-q", "--depth", "1", "file://"+filepath.Join(h.wd, "merge"), "shallow")
	h.golden("status_shallow.txt", h.mustOp("git_status", map[string]any{"repo": "shallow"}))
	if text := h.mustOp("git_log", map[string]any{"repo": "shallow"}); !strings.Contains(text, "shallow clone") {
		t.Errorf("git_log of a shallow clone does not say so:\n%s", text)
	}

	// Not a repository.
	if err := os.MkdirAll(filepath.Join(t.TempDir(), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	text = h.errOp("git_status", map[string]any{"repo": plain})
	if !strings.Contains(text, "error not_a_repository") || !strings.Contains(text, "parameter: repo") {
		t.Errorf("status outside any repository:\n%s", text)
	}
	if text := h.errOp("git_status", map[string]any{"repo": "a.txt"}); !strings.Contains(text, "is not a directory") {
		t.Errorf("status of a file:\n%s", text)
	}
	// The .git directory itself is not a work tree.
	text = h.errOp("git_status", map[string]any{"repo": ".git"})
	if !strings.Contains(text, "error not_a_repository") && !strings.Contains(text, "protected") {
		t.Errorf("status of .git:\n%s", text)
	}
	// A path that is not a directory of anything.
	text = h.errOp("git_status", map[string]any{"repo": "missing/dir"})
	if !strings.Contains(text, "error not_found") || !strings.Contains(text, "parameter: repo") {
		t.Errorf("status of a missing directory:\n%s", text)
	}
}

// runGit runs git in dir and returns its error instead of failing the test.
func runGit(h *buildHarness, dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", filepath.Join(h.wd, dir)}, args...)...).CombinedOutput()
	return string(out), err
}

func TestBuildGitDiff(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.write("a.txt", "one\nTWO\nthree\n")
	h.write("b.txt", "new file\n")
	h.git("", "add", "b.txt")
	if err := os.WriteFile(filepath.Join(h.wd, "img.bin"), []byte{0, 1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	h.git("", "add", "img.bin")
	h.golden("diff_unstaged.txt", h.mustOp("git_diff", nil))
	h.golden("diff_staged_stat.txt", h.mustOp("git_diff", map[string]any{"staged": true, "stat_only": true}))
	if text := h.mustOp("git_diff", map[string]any{"staged": true}); !strings.Contains(text, "Binary files /dev/null and b/img.bin differ") {
		t.Errorf("a binary file is not summarised:\n%s", text)
	}
	h.git("", "commit", "-qam", "second")
	h.golden("diff_range.txt", h.mustOp("git_diff", map[string]any{"ref": "HEAD~1..HEAD", "context": 0}))
	if text := h.mustOp("git_diff", map[string]any{"paths": []string{"b.txt"}}); !strings.HasPrefix(text, "no changes") {
		t.Errorf("a clean path shows changes:\n%s", text)
	}
	h.write("c.txt", "untracked\n")
	if text := h.mustOp("git_diff", nil); !strings.Contains(text, "1 untracked") {
		t.Errorf("an empty diff does not mention the untracked file:\n%s", text)
	}

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

func TestBuildGitLogShowBlame(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.write("a.txt", "one\nTWO\nthree\nfour\n")
	h.git("", "commit", "-qam", "second\n\nWith a body\nof two lines.")
	h.git("", "tag", "v1")
	t.Setenv("GIT_AUTHOR_NAME", "Other")
	h.write("b.bin", "\x00\x01")
	h.write("dir/c.txt", "c\n")
	h.git("", "add", ".")
	h.git("", "commit", "-qm", "third by other")
	h.golden("log.txt", h.mustOp("git_log", nil))
	h.golden("log_full_limit.txt", h.mustOp("git_log", map[string]any{"full": true, "limit": 2}))
	if text := h.mustOp("git_log", map[string]any{"author": "Other"}); strings.Count(text, "\n") != 0 || !strings.Contains(text, "third by other") {
		t.Errorf("git_log author=Other:\n%s", text)
	}
	if text := h.mustOp("git_log", map[string]any{"paths": []string{"a.txt"}, "ref": "v1"}); strings.Count(text, "\n") != 1 {
		t.Errorf("git_log of a.txt up to v1:\n%s", text)
	}
	if text := h.mustOp("git_log", map[string]any{"since": "2030-01-01"}); text != "no commits match" {
		t.Errorf("git_log since the future:\n%s", text)
	}
	h.golden("show_commit.txt", h.mustOp("git_show", map[string]any{"ref": "v1"}))
	h.golden("show_stat.txt", h.mustOp("git_show", map[string]any{"stat_only": true}))
	if text := h.mustOp("git_show", map[string]any{"ref": "v1:a.txt"}); text != "one\nTWO\nthree\nfour\n" {
		t.Errorf("git_show v1:a.txt = %q", text)
	}
	if text := h.mustOp("git_show", map[string]any{"ref": "HEAD:b.bin"}); text != "HEAD:b.bin: binary file, 2 bytes (not shown)" {
		t.Errorf("git_show of a binary file = %q", text)
	}
	if text := h.mustOp("git_show", map[string]any{"ref": "HEAD:dir"}); !strings.Contains(text, "c.txt") {
		t.Errorf("git_show of a directory = %q", text)
	}
	for _, ref := range []string{"HEAD:missing.txt", "nope", "nope:a.txt", "-p:a.txt"} {
		text := h.errOp("git_show", map[string]any{"ref": ref})
		if !strings.Contains(text, "parameter: ref") {
			t.Errorf("git_show %q:\n%s", ref, text)
		}
	}
	h.golden("blame.txt", h.mustOp("git_blame", map[string]any{"paths": []string{"a.txt"}, "start_line": 2, "end_line": 40}))
	if text := h.mustOp("git_blame", map[string]any{"paths": "a.txt", "ref": "HEAD~2"}); !strings.Contains(text, "first commit") || strings.Contains(text, "second") {
		t.Errorf("git_blame at the first commit:\n%s", text)
	}
	h.write("a.txt", "one\nTWO\nthree\nfour\nfive\n")
	if text := h.mustOp("git_blame", map[string]any{"paths": "a.txt", "start_line": 5}); !strings.Contains(text, "not committed yet") {
		t.Errorf("git_blame of an uncommitted line:\n%s", text)
	}
	if text := h.errOp("git_blame", map[string]any{"paths": []string{"a.txt", "b.bin"}}); !strings.Contains(text, "exactly one file") {
		t.Errorf("git_blame of two files:\n%s", text)
	}
	if text := h.errOp("git_blame", map[string]any{"paths": "nope.txt"}); !strings.Contains(text, "parameter: paths") {
		t.Errorf("git_blame of a missing file:\n%s", text)
	}
}

func TestBuildGitBranches(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.mustOp("git_branch", map[string]any{"action": "create", "name": "feature"})
	h.golden("branch_list.txt", h.mustOp("git_branch", nil))
	if text := h.errOp("git_branch", map[string]any{"action": "create", "name": "feature"}); !strings.Contains(text, "error exists") {
		t.Errorf("creating an existing branch:\n%s", text)
	}
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

func TestBuildGitStageCommit(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	// A repository without commits: stage, unstage, stage, commit the first commit.
	h.git("", "init", "-q", "-b", "main")
	h.write("a.txt", "a\n")
	h.write("b.txt", "b\n")
	if text := h.errOp("git_log", nil); !strings.Contains(text, "error no_commits") {
		t.Errorf("git_log without commits:\n%s", text)
	}
	if text := h.errOp("git_commit", map[string]any{"message": "empty"}); !strings.Contains(text, "error nothing_to_commit") {
		t.Errorf("commit with nothing staged:\n%s", text)
	}
	h.mustOp("git_stage", map[string]any{"paths": []string{"."}})
	if text := h.mustOp("git_diff", map[string]any{"staged": true, "stat_only": true}); !strings.Contains(text, "2 files changed, +2 -0") {
		t.Errorf("staged diff without commits:\n%s", text)
	}
	if text := h.mustOp("changed_files", nil); !strings.Contains(text, "no commits yet") || !strings.Contains(text, "A a.txt") {
		t.Errorf("changed_files without commits:\n%s", text)
	}
	if text := h.errOp("git_show", nil); !strings.Contains(text, "error no_commits") {
		t.Errorf("git_show without commits:\n%s", text)
	}
	h.golden("unstage_no_commits.txt", h.mustOp("git_unstage", map[string]any{"paths": "b.txt"}))
	h.golden("commit_first.txt", h.mustOp("git_commit", map[string]any{"message": "first\n\nbody"}))
	// A pre-commit hook runs; when it fails nothing is committed and its output is shown.
	hook := filepath.Join(h.wd, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho checking >&2\nif git diff --cached --name-only | grep -q bad; then echo 'bad.txt is not allowed' >&2; exit 1; fi\ntouch hook-ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write("bad.txt", "x\n")
	h.mustOp("git_stage", map[string]any{"paths": []string{"bad.txt"}})
	text := h.errOp("git_commit", map[string]any{"message": "with bad"})
	if !strings.Contains(text, "error hook_failed") || !strings.Contains(text, "bad.txt is not allowed") {
		t.Errorf("commit refused by the hook:\n%s", text)
	}
	h.mustOp("git_unstage", map[string]any{"paths": []string{"bad.txt"}})
	h.mustOp("git_stage", map[string]any{"paths": []string{"b.txt"}})
	text = h.mustOp("git_commit", map[string]any{"message": "second"})
	if !strings.Contains(text, "on main: second") || !strings.Contains(text, "hook output") || !strings.Contains(text, "checking") {
		t.Errorf("commit with a passing hook:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(h.wd, "hook-ran")); err != nil {
		t.Errorf("the pre-commit hook did not run: %v", err)
	}
	// Amending an unpushed commit works; the message may be kept.
	h.write("b.txt", "b2\n")
	h.mustOp("git_stage", map[string]any{"paths": "b.txt"})
	if text := h.mustOp("git_commit", map[string]any{"amend": true}); !strings.HasPrefix(text, "amended") || !strings.Contains(text, ": second") {
		t.Errorf("amend keeping the message:\n%s", text)
	}
	// Once the commit is on a remote-tracking branch, amending is refused.
	h.git("", "update-ref", "refs/remotes/origin/main", "HEAD")
	if text := h.errOp("git_commit", map[string]any{"amend": true, "message": "rewrite"}); !strings.Contains(text, "error already_pushed") || !strings.Contains(text, "origin/main") {
		t.Errorf("amend of a pushed commit:\n%s", text)
	}
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

func TestBuildChangedFiles(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.repo("")
	h.git("", "checkout", "-qb", "feature")
	h.write("added.txt", "a\n")
	h.git("", "add", ".")
	h.git("", "commit", "-qm", "add")
	h.git("", "mv", "a.txt", "renamed.txt")
	h.write("untracked.txt", "u\n")
	h.golden("changed_files.txt", h.mustOp("changed_files", nil))
	if text := h.mustOp("changed_files", map[string]any{"ref": "HEAD"}); strings.Contains(text, "added.txt") {
		t.Errorf("changed_files against HEAD lists a committed file:\n%s", text)
	}
	if text := h.errOp("changed_files", map[string]any{"ref": "nope"}); !strings.Contains(text, "error not_found") {
		t.Errorf("changed_files against a missing ref:\n%s", text)
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

func TestBuildGitResource(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	read := func() string {
		res, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: GitContextURI})
		if err != nil {
			t.Fatal(err)
		}
		return res.Contents[0].Text
	}
	if got := h.hs.normalize(read()); got != "not a git repository: $WD" {
		t.Errorf("resource outside a repository = %q", got)
	}
	h.repo("")
	h.write("new.txt", "n\n")
	h.golden("resource.txt", read())
}
