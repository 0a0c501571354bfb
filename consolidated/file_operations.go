package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel"
	"toolhost/internal/edit"
	"toolhost/internal/fsread"
)

// The argument structs of file_operations. They share one flat schema, so a parameter keeps one
// type everywhere and carries its description where it is first declared (read_file's path,
// file_search's pattern, ...). Descriptions stay terse: this is the largest tool in tools/list.

type fileReadArgs struct {
	Path        string `json:"path" alias:"file_path,filename,file,dir,directory,base,base_path,target_file" jsonschema:"Relative to the working directory, or absolute. Searches: base dir."`
	StartLine   int64  `json:"start_line,omitempty"`
	EndLine     int64  `json:"end_line,omitempty" jsonschema:"Inclusive."`
	Offset      int64  `json:"offset,omitempty" jsonschema:"First line, negative from the end (bytes for base64/hex)."`
	Limit       int64  `json:"limit,omitempty" jsonschema:"Lines (bytes for base64/hex)."`
	LineNumbers bool   `json:"line_numbers,omitempty"`
	Encoding    string `json:"encoding,omitempty" enum:"utf-8,base64,hex,utf-16le,utf-16be,latin-1,windows-1252"`
}

type fileListArgs struct {
	Path           string `json:"path,omitempty"`
	Recursive      bool   `json:"recursive,omitempty"`
	MaxDepth       int    `json:"max_depth,omitempty"`
	IncludeHidden  bool   `json:"include_hidden,omitempty"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"Also gitignored paths."`
	MaxResults     int    `json:"max_results,omitempty" alias:"max_entries"`
}

type fileSearchArgs struct {
	Pattern        string `json:"pattern" alias:"glob,query,regex" jsonschema:"file_search: glob (** spans dirs); grep_search: regex."`
	Path           string `json:"path,omitempty"`
	MaxResults     int    `json:"max_results,omitempty"`
	Sort           string `json:"sort,omitempty" alias:"sort_by" enum:"mtime,path"`
	IncludeHidden  bool   `json:"include_hidden,omitempty"`
	IncludeIgnored bool   `json:"include_ignored,omitempty"`
}

type fileGrepArgs struct {
	Pattern         string   `json:"pattern"`
	Path            string   `json:"path,omitempty"`
	Literal         bool     `json:"literal,omitempty" alias:"fixed_strings"`
	CaseInsensitive bool     `json:"case_insensitive,omitempty" alias:"ignore_case"`
	Include         []string `json:"include,omitempty" alias:"includes,include_pattern,glob_include" jsonschema:"File globs."`
	Exclude         []string `json:"exclude,omitempty" alias:"excludes,exclude_pattern"`
	ContextLines    int      `json:"context_lines,omitempty" alias:"context"`
	MaxResults      int      `json:"max_results,omitempty" alias:"max_matches,head_limit"`
	IncludeHidden   bool     `json:"include_hidden,omitempty"`
	IncludeIgnored  bool     `json:"include_ignored,omitempty"`
}

type fileCreateArgs struct {
	Path     string `json:"path"`
	Content  string `json:"content" alias:"contents,text,file_text,code"`
	Mode     string `json:"mode,omitempty" enum:"overwrite,append,create_if_missing"`
	Encoding string `json:"encoding,omitempty" enum:"utf-8,base64,hex,utf-16le,utf-16be,latin-1,windows-1252"`
	DryRun   bool   `json:"dry_run,omitempty"`
}

type fileReplaceArgs struct {
	Path                 string `json:"path"`
	OldString            string `json:"old_string" alias:"old_str,old_text" jsonschema:"Exact text; unique unless replace_all."`
	NewString            string `json:"new_string" alias:"new_str,new_text,replace,replacement"`
	ReplaceAll           bool   `json:"replace_all,omitempty"`
	ExpectedReplacements int    `json:"expected_replacements,omitempty"`
	DryRun               bool   `json:"dry_run,omitempty"`
}

// fileEdit is one edit of multi_replace_string. Its decoder accepts the spellings models use
// (camelCase, old_str, file_path) because nested objects do not go through the seam's aliasing.
type fileEdit struct {
	Path       string `json:"path,omitempty" jsonschema:"Default: the path parameter."`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`

	unknown []string // keys that are no field; the handler names them
}

type fileMultiReplaceArgs struct {
	Edits  []fileEdit `json:"edits" alias:"replacements,changes"`
	Path   string     `json:"path,omitempty"`
	DryRun bool       `json:"dry_run,omitempty"`
}

type fileInsertArgs struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	Line      int64  `json:"line,omitempty" alias:"insert_line,line_number" jsonschema:"1-based. insert_edit: content goes before it; or use after_pattern, before_pattern, or start_line+end_line to replace."`
	After     string `json:"after_pattern,omitempty" alias:"after,insert_after" jsonschema:"Text in the line to insert after."`
	Before    string `json:"before_pattern,omitempty" alias:"before,insert_before"`
	StartLine int64  `json:"start_line,omitempty"`
	EndLine   int64  `json:"end_line,omitempty"`
	DryRun    bool   `json:"dry_run,omitempty"`
}

type fileRenameArgs struct {
	Path      string `json:"path" alias:"source,src,from,old_path"`
	NewPath   string `json:"new_path" alias:"destination,dest,to,target,new_name,target_path"`
	Overwrite bool   `json:"overwrite,omitempty"`
	DryRun    bool   `json:"dry_run,omitempty"`
}

type fileDeleteArgs struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
	DryRun    bool   `json:"dry_run,omitempty"`
}

type fileDirArgs struct {
	Path   string `json:"path"`
	DryRun bool   `json:"dry_run,omitempty"`
}

type filePatchArgs struct {
	Patch  string `json:"patch" alias:"diff,input,patch_text"`
	DryRun bool   `json:"dry_run,omitempty"`
}

// FileConfig configures file_operations.
type FileConfig struct {
	// Guard decides every path and opens the os.Root handles the engines work through.
	Guard *authz.Guard
	// Reader keeps the line-index cache of read_file; nil means a new fsread.Reader.
	Reader *fsread.Reader
	// MaxRemembered bounds the stale-write memory (conversation, file) entries; 0 means
	// DefaultMaxRemembered.
	MaxRemembered int
	// Journal makes every write crash-atomic (all files or none even across a SIGKILL); nil
	// writes all or none only while the process lives.
	Journal *edit.Journal
	// Now is the clock list_dir measures ages with; nil means time.Now.
	Now func() time.Time
	// Index is the working-directory index grep_search uses once it is built (nil: none).
	// IndexMinFiles is how many files a walking search must meet to start building it in the
	// background (0: only an index already on disk is loaded; it is built by `toolhost index
	// rebuild` or mode "on").
	Index         *codeindex.Index
	IndexMinFiles int
	// Code answers the code operations (symbols, usages, renames, semantic search); nil means
	// an engine with the built-in parsers only.
	Code *codeintel.Engine
}

// DefaultMaxRemembered bounds how many (conversation, file) fingerprints file_operations keeps
// for stale-write checks. The oldest are forgotten first; a forgotten file is edited unchecked,
// exactly like a file the model never read.
const DefaultMaxRemembered = 4096

// fileSearchTimeout bounds walks over big trees; clients give up on calls at about 60 s anyway.
const fileSearchTimeout = 60 * time.Second

// FileTool is file_operations: reading, searching and editing files through the working-directory
// guard, with the read and edit engines of internal/fsread and internal/edit. It remembers what
// each conversation last read of each file, so an edit based on a stale read is refused.
func FileTool(cfg FileConfig) *Tool {
	if cfg.Reader == nil {
		cfg.Reader = fsread.NewReader(0)
	}
	if cfg.MaxRemembered <= 0 {
		cfg.MaxRemembered = DefaultMaxRemembered
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	f := &fileTool{guard: cfg.Guard, reader: cfg.Reader, seen: newReadMemo(cfg.MaxRemembered), journal: cfg.Journal, now: cfg.Now,
		index: cfg.Index, indexMin: cfg.IndexMinFiles, code: cfg.Code}
	if f.code == nil && cfg.Guard != nil {
		f.code = codeintel.NewEngine(codeintel.Config{Root: cfg.Guard.Root(), RootPath: cfg.Guard.WorkDir(), Screen: cfg.Guard.WorkDirScreen(), Index: cfg.Index})
	}
	return &Tool{
		Resources:   f.resources(),
		Name:        "file_operations",
		Title:       "Files",
		Description: "Read, search and edit files: " + OperationsPlaceholder + ". Outside the working directory, writes need a grant (the user_collaboration tool). Edits fail if the file changed since you read it; each write returns its diff.",
		Operations: []Operation{
			Op("read_file", "lines or bytes of a file", RiskRead, f.readFile),
			Op("list_dir", "", RiskRead, f.listDir).WithTimeout(fileSearchTimeout).WithNamesOnly(),
			Op("file_search", "find files by glob", RiskRead, f.fileSearch).WithTimeout(fileSearchTimeout).WithNamesOnly(),
			Op("grep_search", "search file contents", RiskRead, f.grepSearch).WithTimeout(fileSearchTimeout),
			Op("create_file", "write a whole file", RiskWrite, f.createFile),
			Op("replace_string", "replace unique text in a file", RiskWrite, f.replaceString),
			Op("multi_replace_string", "several replacements, all or none", RiskWrite, f.multiReplace),
			Op("insert_edit", "insert or replace lines", RiskWrite, f.insertEdit),
			Op("rename_file", "", RiskWrite, f.renameFile),
			Op("delete_file", "delete (directories: recursive)", RiskWrite, f.deleteFile),
			Op("create_directory", "", RiskWrite, f.createDirectory),
			Op("apply_patch", "unified diff or *** Begin Patch; all or none", RiskWrite, f.applyPatch),
			Op("find_symbol", "definitions by name", RiskRead, f.findSymbol).WithTimeout(codeTimeout),
			Op("list_usages", "references to a symbol (name or line+column)", RiskRead, f.listUsages).WithTimeout(codeTimeout),
			Op("go_to_definition", "", RiskRead, f.goToDefinition).WithTimeout(codeTimeout),
			Op("document_symbols", "outline of a file or directory", RiskRead, f.documentSymbols).WithTimeout(codeTimeout),
			Op("rename_symbol", "rename everywhere (language server)", RiskWrite, f.renameSymbol).WithTimeout(codeTimeout),
			Op("semantic_search", "code by meaning", RiskRead, f.semanticSearch).WithTimeout(codeTimeout),
		},
	}
}

type fileTool struct {
	guard    *authz.Guard
	reader   *fsread.Reader
	seen     *readMemo
	journal  *edit.Journal
	now      func() time.Time
	index    *codeindex.Index
	indexMin int
	code     *codeintel.Engine
}

// useIndex says whether a search of t can be planned by the working-directory index: it is
// there, and t is inside the working directory. An index stored on disk is loaded on first use.
func (f *fileTool) useIndex(t *authz.Target) bool {
	if f.index == nil || t.Root != f.guard.Root() {
		return false
	}
	if !f.index.Ready() && f.index.Exists() {
		f.index.StartBuild()
	}
	return f.index.Ready()
}

// walkedFiles tells the index how large a tree a search walked: past IndexMinFiles, it is
// built in the background so that the next searches need not walk.
func (f *fileTool) walkedFiles(n int) {
	if f.index != nil && f.indexMin > 0 && n >= f.indexMin {
		f.index.StartBuild()
	}
}

func (f *fileTool) readFile(ctx context.Context, c *Call, a *fileReadArgs) (*Result, error) {
	t, err := f.openRead(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	// Stop reading at the result budget, so a long file ends in "continue with start_line"
	// rather than being cut in the middle and spilled: the page fits what the client passes
	// to its model whole, in bytes and in lines.
	budget := c.Budget()
	page := budget.Page()
	switch a.Encoding {
	case edit.EncodingUTF16LE, edit.EncodingUTF16BE, edit.EncodingLatin1, edit.EncodingWindows1252:
		return nil, &ToolError{Code: CodeInvalidValue, Param: "encoding", Message: a.Encoding + " is an encoding create_file writes; read_file shows text as UTF-8",
			Next: "read the file's bytes with encoding hex or base64"}
	}
	opts := fsread.ReadOptions{
		Screen:      t,
		StartLine:   a.StartLine,
		EndLine:     a.EndLine,
		LineNumbers: a.LineNumbers,
		Encoding:    fsread.Encoding(a.Encoding),
		MaxBytes:    min(fsread.DefaultMaxBytes, page.Bytes),
		MaxLines:    page.Lines,
	}
	if a.StartLine < 0 && a.EndLine == 0 && a.Offset == 0 && opts.Encoding != fsread.EncodingBase64 && opts.Encoding != fsread.EncodingHex {
		// start_line -N can only mean the last N lines, which is offset -N.
		a.Offset, a.StartLine, opts.StartLine = a.StartLine, 0, 0
	}
	switch opts.Encoding {
	case fsread.EncodingBase64, fsread.EncodingHex:
		if a.StartLine != 0 || a.EndLine != 0 {
			return nil, &ToolError{Code: CodeInvalidValue, Param: "start_line", Message: "base64 and hex read byte ranges; use offset and limit (in bytes)"}
		}
		// The engine keeps the encoded text within MaxBytes, hence within the budget.
		opts.ByteOffset, opts.ByteLimit = a.Offset, a.Limit
	default:
		opts.Offset, opts.Limit = a.Offset, a.Limit
	}
	r, err := f.reader.Read(ctx, t.Root, t.Rel, opts)
	// A client that counts a result's JSON (escapes and all) gets a page whose encoding fits:
	// read again, shorter by what the escapes added.
	for try := 0; err == nil && page.JSON && try < 4; try++ {
		over := page.Measure(r.Text) - page.Bytes
		if over <= 0 {
			break
		}
		opts.MaxBytes = max(1, opts.MaxBytes-over-64)
		r, err = f.reader.Read(ctx, t.Root, t.Rel, opts)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			f.seen.forget(c.Conversation, t.Canonical) // the model now knows it is gone
		}
		return nil, f.suggest(ctx, c, f.readError(t, a.Path, r, err), a.Path)
	}
	name := f.display(t, t.Rel)
	if r.SHA256 != "" {
		f.seen.put(c.Conversation, t.Canonical, fingerprintOfRead(r))
	} else {
		f.seen.forget(c.Conversation, t.Canonical)
	}
	text := fileReadHeader(name, r)
	if r.Text != "" || r.FirstLine > 0 {
		text += "\n" + r.Text
	}
	return &Result{Text: text, Structured: fileReadSummary(name, r)}, nil
}

// fileReadHeader is the one line in front of the content: what part of the file this is and how to
// get the rest.
func fileReadHeader(name string, r fsread.ReadResult) string {
	var b strings.Builder
	b.WriteString(name)
	switch {
	case r.Encoding == fsread.EncodingBase64 || r.Encoding == fsread.EncodingHex:
		fmt.Fprintf(&b, ": bytes %d-%d of %d, %s", r.ByteOffset, r.ByteOffset+r.ByteCount, r.Size, r.Encoding)
		if end := r.ByteOffset + r.ByteCount; end < r.Size {
			fmt.Fprintf(&b, "; more: offset %d", end)
		}
	case r.Binary && r.BinarySummary != "":
		b.WriteString(": " + r.BinarySummary)
	case r.Binary:
		fmt.Fprintf(&b, ": binary, %d bytes; read it with encoding base64 or hex", r.Size)
	case r.FirstLine == 0 && r.TotalLines == 0:
		b.WriteString(": empty file")
	default:
		total := fmt.Sprint(r.TotalLines)
		if r.TotalLines < 0 {
			total = fmt.Sprintf("~%d (estimated)", r.EstimatedTotalLines)
		}
		if r.FirstLine > 0 {
			fmt.Fprintf(&b, ": lines %d-%d of %s", r.FirstLine, r.LastLine, total)
		} else {
			fmt.Fprintf(&b, ": %s lines", total)
		}
		if r.Truncated && r.NextLine > 0 {
			fmt.Fprintf(&b, "; truncated, continue with start_line %d", r.NextLine)
		} else if !r.EOF && r.LastLine > 0 {
			fmt.Fprintf(&b, "; more from line %d", r.LastLine+1)
		}
		if r.LinesCut > 0 {
			fmt.Fprintf(&b, "; %d long line(s) cut", r.LinesCut)
		}
		if r.CRLF {
			b.WriteString("; CRLF")
		}
		if r.InvalidUTF8 {
			b.WriteString("; invalid UTF-8 replaced")
		}
	}
	if r.Note != "" {
		b.WriteString("; " + strings.TrimSuffix(r.Note, "."))
	}
	return b.String()
}

func fileReadSummary(name string, r fsread.ReadResult) map[string]any {
	m := map[string]any{"path": name, "size": r.Size}
	if r.Encoding == fsread.EncodingBase64 || r.Encoding == fsread.EncodingHex {
		m["byte_offset"], m["byte_count"] = r.ByteOffset, r.ByteCount
		return m
	}
	m["first_line"], m["last_line"], m["total_lines"] = r.FirstLine, r.LastLine, r.TotalLines
	if r.Truncated {
		m["truncated"], m["next_line"] = true, r.NextLine
	}
	if r.Binary {
		m["binary"] = true
	}
	return m
}

func (f *fileTool) listDir(ctx context.Context, c *Call, a *fileListArgs) (*Result, error) {
	t, err := f.openRead(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	r, err := fsread.ListDir(ctx, t.Root, t.Rel, fsread.ListOptions{
		Screen:    t,
		Recursive: a.Recursive || a.MaxDepth > 1, MaxDepth: a.MaxDepth,
		IncludeHidden: a.IncludeHidden, IncludeIgnored: a.IncludeIgnored, MaxEntries: a.MaxResults,
	})
	if err != nil {
		return nil, f.searchError(t, a.Path, err)
	}
	name := f.display(t, t.Rel)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d entries", fileDirName(name), len(r.Entries))
	if r.Truncated {
		more := fmt.Sprint(r.Omitted)
		if r.OmittedIsLowerBound {
			more += "+"
		}
		fmt.Fprintf(&b, ", %s more not shown (max_results)", more)
	}
	b.WriteString(fileSkipped(r.HiddenSkipped, r.IgnoredSkipped, r.DepthLimited, r.Errors, r.Withheld))
	prefix := ""
	if rel := path.Clean(t.Rel); rel != "." {
		prefix = rel + "/"
	}
	now := f.now()
	for _, e := range r.Entries {
		b.WriteString("\n" + strings.TrimPrefix(e.Path, prefix))
		switch e.Type {
		case fsread.TypeDir:
			b.WriteString("/")
		case fsread.TypeSymlink:
			b.WriteString("@")
		case fsread.TypeFile:
			fmt.Fprintf(&b, " %s %s", fileSize(e.Size), fileAge(now.Sub(e.ModTime)))
		default:
			b.WriteString(" (special)")
		}
	}
	return &Result{Text: b.String()}, nil
}

func (f *fileTool) fileSearch(ctx context.Context, c *Call, a *fileSearchArgs) (*Result, error) {
	t, err := f.openRead(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	pattern := a.Pattern
	if filepath.IsAbs(pattern) {
		// Models often glob with the absolute path they were shown.
		base := fileCanonical(t, t.Rel)
		rel, ok := strings.CutPrefix(filepath.ToSlash(pattern), filepath.ToSlash(base)+"/")
		if !ok {
			return nil, &ToolError{Code: CodeInvalidPattern, Param: "pattern", Message: fmt.Sprintf("pattern %s is absolute and not under %s", a.Pattern, f.display(t, t.Rel)),
				Next: "put the directory in path and a relative glob in pattern"}
		}
		pattern = rel
	}
	if dir, ok := strings.CutSuffix(pattern, "/"); ok && dir != "" {
		// "name/" means the files in directories called name (globs match files only).
		if !strings.Contains(dir, "/") {
			dir = "**/" + dir
		}
		pattern = dir + "/**"
	}
	opts := fsread.GlobOptions{Screen: t, MaxResults: a.MaxResults, SortBy: a.Sort, IncludeHidden: a.IncludeHidden, IncludeIgnored: a.IncludeIgnored}
	if f.useIndex(t) {
		opts.Plan = func(walkBase string) (fsread.GlobPlan, bool) { return f.index.PlanGlob(ctx, walkBase, t) }
	}
	r, err := fsread.Glob(ctx, t.Root, t.Rel, pattern, opts)
	if err != nil {
		return nil, f.searchError(t, a.Path, err)
	}
	var b strings.Builder
	if r.Total == 0 && !strings.ContainsAny(pattern, "*?[{") {
		// A bare name matches whole names only; models mean it as a part of one.
		if r2, err := fsread.Glob(ctx, t.Root, t.Rel, "*"+pattern+"*", opts); err == nil && r2.Total > 0 {
			fmt.Fprintf(&b, "0 match(es) for %s; ", a.Pattern)
			pattern, r = "*"+pattern+"*", r2
		}
	}
	fmt.Fprintf(&b, "%d match(es) for %s", r.Total, pattern)
	if rel := path.Clean(t.Rel); rel != "." || t.Root != f.guard.Root() {
		fmt.Fprintf(&b, " under %s", f.display(t, t.Rel))
	}
	if r.Truncated {
		fmt.Fprintf(&b, ", first %d shown", len(r.Matches))
		if r.VisitLimited {
			b.WriteString(" (walk limit reached, total is a lower bound)")
		}
	}
	if len(r.Matches) > 1 {
		if a.Sort == fsread.SortByPath {
			b.WriteString(", by path")
		} else {
			b.WriteString(", newest first")
		}
	}
	b.WriteString(fileSkipped(r.HiddenSkipped, r.IgnoredSkipped, r.DepthLimited, r.Errors, r.Withheld))
	if r.Total == 0 {
		b.WriteString(fileSkippedHint(r.HiddenSkipped, r.IgnoredSkipped))
	}
	for _, m := range r.Matches {
		b.WriteString("\n" + f.display(t, m.Path))
		if m.Type == fsread.TypeDir {
			b.WriteString("/")
		}
	}
	return &Result{Text: b.String()}, nil
}

func (f *fileTool) grepSearch(ctx context.Context, c *Call, a *fileGrepArgs) (*Result, error) {
	t, err := f.openRead(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	if strings.Contains(a.Pattern, "\n") {
		return nil, &ToolError{Code: CodeInvalidPattern, Param: "pattern", Message: "grep_search matches one line at a time, so a pattern with a line break never matches",
			Next: "search for one line of the text"}
	}
	include, exclude := grepGlobs(a.Include, a.Exclude)
	opts := fsread.GrepOptions{
		Screen:  t,
		Pattern: a.Pattern, Literal: a.Literal, IgnoreCase: a.CaseInsensitive,
		Include: include, Exclude: exclude,
		ContextLines: a.ContextLines, MaxMatches: a.MaxResults,
		IncludeHidden: a.IncludeHidden, IncludeIgnored: a.IncludeIgnored,
	}
	var r fsread.GrepResult
	if plan, ok := f.planGrep(ctx, t, opts); ok {
		r, err = fsread.GrepPlanned(ctx, t.Root, opts, plan)
	} else {
		r, err = fsread.Grep(ctx, t.Root, t.Rel, opts)
		if err == nil {
			f.walkedFiles(r.FilesSearched + r.BinarySkipped)
		}
	}
	if err != nil {
		err = f.searchError(t, a.Path, err)
		// Models often grep for code like "func (" or "a[i]" as if it were text.
		var te *ToolError
		if errors.As(err, &te) && te.Code == CodeInvalidPattern && !a.Literal && strings.HasPrefix(te.Message, "pattern ") {
			te.Next = `escape regex metacharacters with \ (\( \[ \.), or set literal true to search the text as written`
		}
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d matching line(s) in %d file(s) (%d searched)", r.TotalMatches, r.FilesMatched, r.FilesSearched)
	if r.Truncated {
		fmt.Fprintf(&b, ", first %d shown; narrow the pattern or path", len(r.Matches))
	}
	if r.VisitLimited {
		b.WriteString(", walk limit reached")
	}
	if r.BinarySkipped > 0 {
		fmt.Fprintf(&b, ", %d binary skipped", r.BinarySkipped)
	}
	b.WriteString(fileSkipped(r.HiddenSkipped, r.IgnoredSkipped, r.DepthLimited, r.Errors, r.Withheld))
	if r.TotalMatches == 0 {
		b.WriteString(fileSkippedHint(r.HiddenSkipped, r.IgnoredSkipped))
		if !a.Literal && strings.Contains(a.Pattern, `\n`) {
			b.WriteString("; matching is per line, so \\n finds nothing")
		}
	}
	cur, last := "", int64(0)
	for _, m := range r.Matches {
		if m.Path != cur {
			cur, last = m.Path, 0
			b.WriteString("\n" + f.display(t, m.Path))
		}
		first := m.Line - int64(len(m.Before))
		if last > 0 && first > last+1 {
			b.WriteString("\n--")
		}
		for i, l := range m.Before {
			if n := first + int64(i); n > last {
				fmt.Fprintf(&b, "\n%d-%s", n, l)
			}
		}
		if m.Line > last {
			fmt.Fprintf(&b, "\n%d:%s", m.Line, m.Text)
			if m.Cut {
				// Else the model takes the excerpt for the whole line.
				b.WriteString(" [line cut]")
			}
		}
		last = max(last, m.Line)
		for i, l := range m.After {
			// A later match inside this context is printed as a match, not as context.
			n := m.Line + 1 + int64(i)
			if n > last && !grepMatchAt(r.Matches, m.Path, n) {
				fmt.Fprintf(&b, "\n%d-%s", n, l)
				last = n
			} else if n > last {
				break
			}
		}
	}
	return &Result{Text: b.String()}, nil
}

// planGrep asks the index for the files a search must read.
func (f *fileTool) planGrep(ctx context.Context, t *authz.Target, o fsread.GrepOptions) (fsread.GrepPlan, bool) {
	if !f.useIndex(t) {
		return fsread.GrepPlan{}, false
	}
	return f.index.PlanGrep(ctx, path.Clean(t.Rel), o)
}

// grepMatchAt reports whether path has a match at line n (the matches are sorted).
func grepMatchAt(ms []fsread.GrepMatch, p string, n int64) bool {
	for _, m := range ms {
		if m.Path == p && m.Line == n {
			return true
		}
	}
	return false
}

// fileGlobs accepts "*.go,*.md" as two globs, as models often send them, but keeps braces
// ("*.{go,md}") whole.
func fileGlobs(in []string) []string {
	var out []string
	for _, g := range in {
		if strings.Contains(g, ",") && !strings.Contains(g, "{") {
			for _, p := range strings.Split(g, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
			continue
		}
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// grepGlobs reads include and exclude the way models write them after rg and .gitignore: "!x"
// in include excludes x, and a trailing "/" names a directory ("vendor/" excludes it, "src/"
// includes what is under it).
func grepGlobs(inc, exc []string) (include, exclude []string) {
	for _, g := range fileGlobs(inc) {
		switch {
		case strings.HasPrefix(g, "!") && len(g) > 1:
			exclude = append(exclude, strings.TrimSuffix(g[1:], "/"))
		case strings.HasSuffix(g, "/") && len(g) > 1:
			include = append(include, g+"**")
		default:
			include = append(include, g)
		}
	}
	for _, g := range fileGlobs(exc) {
		if t := strings.TrimSuffix(g, "/"); t != "" {
			exclude = append(exclude, t)
		}
	}
	return include, exclude
}

func fileSkipped(hidden, ignored, depth, errs, withheld int) string {
	var parts []string
	if withheld > 0 {
		// Named so the model does not go looking for them another way.
		parts = append(parts, fmt.Sprintf("%d withheld (credentials, toolhost state or files linked outside; only a grant naming them shows them)", withheld))
	}
	if hidden > 0 {
		parts = append(parts, fmt.Sprintf("%d hidden", hidden))
	}
	if ignored > 0 {
		parts = append(parts, fmt.Sprintf("%d gitignored", ignored))
	}
	if depth > 0 {
		parts = append(parts, fmt.Sprintf("%d dirs below max_depth", depth))
	}
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable", errs))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; skipped " + strings.Join(parts, ", ")
}

// fileSkippedHint tells a search that found nothing how to look where it did not.
func fileSkippedHint(hidden, ignored int) string {
	switch {
	case hidden > 0 && ignored > 0:
		return " (include_hidden, include_ignored search them)"
	case hidden > 0:
		return " (include_hidden searches them)"
	case ignored > 0:
		return " (include_ignored searches them)"
	}
	return ""
}

func fileDirName(name string) string {
	if name == "." || strings.HasSuffix(name, "/") {
		return name
	}
	return name + "/"
}

// fileAge is how long ago a file was modified, in the largest unit that fits: "now", "5m",
// "3h", "12d", "4mo", "2y". A clock behind the file's says "now".
func fileAge(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d < 2*day:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d < 60*day:
		return fmt.Sprintf("%dd", d/day)
	case d < 730*day:
		return fmt.Sprintf("%dmo", d/(30*day))
	}
	return fmt.Sprintf("%dy", d/(365*day))
}

func fileSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1fK", float64(n)/1024)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
}

// UnmarshalJSON accepts the key spellings models send for an edit: camelCase, old_str/new_str,
// file_path. Unknown keys are kept aside so the handler can name them (an error here would reach
// the model only as a generic type error).
func (e *fileEdit) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	aliases := map[string]string{
		"path": "path", "file_path": "path", "file": "path", "filename": "path",
		"old_string": "old_string", "old_str": "old_string", "old_text": "old_string",
		"new_string": "new_string", "new_str": "new_string", "new_text": "new_string", "replace": "new_string", "replacement": "new_string",
		"replace_all": "replace_all",
	}
	for k, v := range m {
		name, ok := aliases[k]
		if !ok {
			name, ok = aliases[snakeCase(k)]
		}
		if !ok {
			e.unknown = append(e.unknown, k)
			continue
		}
		var err error
		switch name {
		case "path":
			err = json.Unmarshal(v, &e.Path)
		case "old_string":
			err = json.Unmarshal(v, &e.OldString)
		case "new_string":
			err = json.Unmarshal(v, &e.NewString)
		case "replace_all":
			err = json.Unmarshal(coerce(fileBoolType, v), &e.ReplaceAll)
		}
		if err != nil {
			return fmt.Errorf("edit field %s: %w", name, err)
		}
	}
	return nil
}
