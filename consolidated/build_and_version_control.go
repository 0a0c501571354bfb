package consolidated

import (
	"context"
	"os"
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
	// Gate gives the Landlock policy of a conversation's processes started now (nil when
	// they run unconfined). Every git process runs under it, since git runs what the
	// repository configures (hooks, core.fsmonitor, filters, textconv) and a terminal can
	// plant those; a write widens it to the repository the guard approved. An error wrapping
	// sandbox.ErrUnavailable refuses git as it refuses terminals. Nil runs git unconfined.
	Gate PolicyGate
}

// PolicyGate gives the Landlock policy of a conversation's processes started now (nil:
// unconfined); internal/gate's Gate is the one toolhost uses.
type PolicyGate interface {
	Policy(ctx context.Context, conv string) (*sandbox.Policy, error)
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
		Op("git_commit", "hooks run; amend if unpushed", RiskWrite, b.commit),
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
		Name:  buildToolName,
		Title: "Git and builds",
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
// BuildConfig.Gate); for a write it is widened to the root and the common git directory the
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
	if b.cfg.Gate == nil {
		return nil, nil
	}
	p, err := b.cfg.Gate.Policy(ctx, conv)
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
