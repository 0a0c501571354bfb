package consolidated

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"toolhost/authz"
	"toolhost/internal/edit"
	"toolhost/internal/fsread"
)

var fileBoolType = reflect.TypeFor[bool]()

// The ways a file operation opens a path through the guard. Each names the argument the path
// came from (param), so that a refusal points the model at it, and carries the call's
// conversation, operation and names-only flag (Call.GuardRequest).

// openRead opens a path to read: a file, or a directory to list or search.
func (f *fileTool) openRead(ctx context.Context, c *Call, p, param string) (*authz.Target, error) {
	return f.open(ctx, c.GuardRequest(authz.ClassRead, p), param)
}

// openWrite opens a path to create or change in place: a file's content, a new directory.
func (f *fileTool) openWrite(ctx context.Context, c *Call, p, param string) (*authz.Target, error) {
	return f.open(ctx, c.GuardRequest(authz.ClassWrite, p), param)
}

// openDelete opens a path to delete: a final symlink is the link itself, and the working
// directory itself is refused.
func (f *fileTool) openDelete(ctx context.Context, c *Call, p, param string) (*authz.Target, error) {
	r := c.GuardRequest(authz.ClassWrite, p)
	r.Delete = true
	return f.open(ctx, r, param)
}

// openMove opens one end of a rename (check both): like openDelete, the link itself moves.
func (f *fileTool) openMove(ctx context.Context, c *Call, p, param string) (*authz.Target, error) {
	r := c.GuardRequest(authz.ClassWrite, p)
	r.Rename = true
	return f.open(ctx, r, param)
}

// open asks the guard for r. Refusals become the model-fixable error that carries the
// user_collaboration call. A file a walk below the target may not read is one read_file can
// read with a grant naming it: its refusal asks for that.
func (f *fileTool) open(ctx context.Context, r authz.Request, param string) (*authz.Target, error) {
	r.ReadAccess = r.Tool + ".read_file"
	t, err := f.guard.Open(ctx, r)
	if err != nil {
		return nil, GuardError(err, param)
	}
	return t, nil
}

// targetRootDir is the directory a target's Root handle is opened at.
func targetRootDir(t *authz.Target) string {
	rel := path.Clean(t.Rel)
	if rel == "." {
		return t.Canonical
	}
	dir := strings.TrimSuffix(t.Canonical, string(filepath.Separator)+filepath.FromSlash(rel))
	if dir == "" {
		return string(filepath.Separator) // a root at /, for /etc and the like
	}
	return dir
}

// display is how a path under t's root is shown to the model: relative to the working directory
// when it is inside, else absolute, so it can be passed back as is.
func (f *fileTool) display(t *authz.Target, rel string) string {
	if t.Root == f.guard.Root() {
		return path.Clean(rel)
	}
	return filepath.Join(targetRootDir(t), filepath.FromSlash(rel))
}

// fileCanonical is the canonical path of rel under t's root: the key of the stale-write memory.
func fileCanonical(t *authz.Target, rel string) string {
	return filepath.Join(targetRootDir(t), filepath.FromSlash(rel))
}

// fileSet is the targets of a multi-file edit, which the engines run on one root. Files under
// different roots (the working directory and a granted outside directory, say) cannot be
// written all or nothing, so they are refused before anything is written.
type fileSet struct {
	root    *os.Root
	dir     string
	targets []*authz.Target
}

func (s *fileSet) add(t *authz.Target, param string) error {
	if s.root == nil {
		s.root, s.dir = t.Root, targetRootDir(t)
	}
	s.targets = append(s.targets, t)
	if d := targetRootDir(t); d != s.dir {
		return &ToolError{Code: CodeMultipleRoots, Param: param,
			Message: fmt.Sprintf("the files are under different roots (%s and %s), which cannot be written all or nothing", s.dir, d),
			Next:    "split the change into one call per directory tree"}
	}
	return nil
}

func (s *fileSet) close() {
	for _, t := range s.targets {
		t.Close()
	}
}

// readMemo remembers, per conversation and canonical path, the fingerprint of the content the
// model last saw: what read_file returned or what toolhost itself wrote. Edits pass it to the
// engine, which refuses to edit a file that changed behind the model's back. It is bounded (LRU);
// a forgotten file is simply edited unchecked.
type readMemo struct {
	mu  sync.Mutex
	max int
	m   map[memoKey]*list.Element
	lru *list.List
}

type memoKey struct{ conv, path string }

type memoEntry struct {
	key memoKey
	fp  edit.Fingerprint
}

func newReadMemo(max int) *readMemo {
	return &readMemo{max: max, m: map[memoKey]*list.Element{}, lru: list.New()}
}

func (r *readMemo) get(conv, p string) (edit.Fingerprint, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.m[memoKey{conv, p}]; ok {
		r.lru.MoveToFront(el)
		return el.Value.(*memoEntry).fp, true
	}
	return edit.Fingerprint{}, false
}

func (r *readMemo) put(conv, p string, fp edit.Fingerprint) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := memoKey{conv, p}
	if el, ok := r.m[k]; ok {
		el.Value.(*memoEntry).fp = fp
		r.lru.MoveToFront(el)
		return
	}
	r.m[k] = r.lru.PushFront(&memoEntry{k, fp})
	for r.lru.Len() > r.max {
		old := r.lru.Back()
		r.lru.Remove(old)
		delete(r.m, old.Value.(*memoEntry).key)
	}
}

func (r *readMemo) forget(conv, p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.m[memoKey{conv, p}]; ok {
		r.lru.Remove(el)
		delete(r.m, memoKey{conv, p})
	}
}

// forgetUnder drops p and everything below it, after a directory was deleted or moved.
func (r *readMemo) forgetUnder(conv, p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prefix := strings.TrimSuffix(p, string(filepath.Separator)) + string(filepath.Separator)
	for k, el := range r.m {
		if k.conv == conv && (k.path == p || strings.HasPrefix(k.path, prefix)) {
			r.lru.Remove(el)
			delete(r.m, k)
		}
	}
}

// fingerprintOfRead is the edit engine's fingerprint of the version read_file returned.
func fingerprintOfRead(r fsread.ReadResult) edit.Fingerprint {
	return edit.Fingerprint{Size: r.Size, ModTime: r.ModTime, SHA256: r.SHA256}
}

// expect collects the remembered fingerprints of the files a write will touch, keyed the way the
// engine wants them (clean paths relative to the root).
func (f *fileTool) expect(conv string, t *authz.Target, rels ...string) map[string]edit.Fingerprint {
	var m map[string]edit.Fingerprint
	for _, rel := range rels {
		if fp, ok := f.seen.get(conv, fileCanonical(t, rel)); ok {
			if m == nil {
				m = map[string]edit.Fingerprint{}
			}
			m[path.Clean(rel)] = fp
		}
	}
	return m
}

// options are the engine options of a write by c to the files rels under t's root.
func (f *fileTool) options(c *Call, t *authz.Target, dryRun bool, rels ...string) edit.Options {
	return edit.Options{DryRun: dryRun, Expect: f.expect(c.Conversation, t, rels...), Journal: f.journal}
}

// remember records what toolhost just wrote, so the model's next edit of the file passes the
// stale check (it saw the diff) while a change made by someone else in between does not.
func (f *fileTool) remember(c *Call, t *authz.Target, files []edit.FileSummary) {
	for _, s := range files {
		switch s.Op {
		case edit.OpDelete:
			f.seen.forgetUnder(c.Conversation, fileCanonical(t, s.Path))
		case edit.OpMove:
			f.seen.forgetUnder(c.Conversation, fileCanonical(t, s.Path))
			f.rememberFile(c, t, s.NewPath)
		default:
			if !strings.HasSuffix(s.Path, "/") {
				f.rememberFile(c, t, s.Path)
			}
		}
	}
}

func (f *fileTool) rememberFile(c *Call, t *authz.Target, rel string) {
	key := fileCanonical(t, rel)
	fp, err := edit.FingerprintFile(t.Root, rel)
	if err != nil {
		// A directory (moved), a huge file: nothing to compare against later.
		f.seen.forget(c.Conversation, key)
		return
	}
	f.seen.put(c.Conversation, key, fp)
}

// readError maps read_file failures to model-fixable errors.
func (f *fileTool) readError(t *authz.Target, given string, r fsread.ReadResult, err error) error {
	name := f.display(t, t.Rel)
	switch {
	case errors.Is(err, fsread.ErrIsDir):
		return &ToolError{Code: CodeIsDirectory, Param: "path", Message: name + " is a directory", Next: "use list_dir", Cause: err}
	case errors.Is(err, fsread.ErrPastEnd):
		msg := err.Error()
		if r.TotalLines >= 0 {
			msg = fmt.Sprintf("%s has %d lines; the requested start is past the end", name, r.TotalLines)
		}
		return &ToolError{Code: CodePastEnd, Param: "start_line", Message: msg, Cause: err}
	case errors.Is(err, fsread.ErrScanLimit):
		return &ToolError{Code: CodeTooLarge, Param: "start_line", Message: err.Error(),
			Next: "read a byte range with encoding base64 or hex and offset/limit", Cause: err}
	case errors.Is(err, fsread.ErrInvalidOptions):
		return &ToolError{Code: CodeInvalidValue, Message: strings.TrimSuffix(err.Error(), ": "+fsread.ErrInvalidOptions.Error()), Cause: err}
	}
	if _, ok := authz.AsDenial(err); ok {
		return GuardError(err, "path") // the screen refused the file that was opened
	}
	return f.fsError(name, given, err)
}

// searchError maps list_dir, file_search and grep_search failures.
func (f *fileTool) searchError(t *authz.Target, given string, err error) error {
	name := f.display(t, t.Rel)
	switch {
	case errors.Is(err, fsread.ErrNotDir):
		return &ToolError{Code: CodeNotDirectory, Param: "path", Message: name + " is a file, not a directory", Next: "use read_file, or pass its directory", Cause: err}
	case errors.Is(err, fsread.ErrBadPattern):
		return &ToolError{Code: CodeInvalidPattern, Param: "pattern", Message: err.Error(), Cause: err}
	case errors.Is(err, fsread.ErrInvalidOptions):
		return &ToolError{Code: CodeInvalidValue, Message: strings.TrimSuffix(err.Error(), ": "+fsread.ErrInvalidOptions.Error()), Cause: err}
	}
	return f.fsError(name, given, err)
}

// fsError maps the errors every file operation can meet. Anything not recognised stays internal.
func (f *fileTool) fsError(name, given string, err error) error {
	var te *ToolError
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, context.DeadlineExceeded):
		return &ToolError{Code: CodeTimeout, Message: "the operation did not finish in time", Next: "narrow the path or pattern", Cause: err}
	case errors.Is(err, context.Canceled):
		return &ToolError{Code: CodeCancelled, Message: "the call was cancelled", Cause: err}
	case errors.Is(err, fs.ErrNotExist):
		if name == "" || name == "." {
			name = given
		}
		return &ToolError{Code: CodeNotFound, Param: "path", Message: name + " does not exist", Next: "find it with file_search or list_dir", Cause: err}
	case errors.Is(err, fs.ErrPermission):
		return &ToolError{Code: CodePermissionDenied, Param: "path", Message: "the operating system denied access to " + name, Cause: err}
	case errors.Is(err, syscall.ENOTDIR):
		return &ToolError{Code: CodeNotDirectory, Param: "path", Message: "a parent of " + name + " is a file, not a directory", Cause: err}
	case errors.Is(err, fsread.ErrNotRegular), errors.Is(err, edit.ErrNotRegular):
		return &ToolError{Code: CodeNotRegular, Param: "path", Message: name + " is not a regular file", Cause: err}
	}
	return err
}

// editError maps the edit engine's typed errors, whose text is written for the model, to stable
// codes. param is the argument the failure is about. An engine error that knows the next step
// (a Next method) gives it.
func (f *fileTool) editError(name, param string, err error) error {
	out := f.editErrorCode(name, param, err)
	var te *ToolError
	var n interface{ Next() string }
	if errors.As(out, &te) && te.Next == "" && errors.As(err, &n) {
		te.Next = n.Next()
	}
	return out
}

func (f *fileTool) editErrorCode(name, param string, err error) error {
	var (
		me *edit.MatchError
		pe *edit.PatchError
		se *edit.StaleError
		ee *edit.EncodeError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &me):
		code := CodeNotFound
		switch {
		case errors.Is(me.Err, edit.ErrAmbiguous):
			code = CodeAmbiguous
		case errors.Is(me.Err, edit.ErrCountMismatch):
			code, param = CodeCountMismatch, "expected_replacements"
		}
		if me.FFFD > 0 {
			param = strings.Replace(param, "old_string", "new_string", 1)
		}
		return &ToolError{Code: code, Param: param, Message: msg, Next: me.Next(), Cause: err}
	case errors.As(err, &pe):
		code := CodeBadPatch
		switch {
		case errors.Is(pe.Err, edit.ErrNotFound), errors.Is(pe.Err, edit.ErrMissing):
			code = CodeNotFound
		case errors.Is(pe.Err, edit.ErrAmbiguous):
			code = CodeAmbiguous
		case errors.Is(pe.Err, edit.ErrConflict):
			code = CodeConflict
		case errors.Is(pe.Err, edit.ErrExists):
			code = CodeExists
		case errors.Is(pe.Err, edit.ErrInvalidPath):
			code = CodeInvalidPath
		}
		return &ToolError{Code: code, Param: "patch", Message: msg, Next: pe.Next(), Cause: err}
	case errors.As(err, &ee):
		// An edit the file's encoding cannot hold; the text names the file, line and character.
		return &ToolError{Code: CodeUnencodable, Param: param, Message: msg, Next: ee.Next(), Cause: err}
	case errors.As(err, &se):
		if se.Deleted {
			return &ToolError{Code: CodeStale, Param: "path", Message: msg, Next: "check with the user if unsure; a second create_file recreates it", Cause: err}
		}
		return &ToolError{Code: CodeStale, Param: param, Message: msg, Next: se.Next(), Cause: err}
	case errors.Is(err, edit.ErrConflict):
		return &ToolError{Code: CodeConflict, Param: param, Message: msg, Next: "read the file again; nothing was written", Cause: err}
	case errors.Is(err, edit.ErrExists):
		return &ToolError{Code: CodeExists, Param: param, Message: msg, Cause: err}
	case errors.Is(err, edit.ErrMissing):
		return &ToolError{Code: CodeNotFound, Param: "path", Message: msg, Next: "find it with file_search or list_dir", Cause: err}
	case errors.Is(err, edit.ErrInvalidPath):
		return &ToolError{Code: CodeInvalidPath, Param: param, Message: msg, Cause: err}
	case errors.Is(err, edit.ErrInvalidArgument):
		// The sentinel's own text only repeats the code.
		return &ToolError{Code: CodeInvalidValue, Param: param, Message: strings.TrimPrefix(msg, edit.ErrInvalidArgument.Error()+": "), Cause: err}
	case errors.Is(err, edit.ErrNoop):
		return &ToolError{Code: CodeNoChange, Param: param, Message: msg, Next: "the file already has this content", Cause: err}
	case errors.Is(err, edit.ErrTooLarge):
		return &ToolError{Code: CodeTooLarge, Param: "path", Message: msg, Next: "edit it with terminal tools (sed, a script)", Cause: err}
	case errors.Is(err, edit.ErrSymlinkLoop):
		return &ToolError{Code: CodeSymlinkLoop, Param: param, Message: msg, Cause: err}
	case errors.Is(err, edit.ErrNotFound):
		return &ToolError{Code: CodeNotFound, Param: param, Message: msg, Cause: err}
	case errors.Is(err, edit.ErrAmbiguous):
		return &ToolError{Code: CodeAmbiguous, Param: param, Message: msg, Cause: err}
	case errors.Is(err, edit.ErrBadPatch):
		return &ToolError{Code: CodeBadPatch, Param: "patch", Message: msg, Cause: err}
	}
	return f.fsError(name, name, err)
}

// suggest adds the nearest existing paths to a not_found error about a path the model gave
// (inside the working directory), so it can retry without a search: files with the same name
// elsewhere, else the most similar name in the same directory. Both lookups are bounded, skip dot
// files (where secrets live) and list the directory through the guard like any read.
func (f *fileTool) suggest(ctx context.Context, c *Call, err error, given string) error {
	var te *ToolError
	if !errors.As(err, &te) || te.Code != CodeNotFound || te.Param != "path" || given == "" {
		return err
	}
	canon, cerr := f.guard.Canonical(given)
	if cerr != nil {
		return err
	}
	rel, rerr := filepath.Rel(f.guard.WorkDir(), canon)
	if rerr != nil || rel == "." || strings.HasPrefix(rel, "..") {
		if strings.Contains(given, `\`) {
			te.Next = `separate directories with /; a \ is part of a file name here`
		}
		return te
	}
	rel = filepath.ToSlash(rel)
	dir, base := path.Split(rel)
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	var names []string
	if !strings.ContainsAny(base, "*?[]{}\\") && !strings.HasPrefix(base, ".") {
		r, _ := fsread.Glob(ctx, f.guard.Root(), ".", "**/"+base, fsread.GlobOptions{MaxResults: 3, SortBy: fsread.SortByPath, Screen: f.guard.WorkDirScreen()})
		for _, m := range r.Matches {
			names = append(names, m.Path)
		}
	}
	if len(names) == 0 {
		if t, oerr := f.openRead(ctx, c, filepath.Join(f.guard.WorkDir(), filepath.FromSlash(dir)), "path"); oerr == nil {
			r, _ := fsread.ListDir(ctx, t.Root, t.Rel, fsread.ListOptions{IncludeHidden: strings.HasPrefix(base, "."), Screen: t})
			t.Close()
			var cands []string
			for _, e := range r.Entries {
				cands = append(cands, path.Base(e.Path))
			}
			if n := nearest(base, cands); n != "" {
				names = append(names, path.Join(dir, n))
			}
		}
	}
	if len(names) > 0 {
		te.Next = "did you mean " + strings.Join(names, ", ") + "?"
	} else if strings.Contains(given, `\`) {
		// A Windows habit: here a backslash is part of the name, never a separator.
		te.Next = `separate directories with /; a \ is part of a file name here`
	}
	return te
}
