package consolidated

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"toolhost/authz"
	"toolhost/internal/git"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
)

// The argument structs. A parameter keeps one type across operations; its description is taken
// from the first operation that declares it (table order). Parameters several operations share
// are embedded structs, declared once.

// repoArg is the repository (or, for runs, the project directory) every operation works in.
type repoArg struct {
	Repo string `json:"repo,omitempty" alias:"dir,directory,cwd,project,repository" jsonschema:"Default: working dir."`
}

// pathsArg limits an operation to paths; optional where it is embedded.
type pathsArg struct {
	Paths []string `json:"paths,omitempty" alias:"path,file,files" jsonschema:"Repo-relative."`
}

// refArg names a commit, a range or a base.
type refArg struct {
	Ref string `json:"ref,omitempty" alias:"rev,revision,commit,range,base" jsonschema:"Ref or A..B."`
}

// runArgs bound a run, or continue one handed back earlier.
type runArgs struct {
	ID             string `json:"id,omitempty" alias:"session_id,handle" jsonschema:"Wait for this run."`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" alias:"timeout"`
}

type gitStatusArgs struct {
	repoArg
	pathsArg
}

type gitDiffArgs struct {
	repoArg
	pathsArg
	refArg
	Staged   bool `json:"staged,omitempty" alias:"cached"`
	StatOnly bool `json:"stat_only,omitempty" alias:"stat"`
	Context  int  `json:"context,omitempty" alias:"context_lines,unified"`
}

type gitLogArgs struct {
	repoArg
	pathsArg
	refArg
	Author string `json:"author,omitempty"`
	Since  string `json:"since,omitempty" alias:"after"`
	Limit  int    `json:"limit,omitempty" alias:"max_count,count,n"`
	Full   bool   `json:"full,omitempty" alias:"full_message,verbose"`
}

type gitShowArgs struct {
	repoArg
	refArg
	StatOnly bool `json:"stat_only,omitempty" alias:"stat"`
	Context  int  `json:"context,omitempty" alias:"context_lines,unified"`
}

type gitBlameArgs struct {
	repoArg
	Paths []string `json:"paths" alias:"path,file,files"`
	refArg
	StartLine int `json:"start_line,omitempty" alias:"start,from_line"`
	EndLine   int `json:"end_line,omitempty" alias:"end,to_line"`
}

type gitBranchArgs struct {
	repoArg
	Action string `json:"action,omitempty" enum:"list,create,switch"`
	Name   string `json:"name,omitempty" alias:"branch,task,runner" jsonschema:"Branch, task or test runner."`
	refArg
	Limit int `json:"limit,omitempty" alias:"max_count,count,n"`
}

type gitPathsArgs struct {
	repoArg
	Paths []string `json:"paths" alias:"path,file,files"`
}

type gitCommitArgs struct {
	repoArg
	Message string `json:"message,omitempty" alias:"msg,m,commit_message"`
	Amend   bool   `json:"amend,omitempty"`
	// TimeoutSeconds bounds the hooks (WithCallTimeout).
	TimeoutSeconds int `json:"timeout_seconds,omitempty" alias:"timeout"`
}

type changedFilesArgs struct {
	repoArg
	refArg
	pathsArg
}

type listTasksArgs struct {
	repoArg
}

type runTaskArgs struct {
	repoArg
	Name string `json:"name,omitempty" alias:"branch,task,runner"`
	runArgs
}

type runTestsArgs struct {
	repoArg
	Name string `json:"name,omitempty" alias:"branch,task,runner"`
	pathsArg
	Filter string `json:"filter,omitempty" alias:"pattern,run,test,k"`
	runArgs
}

type getErrorsArgs struct {
	repoArg
	pathsArg
	runArgs
}

// BuildConfig is what build_and_version_control needs from the wiring.
type BuildConfig struct {
	Git   *git.Runner
	Guard *authz.Guard
	// Terminal runs tasks, tests and checkers, with its yield, handles, tree kill, sandbox and
	// command rules.
	Terminal *terminal.Manager
	// DefaultYield and MaxWait are the terminal engine's (0 means its defaults of 15 s and 60 s).
	DefaultYield, MaxWait time.Duration
	// Workdir, when set, gets the git context resource (GitContextURI).
	Workdir string
	// Sandbox returns the Landlock policy of a conversation's terminal commands started now
	// (nil when they run unconfined). Every git process runs under it, since git runs what the
	// repository configures (hooks, core.fsmonitor, filters, textconv) and a terminal can plant
	// those; a write widens it to the repository the guard approved. An error wrapping
	// sandbox.ErrUnavailable refuses git as it refuses terminals. Nil runs git unconfined.
	Sandbox func(ctx context.Context, conv string) (*sandbox.Policy, error)
}

// buildToolName is the tool's name, also the Tool field of guard requests.
const buildToolName = "build_and_version_control"

// BuildTool is build_and_version_control: git through the git executable (never a remote), the
// project's tasks, and its tests and diagnostics parsed into compact results. Runs go through the
// terminal engine; one that outlives its yield is handed back as an id the same operation waits on.
func BuildTool(cfg BuildConfig) *Tool {
	if cfg.DefaultYield <= 0 {
		cfg.DefaultYield = 15 * time.Second
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 60 * time.Second
	}
	b := &buildTool{cfg: cfg, runs: map[runKey]*pendingRun{}}
	waiting := cfg.MaxWait + 30*time.Second
	// The lead names every operation; only those whose name does not say enough get a line.
	ops := []Operation{
		Op("git_status", "", RiskRead, b.status),
		Op("git_diff", "work tree, staged, or ref", RiskRead, b.diff),
		Op("git_log", "", RiskRead, b.log),
		Op("git_show", "commit or REV:path", RiskRead, b.show),
		Op("git_blame", "", RiskRead, b.blame),
		Op("git_branch", "list, create, switch", RiskWrite, b.branch),
		Op("git_stage", "", RiskWrite, b.stage),
		Op("git_unstage", "", RiskWrite, b.unstage),
		Op("git_commit", "hooks run; amend if unpushed", RiskWrite, b.commit).WithCallTimeout(),
		Op("changed_files", "vs merge base", RiskRead, b.changed),
		Op("list_tasks", "", RiskRead, b.listTasks),
		Op("run_task", "", RiskExecute, b.runTask).WithTimeout(waiting),
		Op("run_tests", "counts, file:line failures", RiskExecute, b.runTests).WithTimeout(waiting),
		Op("get_errors", "compiler/linter diagnostics", RiskExecute, b.getErrors).WithTimeout(waiting),
	}
	var res []Resource
	if cfg.Workdir != "" {
		res = append(res, gitContextResource(cfg.Git, cfg.Workdir, b.policy))
	}
	return &Tool{
		Name: buildToolName,
		// The operation list leads, for clients that show only the start of a description.
		Description: "Git and project builds: " + OperationsPlaceholder + ". No remote access (push, pull, fetch).",
		Operations:  ops,
		Resources:   res,
		Close:       b.close,
	}
}

type buildTool struct {
	cfg BuildConfig

	mu   sync.Mutex
	runs map[runKey]*pendingRun
}

// repoFor resolves the repo argument through the guard with the operation's class and opens the
// work tree that contains it. The root found must pass the guard too (a working directory inside
// a larger repository), and a write must be allowed where git writes: the root and, for a linked
// worktree, the common git directory.
//
// The repository's git processes run under the conversation's terminal policy (see
// BuildConfig.Sandbox); for a write it is widened to the root and the common git directory the
// guard just approved, so that git can write there, and what it runs can too, and nothing more.
func (b *buildTool) repoFor(ctx context.Context, c *Call, repoArg string, class authz.Class, namesOnly bool) (*git.Repo, error) {
	if b.cfg.Git == nil {
		return nil, gitError(git.ErrNoGit, "repo")
	}
	dir, err := b.check(ctx, c, repoArg, class, namesOnly)
	if err != nil {
		return nil, err
	}
	policy, err := b.policy(ctx, c.Conversation)
	if err != nil {
		return nil, err
	}
	repo, err := b.cfg.Git.Open(ctx, dir, policy)
	if err != nil {
		return nil, gitError(err, "repo")
	}
	if repo.Top != dir {
		if _, err := b.check(ctx, c, repo.Top, class, namesOnly); err != nil {
			return nil, err
		}
	}
	if class == authz.ClassWrite {
		if !within(repo.CommonDir, repo.Top) {
			if _, err := b.check(ctx, c, repo.CommonDir, class, false); err != nil {
				return nil, err
			}
		}
		repo = repo.Confined(policy.WithWritable(repo.Top, repo.CommonDir))
	}
	return repo, nil
}

// policy is the Landlock policy git runs under for conv (nil: unconfined); a sandbox that
// cannot be enforced refuses, as it refuses terminal commands.
func (b *buildTool) policy(ctx context.Context, conv string) (*sandbox.Policy, error) {
	if b.cfg.Sandbox == nil {
		return nil, nil
	}
	p, err := b.cfg.Sandbox(ctx, conv)
	if te := sandboxUnavailable(err); te != nil {
		return nil, te
	}
	return p, err
}

// check asks the guard about a directory and returns its canonical path; refusals, and paths
// that are not directories, blame repo.
func (b *buildTool) check(ctx context.Context, c *Call, path string, class authz.Class, namesOnly bool) (string, error) {
	d, err := b.cfg.Guard.Check(ctx, authz.Request{Conversation: c.Conversation, Tool: buildToolName, Operation: c.Operation,
		Class: class, Path: path, NamesOnly: namesOnly})
	if err != nil {
		return "", GuardError(err, "repo")
	}
	if fi, err := os.Stat(d.Canonical); err != nil || !fi.IsDir() {
		code := CodeNotFound
		if err == nil {
			code = CodeNotDirectory
		}
		return "", &ToolError{Code: code, Param: "repo", Message: d.Canonical + " is not a directory",
			Next: "omit repo for the working directory, or pass a directory inside it", Cause: err}
	}
	return d.Canonical, nil
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// relPaths turns paths into repository-relative ones; with check, each also passes the guard as a
// read (a diff or blame shows contents).
func (b *buildTool) relPaths(ctx context.Context, c *Call, repo *git.Repo, paths []string, check bool) ([]string, error) {
	rel, err := repo.RelPaths(paths)
	if err != nil {
		return nil, gitError(err, "paths")
	}
	if check {
		for _, p := range rel {
			if _, err := b.cfg.Guard.Check(ctx, authz.Request{Conversation: c.Conversation, Tool: buildToolName, Operation: c.Operation,
				Class: authz.ClassRead, Path: repo.Top + "/" + p}); err != nil {
				return nil, GuardError(err, "paths")
			}
		}
	}
	return rel, nil
}

func (b *buildTool) status(ctx context.Context, c *Call, a *gitStatusArgs) (*Result, error) {
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassRead, true)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	st, err := repo.Status(ctx, paths)
	if err != nil {
		return nil, gitError(err, "repo")
	}
	return &Result{Text: git.RenderStatus(st, git.RenderOptions{State: repo.State(), Shallow: repo.Shallow})}, nil
}

// diffRange resolves a ref argument for a diff: empty compares with the index (or HEAD when
// staged), one ref compares the work tree (or index) with it, A..B compares two commits.
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
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassRead, false)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, true)
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
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassRead, true)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	if a.Limit < 0 || a.Limit > 1000 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "limit", Message: "limit must be 1-1000"}
	}
	var rng *git.Range
	if a.Ref != "" {
		r, err := repo.ResolveRange(ctx, a.Ref)
		if err != nil {
			return nil, gitError(err, "ref")
		}
		rng = &r
	} else if !repo.HasCommits(ctx) {
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
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassRead, false)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, true)
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

func (b *buildTool) branch(ctx context.Context, c *Call, a *gitBranchArgs) (*Result, error) {
	class, names := authz.ClassWrite, false
	if a.Action == "" || a.Action == "list" {
		class, names = authz.ClassRead, true
	}
	repo, err := b.repoFor(ctx, c, a.Repo, class, names)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "", "list":
		bs, err := repo.Branches(ctx)
		if err != nil {
			return nil, gitError(err, "repo")
		}
		return &Result{Text: git.RenderBranches(bs, a.Limit)}, nil
	case "create":
		if a.Name == "" {
			return nil, &ToolError{Code: CodeMissingParameter, Param: "name", Message: "git_branch create needs name"}
		}
		start := "HEAD"
		if a.Ref != "" {
			start = a.Ref
		}
		id, err := repo.Resolve(ctx, start)
		if err != nil {
			return nil, gitError(err, "ref")
		}
		if err := repo.CreateBranch(ctx, a.Name, id); err != nil {
			return nil, gitError(err, "name")
		}
		return Text("created branch %s at %s (still on %s); git_branch action=switch name=%s switches to it", a.Name, shortID(id), orDetached(repo.CurrentBranch(ctx)), a.Name), nil
	case "switch":
		if a.Name == "" {
			return nil, &ToolError{Code: CodeMissingParameter, Param: "name", Message: "git_branch switch needs name"}
		}
		if err := repo.Switch(ctx, a.Name); err != nil {
			if errors.Is(err, git.ErrNoBranch) || errors.Is(err, git.ErrUnknownRevision) {
				return nil, b.noBranch(ctx, repo, a.Name)
			}
			return nil, gitError(err, "name")
		}
		st, err := repo.Status(ctx, nil)
		if err != nil {
			return nil, gitError(err, "repo")
		}
		return Text("switched to %s\n%s", a.Name, git.RenderStatus(st, git.RenderOptions{State: repo.State(), MaxPerSection: 20})), nil
	}
	return nil, &ToolError{Code: CodeInvalidValue, Param: "action", Message: "action must be list, create or switch"}
}

// noBranch explains a switch to something that is not a local or remote branch.
func (b *buildTool) noBranch(ctx context.Context, repo *git.Repo, name string) error {
	te := &ToolError{Code: CodeNotFound, Param: "name", Message: fmt.Sprintf("no branch %q", truncate(name, 80)),
		Next: "git_branch lists branches; action=create name=X ref=Y makes one"}
	if bs, err := repo.Branches(ctx); err == nil {
		names := make([]string, len(bs))
		for i, br := range bs {
			names[i] = br.Name
		}
		if n := nearest(name, names); n != "" {
			te.Next = "did you mean " + n + "? " + te.Next
		}
	}
	return te
}

func (b *buildTool) stage(ctx context.Context, c *Call, a *gitPathsArgs) (*Result, error) {
	return b.index(ctx, c, a, true)
}

func (b *buildTool) unstage(ctx context.Context, c *Call, a *gitPathsArgs) (*Result, error) {
	return b.index(ctx, c, a, false)
}

// index stages or unstages paths and answers with the staged list that results.
func (b *buildTool) index(ctx context.Context, c *Call, a *gitPathsArgs, add bool) (*Result, error) {
	if len(a.Paths) == 0 {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "paths", Message: c.Operation + " needs paths (\".\" for everything)"}
	}
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassWrite, false)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	if add {
		err = repo.Stage(ctx, paths)
	} else {
		err = repo.Unstage(ctx, paths)
	}
	if err != nil {
		return nil, gitError(err, "paths")
	}
	st, err := repo.Status(ctx, nil)
	if err != nil {
		return nil, gitError(err, "repo")
	}
	note := ""
	if add {
		// git add reads the files itself: what a direct read refuses must not reach the index,
		// where git_commit and git_show would reveal it.
		var refused []string
		for _, e := range st.Entries {
			if !e.Staged() || e.X == 'D' {
				continue
			}
			_, err := b.cfg.Guard.Check(ctx, authz.Request{Conversation: c.Conversation, Tool: buildToolName, Operation: c.Operation,
				Class: authz.ClassRead, Path: repo.Top + "/" + e.Path})
			if _, denied := authz.AsDenial(err); denied {
				refused = append(refused, e.Path)
			} else if err != nil {
				return nil, err
			}
		}
		if len(refused) > 0 {
			if err := repo.Unstage(ctx, refused); err != nil {
				return nil, gitError(err, "paths")
			}
			if st, err = repo.Status(ctx, nil); err != nil {
				return nil, gitError(err, "repo")
			}
			note = fmt.Sprintf("\nnot staged, a direct read refuses them (credentials, toolhost state or files linked outside): %s", strings.Join(refused, ", "))
		}
	}
	return &Result{Text: git.RenderStatus(st, git.RenderOptions{State: repo.State(), MaxPerSection: 50}) + note}, nil
}

func (b *buildTool) commit(ctx context.Context, c *Call, a *gitCommitArgs) (*Result, error) {
	if strings.TrimSpace(a.Message) == "" && !a.Amend {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "message", Message: "git_commit needs a message"}
	}
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassWrite, false)
	if err != nil {
		return nil, err
	}
	res, err := repo.Commit(ctx, git.CommitOptions{Message: a.Message, Amend: a.Amend})
	if err != nil {
		return nil, gitError(err, "message")
	}
	verb := "committed"
	if a.Amend {
		verb = "amended"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s on %s: %s\n%s", verb, res.Short, orDetached(res.Branch), res.Subject, git.RenderStat(res.Stats, 50))
	if res.HookOutput != "" {
		sb.WriteString("\n--- hook output ---\n" + lastLines(res.HookOutput, 20))
	}
	return &Result{Text: sb.String()}, nil
}

func (b *buildTool) changed(ctx context.Context, c *Call, a *changedFilesArgs) (*Result, error) {
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassRead, true)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, false)
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

// gitError turns the git engine's errors into ones the model can act on; param names the argument
// that most likely needs changing.
func gitError(err error, param string) error {
	var te *ToolError
	if errors.As(err, &te) || err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	var ge *git.Error
	if errors.As(err, &ge) {
		if m := ge.Message(6); m != "" {
			msg = m
		}
	}
	files := func() string {
		if ge == nil || len(ge.Files) == 0 {
			return ""
		}
		fs := ge.Files
		if len(fs) > 20 {
			fs = append(fs[:20:20], fmt.Sprintf("and %d more", len(ge.Files)-20))
		}
		return ": " + strings.Join(fs, ", ")
	}
	switch {
	case errors.Is(err, git.ErrNotRepository):
		return &ToolError{Cause: err, Code: CodeNotARepository, Param: "repo", Message: "not inside a git work tree",
			Next: "pass repo= a directory inside a repository (list_tasks, run_tests and get_errors work without one)"}
	case errors.Is(err, git.ErrNoCommits):
		return &ToolError{Cause: err, Code: CodeNoCommits, Param: param, Message: "the repository has no commits yet",
			Next: "git_stage files, then git_commit the first commit; git_status shows what is there"}
	case errors.Is(err, git.ErrInvalidRef):
		return &ToolError{Cause: err, Code: CodeInvalidValue, Param: param, Message: strings.TrimPrefix(err.Error(), "invalid ref: "),
			Next: "refs are names (main, v1.2, HEAD~2, abc1234, A..B); they may not start with '-'"}
	case errors.Is(err, git.ErrUnknownRevision):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: param, Message: msg, Next: "git_branch lists branches, git_log lists commits"}
	case errors.Is(err, git.ErrOutsideRepo):
		return &ToolError{Cause: err, Code: CodeOutsideRepository, Param: "paths", Message: strings.TrimPrefix(err.Error(), git.ErrOutsideRepo.Error()+": "),
			Next: "give paths relative to the repository root (as git_status shows them), or pass repo= the other repository"}
	case errors.Is(err, git.ErrPathspec):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: "paths", Message: msg, Next: "git_status lists changed and untracked files"}
	case errors.Is(err, git.ErrLocalChanges):
		return &ToolError{Cause: err, Code: CodeLocalChanges, Param: param, Message: "switching would overwrite uncommitted changes" + files(),
			Next: "git_commit the changes first, or stash them (the terminal_operations tool's run_command \"git stash\"); nothing was changed"}
	case errors.Is(err, git.ErrUnmerged):
		return &ToolError{Cause: err, Code: CodeUnresolvedConflicts, Param: param, Message: "unresolved merge conflicts" + files(),
			Next: "edit the conflicted files, git_stage them, then git_commit; git_status lists them"}
	case errors.Is(err, git.ErrNothingToCommit):
		return &ToolError{Cause: err, Code: CodeNothingToCommit, Param: param, Message: "nothing is staged",
			Next: "git_stage paths first; git_status shows what changed"}
	case errors.Is(err, git.ErrPushed):
		return &ToolError{Cause: err, Code: CodeAlreadyPushed, Param: "amend", Message: msg, Next: "make a new commit instead (amend=false)"}
	case errors.Is(err, git.ErrNoIdentity):
		return &ToolError{Cause: err, Code: CodeNoIdentity, Param: param, Message: "git has no author name and email",
			Next: "ask the user to set them: git config --global user.name NAME; git config --global user.email EMAIL"}
	case errors.Is(err, git.ErrBranchExists):
		return &ToolError{Cause: err, Code: CodeExists, Param: "name", Message: msg, Next: "pick another name, or action=switch to use it"}
	case errors.Is(err, git.ErrNoBranch):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: "name", Message: msg, Next: "git_branch lists branches; action=create name=X ref=Y makes one"}
	case errors.Is(err, git.ErrHook):
		out := msg
		if ge != nil {
			out = lastLines(ge.Stderr, 40)
		}
		return &ToolError{Cause: err, Code: CodeHookFailed, Param: param, Message: "a git hook refused the commit; nothing was committed:\n" + out,
			Next: "fix what the hook reports, git_stage the fixes, and commit again"}
	case errors.Is(err, sandbox.ErrUnavailable):
		return sandboxUnavailable(err)
	case errors.Is(err, git.ErrNoGit):
		return &ToolError{Cause: err, Code: CodeUnavailable, Message: "git is not installed on this machine"}
	case ge != nil:
		return &ToolError{Cause: err, Code: CodeGitFailed, Param: param, Message: msg}
	}
	return err
}

func shortID(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

func orDetached(branch string) string {
	if branch == "" {
		return "detached HEAD"
	}
	return branch
}

// lastLines keeps the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines above]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
