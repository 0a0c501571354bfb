package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// DefaultMaxDiffLines caps the diff returned with every write.
const DefaultMaxDiffLines = 80

// Options tune every write operation.
type Options struct {
	// DryRun computes the result and diff without writing anything.
	DryRun bool
	// MaxDiffLines caps Result.Diff; 0 means DefaultMaxDiffLines, < 0 no cap.
	MaxDiffLines int
	// Expect holds, by path, the fingerprint of each file as the model last
	// read it. A listed file whose content differs is refused with a
	// *StaleError before anything is written. Keys are cleaned
	// slash-separated paths relative to the root (path.Clean form), the
	// same form the operations report in Result.Files.
	Expect map[string]Fingerprint
	// Journal makes the write crash-atomic; nil writes all or nothing only while the process
	// lives.
	Journal *Journal
	// Verbatim makes CreateFile write content byte for byte, without taking the replaced
	// file's CRLF line endings or byte order mark: for content in another encoding than UTF-8.
	Verbatim bool
}

func (o Options) capDiff(d string) string {
	switch {
	case o.MaxDiffLines < 0:
		return d
	case o.MaxDiffLines == 0:
		return CapDiff(d, DefaultMaxDiffLines)
	}
	return CapDiff(d, o.MaxDiffLines)
}

// Result is what every write operation returns: which files changed and a
// short unified diff, so the model sees its edit without re-reading.
type Result struct {
	Files  []FileSummary `json:"files"`
	Diff   string        `json:"diff,omitempty"`
	DryRun bool          `json:"dry_run,omitempty"`
}

// loader reads files for a plan, once each, checking fingerprints.
type loader struct {
	root *os.Root
	opt  Options
}

// load returns the current content of rel, or exists=false.
func (l loader) load(rel string) (data []byte, exists bool, err error) {
	data, info, err := readRegular(l.root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		if fp, ok := l.opt.Expect[rel]; ok {
			return nil, false, &StaleError{Path: rel, Want: fp, Deleted: true}
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if fp, ok := l.opt.Expect[rel]; ok {
		if err := checkFingerprint(rel, fp, FingerprintOf(data, info)); err != nil {
			var se *StaleError
			if errors.As(err, &se) {
				se.current = data
			}
			return nil, false, err
		}
	}
	return data, true, nil
}

// run diffs and (unless dry-run) commits a plan.
func run(ctx context.Context, root *os.Root, p *Plan, opt Options) (*Result, error) {
	res := &Result{Files: p.Summary(), Diff: opt.capDiff(p.Diff(DefaultContext)), DryRun: opt.DryRun}
	if opt.DryRun {
		return res, nil
	}
	if err := p.Commit(ctx, root, opt.Journal); err != nil {
		return nil, err
	}
	return res, nil
}

// WriteMode selects how create_file treats an existing file.
type WriteMode string

// The create_file modes.
const (
	ModeOverwrite       WriteMode = "overwrite"
	ModeAppend          WriteMode = "append"
	ModeCreateIfMissing WriteMode = "create_if_missing"
)

// CreateFile writes content to rel atomically, creating parent
// directories. ModeOverwrite (also the zero value) replaces the file,
// ModeAppend adds to its end, ModeCreateIfMissing refuses an existing file
// with ErrExists. An existing file keeps its mode.
func CreateFile(ctx context.Context, root *os.Root, rel string, content []byte, mode WriteMode, opt Options) (*Result, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return nil, err
	}
	old, exists, err := loader{root, opt}.load(rel)
	if err != nil {
		return nil, err
	}
	follow := func(withBOM bool) []byte {
		if opt.Verbatim {
			return content
		}
		return followFile(old, content, withBOM)
	}
	var c Change
	switch mode {
	case ModeOverwrite, "":
		c = Change{Op: OpUpdate, Path: rel, Old: old, New: follow(true)}
	case ModeAppend:
		c = Change{Op: OpUpdate, Path: rel, Old: old, New: append(append([]byte{}, old...), follow(false)...)}
	case ModeCreateIfMissing:
		if exists {
			return nil, fmt.Errorf("%s %w; use mode overwrite or replace_string to change it", rel, ErrExists)
		}
	default:
		return nil, fmt.Errorf("%w: unknown mode %q; use overwrite, append or create_if_missing", ErrInvalidArgument, mode)
	}
	if !exists {
		c = Change{Op: OpAdd, Path: rel, New: content}
	}
	if c.New == nil {
		c.New = []byte{}
	}
	return run(ctx, root, &Plan{Changes: []Change{c}}, opt)
}

// followFile gives content written over or onto old the file's CRLF line
// endings and, when withBOM, its byte order mark, if content has neither:
// models send LF text without a BOM, and a rewrite that changed every line
// ending would show (and commit) every line as changed.
func followFile(old, content []byte, withBOM bool) []byte {
	if len(old) == 0 {
		return content
	}
	s, o := string(content), strings.TrimPrefix(string(old), bom)
	if detectEOL(o) == "\r\n" && !strings.Contains(s, "\r") {
		s = toEOL(s, "\r\n")
	}
	if withBOM && strings.HasPrefix(string(old), bom) && !strings.HasPrefix(s, bom) {
		s = bom + s
	}
	return []byte(s)
}

// ReplaceFileResult adds the ladder's outcome to a Result.
type ReplaceFileResult struct {
	Result
	Rung    Rung     `json:"rung"`
	Count   int      `json:"replacements"`
	Lines   []int    `json:"lines"`
	Adapted []string `json:"adapted,omitempty"`
	Undid   []string `json:"undid,omitempty"`
}

// ReplaceInFile runs the edit ladder (Replace) on one file and writes the
// result atomically. Errors are *MatchError (with Path set), *StaleError,
// or I/O errors.
func ReplaceInFile(ctx context.Context, root *os.Root, rel string, r Replacement, opt Options) (*ReplaceFileResult, error) {
	res, err := MultiReplace(ctx, root, []FileReplacement{{Path: rel, Replacement: r}}, opt)
	if err != nil {
		return nil, err
	}
	out := &ReplaceFileResult{Result: res.Result}
	if len(res.Edits) == 1 {
		e := res.Edits[0]
		out.Rung, out.Count, out.Lines, out.Adapted, out.Undid = e.Rung, e.Count, e.Lines, e.Adapted, e.Undid
	}
	return out, nil
}

// FileReplacement is one edit of a multi_replace_string call.
type FileReplacement struct {
	Path string
	Replacement
}

// EditOutcome reports how one edit of a multi-replace matched.
type EditOutcome struct {
	Path    string   `json:"path"`
	Rung    Rung     `json:"rung"`
	Count   int      `json:"replacements"`
	Lines   []int    `json:"lines"`
	Adapted []string `json:"adapted,omitempty"`
	Undid   []string `json:"undid,omitempty"`
}

// MultiReplaceResult adds each edit's outcome to a Result.
type MultiReplaceResult struct {
	Result
	Edits []EditOutcome `json:"edits"`
}

// MultiReplace applies edits in order (edits to the same file see the
// earlier edits' result) and writes all files or none: any edit that does
// not match fails the whole call before anything is written, and a write
// failure rolls back the files already written. A *MatchError names the
// failing edit (1-based) and file.
func MultiReplace(ctx context.Context, root *os.Root, edits []FileReplacement, opt Options) (*MultiReplaceResult, error) {
	if len(edits) == 0 {
		return nil, fmt.Errorf("%w: no edits given", ErrInvalidArgument)
	}
	ld := loader{root, opt}
	type file struct {
		old []byte
		cur string // the text, decoded when the file is in another encoding
		cv  *codec
	}
	files := map[string]*file{}
	var order []string
	out := &MultiReplaceResult{}
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Name the edit only when there are several to tell apart.
		wrap := func(err error) error {
			if len(edits) == 1 {
				return err
			}
			return fmt.Errorf("edit %d: %w", i+1, err)
		}
		rel, err := cleanRel(e.Path)
		if err != nil {
			return nil, wrap(err)
		}
		f, ok := files[rel]
		if !ok {
			data, exists, err := ld.load(rel)
			if err != nil {
				var se *StaleError
				if errors.As(err, &se) && se.current != nil {
					se.Detail = staleReplaceDetail(se.current, e.Replacement, len(edits) > 1, i+1)
				}
				return nil, wrap(err)
			}
			if !exists {
				return nil, wrap(fmt.Errorf("%s %w; use create_file to make it", rel, ErrMissing))
			}
			cv := detectCodec(data)
			f = &file{old: data, cur: cv.decode(data), cv: cv}
			files[rel] = f
			order = append(order, rel)
		}
		r, err := replaceText(f.cur, e.Replacement, f.cv)
		if err != nil {
			var me *MatchError
			if errors.As(err, &me) {
				me.Path = rel
				if len(edits) > 1 {
					me.Edit = i + 1
				}
				return nil, me
			}
			return nil, wrap(fmt.Errorf("%s: %w", rel, err))
		}
		f.cur = string(r.Content)
		out.Edits = append(out.Edits, EditOutcome{Path: rel, Rung: r.Rung, Count: r.Count, Lines: r.Lines, Adapted: append(r.Adapted, f.cv.keptNote()...), Undid: r.Undid})
	}
	p := &Plan{}
	for _, rel := range order {
		f := files[rel]
		data, _, err := editEncoded(rel, f.old, func(string, *codec) (string, error) { return f.cur, nil })
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, Change{Op: OpUpdate, Path: rel, Old: f.old, New: data, codec: f.cv})
	}
	res, err := run(ctx, root, p, opt)
	if err != nil {
		return nil, err
	}
	out.Result = *res
	return out, nil
}

// InsertEdit applies a LineEdit to an existing file.
func InsertEdit(ctx context.Context, root *os.Root, rel string, e LineEdit, opt Options) (*Result, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return nil, err
	}
	old, exists, err := loader{root, opt}.load(rel)
	if err != nil {
		var se *StaleError
		if errors.As(err, &se) && se.current != nil {
			se.Detail = staleInsertDetail(se.current, e)
		}
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("%s %w; use create_file to make it", rel, ErrMissing)
	}
	data, cv, err := editEncoded(rel, old, func(text string, _ *codec) (string, error) {
		out, _, err := InsertLines([]byte(text), e)
		return string(out), err
	})
	if err != nil {
		var ee *EncodeError
		if errors.As(err, &ee) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	return run(ctx, root, &Plan{Changes: []Change{{Op: OpUpdate, Path: rel, Old: old, New: data, codec: cv}}}, opt)
}

// RenameFile moves a file, symlink or directory from one path to another,
// creating the destination's parent directories. An existing destination
// is refused with ErrExists unless overwrite is set (and it is not a
// directory). With opt.DryRun it checks everything and moves nothing.
func RenameFile(ctx context.Context, root *os.Root, from, to string, overwrite bool, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	from, err := cleanRel(from)
	if err != nil {
		return nil, err
	}
	to, err = cleanRel(to)
	if err != nil {
		return nil, err
	}
	if from == to {
		return nil, fmt.Errorf("%w: source and destination are both %s", ErrInvalidArgument, from)
	}
	if _, err := root.Lstat(from); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s %w", from, ErrMissing)
		}
		return nil, err
	}
	if fi, err := root.Lstat(to); err == nil {
		if !overwrite || fi.IsDir() {
			return nil, fmt.Errorf("%s %w; choose another name or delete it first", to, ErrExists)
		}
	}
	if opt.DryRun {
		if _, err := missingDirs(root, []txnOp{{Op: opWrite, Path: to}}); err != nil {
			return nil, err
		}
		return &Result{Files: []FileSummary{{Op: OpMove, Path: from, NewPath: to}}, Diff: fmt.Sprintf("would rename %s -> %s\n", from, to), DryRun: true}, nil
	}
	dirs, err := mkdirParents(root, to)
	if err != nil {
		removeDirs(root, dirs)
		return nil, err
	}
	if err := root.Rename(from, to); err != nil {
		removeDirs(root, dirs)
		return nil, fmt.Errorf("rename %s: %w", from, err)
	}
	return &Result{Files: []FileSummary{{Op: OpMove, Path: from, NewPath: to}}, Diff: fmt.Sprintf("rename %s -> %s\n", from, to)}, nil
}

// DeleteFile removes a file or an empty directory; a non-empty directory
// only when recursive is set. A symlink is removed as a link, never
// followed. The root itself cannot be deleted. With opt.DryRun it checks
// everything, says what would go, and deletes nothing.
func DeleteFile(ctx context.Context, root *os.Root, rel string, recursive bool, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := cleanRel(rel)
	if err != nil {
		return nil, err
	}
	fi, err := root.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s %w", rel, ErrMissing)
		}
		return nil, err
	}
	res := &Result{Files: []FileSummary{{Op: OpDelete, Path: rel}}}
	if opt.DryRun {
		return dryDelete(ctx, root, rel, fi, recursive, res)
	}
	switch {
	case fi.IsDir() && recursive:
		if err := root.RemoveAll(rel); err != nil {
			return nil, fmt.Errorf("delete %s: %w", rel, err)
		}
		res.Diff = fmt.Sprintf("deleted directory %s/ and its contents\n", rel)
	case fi.IsDir():
		if err := root.Remove(rel); err != nil {
			if entries, _ := fs.ReadDir(root.FS(), rel); len(entries) > 0 {
				return nil, fmt.Errorf("%w: directory %s is not empty (%d entries); set recursive to delete it with its contents", ErrInvalidArgument, rel, len(entries))
			}
			return nil, fmt.Errorf("delete %s: %w", rel, err)
		}
		res.Diff = fmt.Sprintf("deleted empty directory %s/\n", rel)
	default:
		if err := root.Remove(rel); err != nil {
			return nil, fmt.Errorf("delete %s: %w", rel, err)
		}
		kind := "file"
		if fi.Mode()&fs.ModeSymlink != 0 {
			kind = "symlink"
		}
		res.Diff = fmt.Sprintf("deleted %s %s\n", kind, rel)
	}
	return res, nil
}

// dryDelete says what DeleteFile would remove: for a directory, how many
// entries it holds (counted up to a bound).
func dryDelete(ctx context.Context, root *os.Root, rel string, fi fs.FileInfo, recursive bool, res *Result) (*Result, error) {
	res.DryRun = true
	if !fi.IsDir() {
		kind := "file"
		if fi.Mode()&fs.ModeSymlink != 0 {
			kind = "symlink"
		}
		res.Diff = fmt.Sprintf("would delete %s %s\n", kind, rel)
		return res, nil
	}
	const maxCount = 100_000
	n := 0
	_ = fs.WalkDir(root.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if p == rel {
			return err
		}
		n++
		if n >= maxCount || ctx.Err() != nil {
			return fs.SkipAll
		}
		return nil
	})
	switch {
	case n == 0:
		res.Diff = fmt.Sprintf("would delete empty directory %s/\n", rel)
	case !recursive:
		return nil, fmt.Errorf("%w: directory %s is not empty (%d entries); set recursive to delete it with its contents", ErrInvalidArgument, rel, n)
	case n >= maxCount:
		res.Diff = fmt.Sprintf("would delete directory %s/ and its %d+ entries\n", rel, n)
	default:
		res.Diff = fmt.Sprintf("would delete directory %s/ and its %d entries\n", rel, n)
	}
	return res, nil
}

// CreateDirectory creates rel and any missing parents. An existing
// directory is not an error (the result lists nothing). With opt.DryRun it
// checks the path as the creation would (a file in the way, a link out of
// the root) and creates nothing.
func CreateDirectory(ctx context.Context, root *os.Root, rel string, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := cleanRel(rel)
	if err != nil {
		return nil, err
	}
	var dirs []string
	if opt.DryRun {
		dirs, err = absentDirs(root, rel)
	} else {
		dirs, err = mkdirParents(root, path.Join(rel, "x"))
	}
	if err != nil {
		return nil, err
	}
	res := &Result{DryRun: opt.DryRun}
	for _, d := range dirs {
		res.Files = append(res.Files, FileSummary{Op: OpAdd, Path: d + "/"})
	}
	if len(dirs) > 0 {
		verb := "created"
		if opt.DryRun {
			verb = "would create"
		}
		res.Diff = verb + " directory " + strings.Join(dirs, "/, ") + "/\n"
	}
	return res, nil
}

// absentDirs returns the directories along rel (itself included) that do not exist, parents
// first, as mkdirParents would create them, and fails where it would fail.
func absentDirs(root *os.Root, rel string) ([]string, error) {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := root.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := root.Lstat(p); lerr == nil {
				// A dangling link: mkdir finds the name taken and the stat after it fails.
				return nil, fmt.Errorf("create directory %s: %w", p, err)
			}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			var missing []string
			for j := i; j < len(parts); j++ {
				missing = append(missing, strings.Join(parts[:j+1], "/"))
			}
			return missing, nil
		case err != nil:
			return nil, fmt.Errorf("create directory %s: %w", p, err)
		case !fi.IsDir():
			return nil, fmt.Errorf("create directory %s: %w: a file is in the way", p, ErrExists)
		}
	}
	return nil, nil
}

// staleReplaceDetail says where old_string stands in a file that changed since it was read.
func staleReplaceDetail(current []byte, r Replacement, several bool, edit int) string {
	what := "old_string"
	if several {
		what = fmt.Sprintf("edit %d's old_string", edit)
	}
	cv := detectCodec(current)
	res, err := replaceText(cv.decode(current), r, cv)
	var me *MatchError
	switch {
	case err == nil:
		return fmt.Sprintf("%s still matches at %s, but other lines changed", what, FormatLines(res.Lines))
	case errors.As(err, &me) && errors.Is(me.Err, ErrAmbiguous):
		return fmt.Sprintf("%s now matches %d places (%s)", what, me.Count, FormatLines(me.Lines))
	case errors.As(err, &me) && me.Diverge != nil:
		return fmt.Sprintf("%s no longer matches: it first differs from the file at line %d, which now reads %s", what, me.Diverge.Line, quoteLine(me.Diverge.Have))
	}
	return what + " no longer matches anything in the file"
}

// staleInsertDetail says where an insert_edit stands in a file that changed since it was read.
func staleInsertDetail(current []byte, e LineEdit) string {
	cv := detectCodec(current)
	d := parseDocument([]byte(cv.decode(current)))
	switch {
	case e.AfterPattern != "" || e.BeforePattern != "":
		name := "after_pattern"
		if e.BeforePattern != "" {
			name = "before_pattern"
		}
		i, err := findLine(d.lines, e.AfterPattern+e.BeforePattern, e.Regexp)
		if err != nil {
			return name + " no longer names one line: " + err.Error()
		}
		return fmt.Sprintf("%s still matches line %d, but other lines changed", name, i+1)
	case e.Line > 0 && e.Line <= len(d.lines):
		return fmt.Sprintf("line %d now reads %s", e.Line, quoteLine(d.lines[e.Line-1]))
	case e.StartLine > 0 && e.StartLine <= len(d.lines):
		return fmt.Sprintf("line %d now reads %s", e.StartLine, quoteLine(d.lines[e.StartLine-1]))
	}
	return fmt.Sprintf("the file now has %d lines", len(d.lines))
}
