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

// open asks the guard for one path of this call. Refusals become the model-fixable error that
// carries the user_collaboration call; param names the argument the path came from.
func (f *fileTool) open(ctx context.Context, c *Call, class authz.Class, p, param string, del, rename bool) (*authz.Target, error) {
	t, err := f.guard.Open(ctx, authz.Request{
		Conversation: c.Conversation, Tool: c.Tool, Operation: c.Operation, Class: class,
		Path: p, Delete: del, Rename: rename,
	})
	if err != nil {
		err = GuardError(err)
		var te *ToolError
		if errors.As(err, &te) && te.Param == "path" {
			te.Param = param
		}
		return nil, err
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
		return &ToolError{Code: "multiple_roots", Param: param,
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
		return &ToolError{Code: "is_directory", Param: "path", Message: name + " is a directory", Next: "use list_dir"}
	case errors.Is(err, fsread.ErrPastEnd):
		msg := err.Error()
		if r.TotalLines >= 0 {
			msg = fmt.Sprintf("%s has %d lines; the requested start is past the end", name, r.TotalLines)
		}
		return &ToolError{Code: "past_end", Param: "start_line", Message: msg}
	case errors.Is(err, fsread.ErrScanLimit):
		return &ToolError{Code: "too_large", Param: "start_line", Message: err.Error(),
			Next: "read a byte range with encoding base64 or hex and offset/limit"}
	case errors.Is(err, fsread.ErrInvalidOptions):
		return &ToolError{Code: "invalid_value", Message: strings.TrimSuffix(err.Error(), ": "+fsread.ErrInvalidOptions.Error())}
	}
	return f.fsError(name, given, err)
}

// searchError maps list_dir, file_search and grep_search failures.
func (f *fileTool) searchError(t *authz.Target, given string, err error) error {
	name := f.display(t, t.Rel)
	switch {
	case errors.Is(err, fsread.ErrNotDir):
		return &ToolError{Code: "not_directory", Param: "path", Message: name + " is a file, not a directory", Next: "use read_file, or pass its directory"}
	case errors.Is(err, fsread.ErrBadPattern):
		return &ToolError{Code: "invalid_pattern", Param: "pattern", Message: err.Error()}
	case errors.Is(err, fsread.ErrInvalidOptions):
		return &ToolError{Code: "invalid_value", Message: strings.TrimSuffix(err.Error(), ": "+fsread.ErrInvalidOptions.Error())}
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
		return &ToolError{Code: "timeout", Message: "the operation did not finish in time", Next: "narrow the path or pattern"}
	case errors.Is(err, context.Canceled):
		return &ToolError{Code: "cancelled", Message: "the call was cancelled"}
	case errors.Is(err, fs.ErrNotExist):
		if name == "" || name == "." {
			name = given
		}
		return &ToolError{Code: "not_found", Param: "path", Message: name + " does not exist", Next: "find it with file_search or list_dir"}
	case errors.Is(err, fs.ErrPermission):
		return &ToolError{Code: "permission_denied", Param: "path", Message: "the operating system denied access to " + name}
	case errors.Is(err, syscall.ENOTDIR):
		return &ToolError{Code: "not_directory", Param: "path", Message: "a parent of " + name + " is a file, not a directory"}
	case errors.Is(err, fsread.ErrNotRegular), errors.Is(err, edit.ErrNotRegular):
		return &ToolError{Code: "not_regular", Param: "path", Message: name + " is not a regular file"}
	}
	return err
}

// editError maps the edit engine's typed errors, whose text is written for the model, to stable
// codes. param is the argument the failure is about.
func (f *fileTool) editError(name, param string, err error) error {
	var (
		me *edit.MatchError
		pe *edit.PatchError
		se *edit.StaleError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &me):
		code := "not_found"
		switch {
		case errors.Is(me.Err, edit.ErrAmbiguous):
			code = "ambiguous"
		case errors.Is(me.Err, edit.ErrCountMismatch):
			code, param = "count_mismatch", "expected_replacements"
		}
		return &ToolError{Code: code, Param: param, Message: msg}
	case errors.As(err, &pe):
		code := "bad_patch"
		switch {
		case errors.Is(pe.Err, edit.ErrNotFound), errors.Is(pe.Err, edit.ErrMissing):
			code = "not_found"
		case errors.Is(pe.Err, edit.ErrAmbiguous):
			code = "ambiguous"
		case errors.Is(pe.Err, edit.ErrExists):
			code = "exists"
		case errors.Is(pe.Err, edit.ErrInvalidPath):
			code = "invalid_path"
		}
		return &ToolError{Code: code, Param: "patch", Message: msg}
	case errors.As(err, &se):
		if se.Deleted {
			return &ToolError{Code: "stale", Param: "path", Message: msg, Next: "check with the user if unsure; a second create_file recreates it"}
		}
		// Next says what the message's own advice would repeat.
		return &ToolError{Code: "stale", Param: param, Message: strings.TrimSuffix(msg, "; read it again before editing"), Next: "read_file it again, then redo the edit on what is there now"}
	case errors.Is(err, edit.ErrConflict):
		return &ToolError{Code: "conflict", Param: param, Message: msg, Next: "read the file again; nothing was written"}
	case errors.Is(err, edit.ErrExists):
		return &ToolError{Code: "exists", Param: param, Message: msg}
	case errors.Is(err, edit.ErrMissing):
		return &ToolError{Code: "not_found", Param: "path", Message: msg, Next: "find it with file_search or list_dir"}
	case errors.Is(err, edit.ErrInvalidPath):
		return &ToolError{Code: "invalid_path", Param: param, Message: msg}
	case errors.Is(err, edit.ErrInvalidArgument):
		// The sentinel's own text only repeats the code.
		return &ToolError{Code: "invalid_value", Param: param, Message: strings.TrimPrefix(msg, edit.ErrInvalidArgument.Error()+": ")}
	case errors.Is(err, edit.ErrNoop):
		return &ToolError{Code: "no_change", Param: param, Message: msg, Next: "the file already has this content"}
	case errors.Is(err, edit.ErrTooLarge):
		return &ToolError{Code: "too_large", Param: "path", Message: msg, Next: "edit it with terminal tools (sed, a script)"}
	case errors.Is(err, edit.ErrSymlinkLoop):
		return &ToolError{Code: "symlink_loop", Param: param, Message: msg}
	case errors.Is(err, edit.ErrNotFound):
		return &ToolError{Code: "not_found", Param: param, Message: msg}
	case errors.Is(err, edit.ErrAmbiguous):
		return &ToolError{Code: "ambiguous", Param: param, Message: msg}
	case errors.Is(err, edit.ErrBadPatch):
		return &ToolError{Code: "bad_patch", Param: "patch", Message: msg}
	}
	return f.fsError(name, name, err)
}

// suggest adds the nearest existing paths to a not_found error about a path the model gave
// (inside the working directory), so it can retry without a search: files with the same name
// elsewhere, else the most similar name in the same directory. Both lookups are bounded, skip dot
// files (where secrets live) and list the directory through the guard like any read.
func (f *fileTool) suggest(ctx context.Context, c *Call, err error, given string) error {
	var te *ToolError
	if !errors.As(err, &te) || te.Code != "not_found" || te.Param != "path" || given == "" {
		return err
	}
	canon, cerr := f.guard.Canonical(given)
	if cerr != nil {
		return err
	}
	rel, rerr := filepath.Rel(f.guard.WorkDir(), canon)
	if rerr != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return err
	}
	rel = filepath.ToSlash(rel)
	dir, base := path.Split(rel)
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	var names []string
	if !strings.ContainsAny(base, "*?[]{}\\") && !strings.HasPrefix(base, ".") {
		r, _ := fsread.Glob(ctx, f.guard.Root(), ".", "**/"+base, fsread.GlobOptions{MaxResults: 3, SortBy: fsread.SortByPath})
		for _, m := range r.Matches {
			names = append(names, m.Path)
		}
	}
	if len(names) == 0 {
		if t, oerr := f.open(ctx, c, authz.ClassRead, filepath.Join(f.guard.WorkDir(), filepath.FromSlash(dir)), "path", false, false); oerr == nil {
			r, _ := fsread.ListDir(ctx, t.Root, t.Rel, fsread.ListOptions{IncludeHidden: strings.HasPrefix(base, ".")})
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
	}
	return te
}
