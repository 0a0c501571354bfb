package consolidated

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"toolhost/authz"
	"toolhost/internal/git"
)

// readRepo opens the repository a read operation names and resolves its paths against it. An
// operation that shows file contents (a diff, a blame) has each named path pass the guard; one
// that shows only names (status, log, changed files) opens the repository for names only.
func (b *buildTool) readRepo(ctx context.Context, c *Call, repoArg string, paths []string, contents bool) (*git.Repo, []string, error) {
	repo, err := b.repoFor(ctx, c, repoArg, authz.ClassRead, !contents)
	if err != nil {
		return nil, nil, err
	}
	rel, err := b.relPaths(ctx, c, repo, paths, contents)
	if err != nil {
		return nil, nil, err
	}
	return repo, rel, nil
}

func (b *buildTool) status(ctx context.Context, c *Call, a *gitStatusArgs) (*Result, error) {
	repo, paths, err := b.readRepo(ctx, c, a.Repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	st, err := repo.Status(ctx, paths)
	if err != nil {
		return nil, gitError(err, "repo")
	}
	return &Result{Text: git.RenderStatus(st, git.RenderOptions{State: repo.State(), Shallow: repo.Shallow})}, nil
}

// diffRange resolves a ref argument for a diff or a log: empty is nil (a diff compares with the
// index, or HEAD when staged), one ref compares the work tree (or index) with it, A..B compares
// two commits.
func diffRange(ctx context.Context, repo *git.Repo, ref string) (*git.Range, error) {
	if ref == "" {
		return nil, nil
	}
	r, err := repo.ResolveRange(ctx, ref)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	return &r, nil
}

func (b *buildTool) diff(ctx context.Context, c *Call, a *gitDiffArgs) (*Result, error) {
	repo, paths, err := b.readRepo(ctx, c, a.Repo, a.Paths, true)
	if err != nil {
		return nil, err
	}
	rng, err := diffRange(ctx, repo, a.Ref)
	if err != nil {
		return nil, err
	}
	o := git.DiffOptions{Staged: a.Staged, Range: rng, Paths: paths, Context: contextLines(a.Context)}
	what := diffWhat(a.Staged, a.Ref)
	stats, err := repo.NumStat(ctx, o)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	if len(stats) == 0 {
		return Text("no changes (%s)%s", what, diffHint(ctx, repo, a.Staged, a.Ref)), nil
	}
	withheld := 0
	if len(paths) == 0 {
		// Named paths passed the guard above; a whole diff is screened file by file.
		if stats, o.Paths, withheld, err = b.screenDiff(ctx, c, repo, stats); err != nil {
			return nil, err
		}
		if withheld > 0 {
			what += "; " + withheldNote(withheld, "name one in paths to see why")
		}
		if len(stats) == 0 {
			return Text("%s", what), nil
		}
	}
	if a.StatOnly {
		return Text("%s\n%s", what, git.RenderStat(stats, 0)), nil
	}
	text, truncated, err := repo.Diff(ctx, o)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	return diffResult(c, what, stats, text, truncated), nil
}

// screenDiff keeps, of a whole diff's files, those a direct read would show: git reads the work
// tree and history itself, outside the guard, so a changed file that read_file refuses (toolhost's
// own config, a secret, a file hard-linked outside) would otherwise show up in the diff. It returns
// the files kept, the paths that limit the diff to them (nil when none was withheld), and how
// many were withheld.
func (b *buildTool) screenDiff(ctx context.Context, c *Call, repo *git.Repo, stats []git.FileStat) ([]git.FileStat, []string, int, error) {
	var (
		kept     []git.FileStat
		paths    []string
		withheld int
		linked   = map[string]bool{}
	)
	for _, s := range stats {
		ok := true
		for _, p := range []string{s.Path, s.Orig} {
			if p == "" || !ok {
				continue
			}
			refusal, err := b.screenPath(ctx, c, repo, p, false, "paths", linked)
			if err != nil {
				return nil, nil, 0, err
			}
			ok = refusal == nil
		}
		if !ok {
			withheld++
			continue
		}
		kept = append(kept, s)
		paths = append(paths, s.Path)
		if s.Orig != "" {
			paths = append(paths, s.Orig)
		}
	}
	if withheld == 0 {
		return stats, nil, 0, nil
	}
	return kept, paths, withheld, nil
}

// withheldNote says how many changed files a screen left out; how tells the model how to learn
// why.
func withheldNote(n int, how string) string {
	return fmt.Sprintf("%d changed file(s) withheld (credentials, toolhost state or files linked outside; %s)", n, how)
}

// screenPath decides whether a direct read would show rel, a repository path whose contents (or,
// with namesOnly, listing) git is about to show: refusal is what to answer for param when not,
// err a failure of the guard itself. The guard decides on the work tree as it is now; history
// can hold a directory where the work tree now has a symbolic link, and there the guard would
// decide on another place than the one git reads, so a path below a linked directory is refused
// too. linked caches that answer per directory.
func (b *buildTool) screenPath(ctx context.Context, c *Call, repo *git.Repo, rel string, namesOnly bool, param string, linked map[string]bool) (refusal *ToolError, err error) {
	full := repo.Top + "/" + rel
	_, err = b.cfg.Guard.Check(ctx, authz.Request{Conversation: c.Conversation, Tool: buildToolName, Operation: c.Operation,
		Class: authz.ClassRead, Path: full, NamesOnly: namesOnly})
	if _, denied := authz.AsDenial(err); denied {
		var te *ToolError
		errors.As(GuardError(err, param), &te)
		return te, nil
	} else if err != nil {
		return nil, err
	}
	dir := filepath.Dir(full)
	if dir == repo.Top {
		return nil, nil
	}
	isLinked, seen := linked[dir]
	if !seen {
		real, err := b.cfg.Guard.Canonical(dir)
		isLinked = err != nil || real != dir
		if linked != nil {
			linked[dir] = isLinked
		}
	}
	if isLinked {
		return &ToolError{Code: CodeInvalidPath, Param: param,
			Message: fmt.Sprintf("%s lies below %s, which is a symbolic link in the work tree now: what git shows there is not what a direct read would", rel, dir),
			Next:    "read the file in the work tree with the file_operations tool"}, nil
	}
	return nil, nil
}

// diffResult is a diff under a line that says what it compares; a diff larger than the budget
// starts with its diffstat, so the list of files survives the cut.
func diffResult(c *Call, what string, stats []git.FileStat, text []byte, truncated bool) *Result {
	var b strings.Builder
	if what != "" {
		b.WriteString(what + "\n")
	}
	if len(stats) > 0 && len(text)+len(what) > c.BudgetBytes() {
		b.WriteString(git.RenderStat(stats, 200) + "\n\n")
	}
	b.Write(text)
	if truncated {
		fmt.Fprintf(&b, "\n[diff stopped at %d MiB; pass paths to see the rest]\n", len(text)>>20)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n")}
}

func diffWhat(staged bool, ref string) string {
	switch {
	case strings.Contains(ref, ".."):
		return "diff " + ref
	case ref != "" && staged:
		return "diff of the index against " + ref
	case ref != "":
		return "diff of the work tree against " + ref
	case staged:
		return "staged changes (index against HEAD)"
	}
	return "unstaged changes (work tree against the index)"
}

// diffHint points an empty diff at the comparison the model probably wanted.
func diffHint(ctx context.Context, repo *git.Repo, staged bool, ref string) string {
	if ref != "" {
		return ""
	}
	st, err := repo.Status(ctx, nil)
	if err != nil {
		return ""
	}
	s, u, n, _ := st.Counts()
	switch {
	case !staged && s > 0:
		return fmt.Sprintf("; %d staged: staged=true shows them", s)
	case staged && u > 0:
		return fmt.Sprintf("; %d unstaged: staged=false shows them", u)
	case n > 0:
		return fmt.Sprintf("; %d untracked (git_status lists them)", n)
	}
	return ""
}

// contextLines maps the context argument: 0 (omitted) is git's default.
func contextLines(n int) int {
	if n <= 0 {
		return -1
	}
	return min(n, 1000)
}

func (b *buildTool) log(ctx context.Context, c *Call, a *gitLogArgs) (*Result, error) {
	repo, paths, err := b.readRepo(ctx, c, a.Repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	if a.Limit < 0 || a.Limit > 1000 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "limit", Message: "limit must be 1-1000"}
	}
	rng, err := diffRange(ctx, repo, a.Ref)
	if err != nil {
		return nil, err
	}
	if rng == nil && !repo.HasCommits(ctx) {
		return nil, gitError(git.ErrNoCommits, "ref")
	}
	cs, err := repo.Log(ctx, git.LogOptions{Range: rng, Paths: paths, Author: a.Author, Since: a.Since, Limit: a.Limit, Full: a.Full})
	if err != nil {
		return nil, gitError(err, "ref")
	}
	text := git.RenderLog(cs, a.Full)
	if repo.Shallow && !a.Full {
		text += "\n(shallow clone: older history is missing)"
	}
	return &Result{Text: text}, nil
}

func (b *buildTool) show(ctx context.Context, c *Call, a *gitShowArgs) (*Result, error) {
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassRead, false)
	if err != nil {
		return nil, err
	}
	ref := a.Ref
	if ref == "" {
		ref = "HEAD"
	}
	id, err := repo.Resolve(ctx, ref)
	if err == nil {
		return b.showCommit(ctx, c, repo, id, a)
	} else if !strings.Contains(ref, ":") {
		return nil, gitError(err, "ref")
	}
	// REV:path
	if strings.HasPrefix(ref, ":") {
		ref = "HEAD" + ref // ":path" is the index in git; keep it simple and read HEAD's version
	}
	id, typ, err := repo.ResolveObject(ctx, ref)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	// git reads the object itself: it is shown only if a direct read of its path would be, and
	// every path the name could mean passes, whichever colon git split it at.
	for _, p := range git.ObjectPaths(ref) {
		if p == "" {
			continue // the root tree: the repository passed the guard
		}
		if refusal, err := b.screenPath(ctx, c, repo, p, typ == "tree", "ref", nil); err != nil {
			return nil, err
		} else if refusal != nil {
			return nil, refusal
		}
	}
	blob, err := repo.ReadObject(ctx, id, typ)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	switch {
	case blob.Binary:
		return Text("%s: binary file, %d bytes (not shown)", ref, blob.Size), nil
	case typ == "tree":
		return Text("%s/ (directory):\n%s", strings.TrimSuffix(ref, "/"), strings.TrimRight(string(blob.Text), "\n")), nil
	}
	return &Result{Text: string(blob.Text)}, nil
}

// showCommit shows a commit: its message and, unless stat_only, its patch. As in git_diff, the
// files a direct read refuses are left out, and a line says how many.
func (b *buildTool) showCommit(ctx context.Context, c *Call, repo *git.Repo, id string, a *gitShowArgs) (*Result, error) {
	const how = "show one as REV:path to see why"
	if a.StatOnly {
		cs, err := repo.Log(ctx, git.LogOptions{Range: &git.Range{To: id}, Limit: 1, Full: true})
		if err != nil {
			return nil, gitError(err, "ref")
		}
		stats, err := repo.NumStat(ctx, git.DiffOptions{Range: &git.Range{From: id + "^", To: id}, Context: -1})
		if err != nil {
			// A root commit has no parent to compare with: every file is new.
			if stats, err = repo.CommitFiles(ctx, id); err != nil {
				return nil, gitError(err, "ref")
			}
		}
		stats, _, withheld, err := b.screenDiff(ctx, c, repo, stats)
		if err != nil {
			return nil, err
		}
		text := git.RenderLog(cs, true) + "\n\n" + git.RenderStat(stats, 0)
		if withheld > 0 {
			text += "\n" + withheldNote(withheld, how)
		}
		return &Result{Text: text}, nil
	}
	// Every file the patch can show, against each parent of a merge.
	files, err := repo.CommitFiles(ctx, id)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	_, paths, withheld, err := b.screenDiff(ctx, c, repo, files)
	if err != nil {
		return nil, err
	}
	note := ""
	if withheld > 0 {
		note = withheldNote(withheld, how)
	}
	text, truncated, err := repo.Show(ctx, id, git.ShowOptions{Context: contextLines(a.Context), Only: withheld > 0, Paths: paths})
	if err != nil {
		return nil, gitError(err, "ref")
	}
	return diffResult(c, note, nil, text, truncated), nil
}

func (b *buildTool) blame(ctx context.Context, c *Call, a *gitBlameArgs) (*Result, error) {
	if len(a.Paths) != 1 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "paths", Message: "git_blame takes exactly one file"}
	}
	repo, paths, err := b.readRepo(ctx, c, a.Repo, a.Paths, true)
	if err != nil {
		return nil, err
	}
	if a.StartLine < 0 || a.EndLine < 0 || (a.EndLine > 0 && a.StartLine > a.EndLine) {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "start_line, end_line", Message: "lines are 1-based and start_line <= end_line"}
	}
	rev := ""
	if a.Ref != "" {
		if rev, err = repo.Resolve(ctx, a.Ref); err != nil {
			return nil, gitError(err, "ref")
		}
	}
	lines, err := repo.Blame(ctx, git.BlameOptions{Path: paths[0], Rev: rev, Start: a.StartLine, End: a.EndLine})
	if err != nil {
		return nil, gitError(err, "paths")
	}
	return &Result{Text: git.RenderBlame(lines)}, nil
}

func (b *buildTool) changed(ctx context.Context, c *Call, a *changedFilesArgs) (*Result, error) {
	repo, paths, err := b.readRepo(ctx, c, a.Repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	base, baseRef := "", ""
	if repo.HasCommits(ctx) {
		head, err := repo.Resolve(ctx, "HEAD")
		if err != nil {
			return nil, gitError(err, "ref")
		}
		baseRef = a.Ref
		var other string
		if baseRef != "" {
			if other, err = repo.Resolve(ctx, baseRef); err != nil {
				return nil, gitError(err, "ref")
			}
		} else {
			for _, cand := range []string{"@{upstream}", "origin/HEAD", "main", "master", "origin/main", "origin/master"} {
				if id, err := repo.Resolve(ctx, cand); err == nil {
					other, baseRef = id, cand
					break
				}
			}
			if other == "" {
				other, baseRef = head, "HEAD"
			}
		}
		if base, err = repo.MergeBase(ctx, head, other); err != nil {
			return nil, gitError(err, "ref")
		}
	}
	ch, err := repo.ChangedFiles(ctx, base, paths)
	if err != nil {
		return nil, gitError(err, "ref")
	}
	ch.BaseRef = baseRef
	return &Result{Text: git.RenderChanged(ch, 0)}, nil
}
