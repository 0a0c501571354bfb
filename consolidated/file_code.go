package consolidated

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"toolhost/internal/codeintel"
	"toolhost/internal/edit"
	"toolhost/internal/lsp"
)

// The code operations of file_operations: symbols, usages, definitions, renames and semantic
// search, answered by internal/codeintel (language servers, else built-in parsers).

type fileFindSymbolArgs struct {
	Name       string `json:"name" alias:"symbol,symbol_name" jsonschema:"Symbol name (* ? match any)."`
	Kind       string `json:"kind,omitempty" enum:"function,method,type,class,interface,field,variable,constant,module,enum"`
	Path       string `json:"path,omitempty"`
	MaxResults int    `json:"max_results,omitempty"`
}

type fileSymbolAtArgs struct {
	Path       string `json:"path"`
	Name       string `json:"name,omitempty"`
	Line       int64  `json:"line,omitempty"`
	Column     int64  `json:"column,omitempty" alias:"col,character" jsonschema:"1-based, in characters; with line: the symbol there."`
	MaxResults int    `json:"max_results,omitempty"`
}

type fileDefinitionArgs struct {
	Path   string `json:"path"`
	Name   string `json:"name,omitempty"`
	Line   int64  `json:"line,omitempty"`
	Column int64  `json:"column,omitempty"`
}

type fileOutlineArgs struct {
	Path     string `json:"path"`
	MaxDepth int    `json:"max_depth,omitempty"`
}

type fileRenameSymbolArgs struct {
	Path    string `json:"path"`
	Name    string `json:"name,omitempty"`
	Line    int64  `json:"line,omitempty"`
	Column  int64  `json:"column,omitempty"`
	NewName string `json:"new_name" alias:"new_symbol,to_name"`
	DryRun  bool   `json:"dry_run,omitempty"`
}

type fileSemanticArgs struct {
	Query      string `json:"query" alias:"question,text" jsonschema:"semantic_search: what the code does, in words."`
	Path       string `json:"path,omitempty"`
	MaxResults int    `json:"max_results,omitempty"`
}

// codeTimeout bounds a code operation: language servers answer within their own timeout, a
// walk of a large tree without the index within this.
const codeTimeout = 90 * time.Second

// openCode opens the path a code operation works under: inside the working directory only
// (servers and parsers see the working directory). It returns the relative path and whether
// it is a directory.
func (f *fileTool) openCode(ctx context.Context, c *Call, p string) (string, bool, error) {
	if p == "" {
		p = "."
	}
	t, err := f.openRead(ctx, c, p, "path")
	if err != nil {
		return "", false, err
	}
	defer t.Close()
	if t.Root != f.guard.Root() {
		return "", false, &ToolError{Code: CodeOutsideWorkdir, Param: "path", Message: p + " is outside the working directory, where code operations work",
			Next: "use read_file or grep_search outside it"}
	}
	rel := path.Clean(t.Rel)
	fi, err := t.Root.Stat(filepath.FromSlash(rel))
	if err != nil {
		return "", false, f.suggest(ctx, c, f.fsError(rel, p, err), p)
	}
	return rel, fi.IsDir(), nil
}

// codeError maps the engine's errors.
func (f *fileTool) codeError(err error, param string) error {
	var (
		te    *ToolError
		ce    *codeintel.CandidatesError
		stale *codeintel.StaleError
	)
	switch {
	case errors.As(err, &te):
		return te
	case errors.As(err, &stale):
		return &ToolError{Code: CodeStale, Param: "path", Message: err.Error() + "; nothing was written", Next: "call rename_symbol again", Cause: err}
	case errors.As(err, &ce) && errors.Is(err, codeintel.ErrAmbiguous):
		return &ToolError{Code: CodeAmbiguous, Param: "name", Message: ce.Text, Next: "give path, line and column of the one you mean", Cause: err}
	case errors.Is(err, codeintel.ErrAmbiguous):
		return &ToolError{Code: CodeAmbiguous, Param: "name", Message: err.Error(), Next: "give path, line and column of the one you mean", Cause: err}
	case errors.Is(err, codeintel.ErrRefused):
		return &ToolError{Code: CodeInvalidValue, Param: "new_name", Message: err.Error(), Next: "pick a name the language allows here", Cause: err}
	case errors.Is(err, codeintel.ErrNoSymbol):
		return &ToolError{Code: CodeNotFound, Param: param, Message: err.Error(), Next: "find it with find_symbol or grep_search", Cause: err}
	case errors.Is(err, codeintel.ErrPosition):
		return &ToolError{Code: CodePastEnd, Param: "line", Message: err.Error(), Next: "line and column are 1-based; read_file with line_numbers shows them", Cause: err}
	case errors.Is(err, codeintel.ErrUnsupported):
		return &ToolError{Code: CodeInvalidValue, Param: "path", Message: err.Error() + " (Go, Python, TypeScript/JavaScript, Rust, C/C++)", Next: "use grep_search", Cause: err}
	case errors.Is(err, codeintel.ErrNeedServer):
		return &ToolError{Code: CodeNoLanguageServer, Param: "path", Message: err.Error(), Next: "install it, or set its command in the [language_servers] configuration; meanwhile edit with multi_replace_string", Cause: err}
	case errors.Is(err, codeintel.ErrTooLarge):
		return &ToolError{Code: CodeTooLarge, Param: "path", Message: err.Error(), Cause: err}
	case errors.Is(err, lsp.ErrExited), errors.Is(err, lsp.ErrTimeout), errors.Is(err, lsp.ErrNotReady), errors.Is(err, lsp.ErrCrashing):
		return &ToolError{Code: CodeLanguageServerFailed, Param: "path", Message: err.Error(), Next: "call again: the server is started anew (find_symbol and document_symbols answer without it)", Cause: err}
	case errors.Is(err, fs.ErrNotExist):
		return &ToolError{Code: CodeNotFound, Param: "path", Message: err.Error(), Next: "find it with file_search", Cause: err}
	}
	return f.fsError("", "", err)
}

func (f *fileTool) findSymbol(ctx context.Context, c *Call, a *fileFindSymbolArgs) (*Result, error) {
	if strings.TrimSpace(a.Name) == "" {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "name", Message: "name is empty"}
	}
	scope, _, err := f.openCode(ctx, c, a.Path)
	if err != nil {
		return nil, err
	}
	r, err := f.code.FindSymbol(ctx, codeintel.SymbolQuery{Name: a.Name, Kind: a.Kind, Scope: scope, Max: a.MaxResults})
	if err != nil {
		if errors.Is(err, path.ErrBadPattern) {
			return nil, &ToolError{Code: CodeInvalidPattern, Param: "name", Message: "name " + a.Name + " is not a valid pattern"}
		}
		return nil, f.codeError(err, "name")
	}
	var b strings.Builder
	what := a.Name
	if a.Kind != "" {
		what += " (" + a.Kind + ")"
	}
	where := ""
	if scope != "." {
		where = " in " + scope
	}
	switch {
	case r.Total == 0:
		fmt.Fprintf(&b, "no symbol named %s%s", what, where)
	case r.Loose:
		fmt.Fprintf(&b, "no symbol named exactly %s%s; %d whose names hold it (any case)", what, where, r.Total)
	default:
		fmt.Fprintf(&b, "%d symbol(s) named %s%s", r.Total, what, where)
	}
	if len(r.Symbols) < r.Total {
		fmt.Fprintf(&b, ", first %d shown", len(r.Symbols))
	}
	writeBackends(&b, r.Backend, r.Notes)
	if r.Truncated {
		b.WriteString("; the scope has more source files than one search reads (narrow path)")
	}
	for _, s := range r.Symbols {
		fmt.Fprintf(&b, "\n%s:%d %s %s", s.Path, s.Line, s.Kind, qualifiedName(s))
		if s.Signature != "" {
			b.WriteString(": " + s.Signature)
		}
	}
	return &Result{Text: b.String()}, nil
}

func qualifiedName(s codeintel.Symbol) string {
	if s.Container != "" {
		return s.Container + "." + s.Name
	}
	return s.Name
}

// writeBackends says what answered, and why not something better.
func writeBackends(b *strings.Builder, backends, notes []string) {
	if len(backends) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(backends, ", "))
	}
	for _, n := range notes {
		b.WriteString("; " + n)
	}
}

func (f *fileTool) documentSymbols(ctx context.Context, c *Call, a *fileOutlineArgs) (*Result, error) {
	rel, isDir, err := f.openCode(ctx, c, a.Path)
	if err != nil {
		return nil, err
	}
	o, err := f.code.DocumentSymbols(ctx, rel, a.MaxDepth, isDir)
	if err != nil {
		return nil, f.codeError(err, "path")
	}
	var b strings.Builder
	n := 0
	for _, fo := range o.Files {
		n += countSymbols(fo.Symbols)
	}
	if isDir {
		fmt.Fprintf(&b, "%s: %d symbol(s) in %d file(s)", fileDirName(rel), n, len(o.Files))
	} else {
		fmt.Fprintf(&b, "%s: %d symbol(s)", rel, n)
	}
	writeBackends(&b, o.Backend, o.Notes)
	if o.Truncated {
		b.WriteString("; more files than one outline shows (use a subdirectory)")
	}
	for _, fo := range o.Files {
		indent := ""
		if isDir {
			b.WriteString("\n" + fo.Path)
			indent = "  "
		}
		writeOutline(&b, fo.Symbols, indent, 0)
	}
	return &Result{Text: b.String()}, nil
}

func countSymbols(ss []codeintel.Symbol) int {
	n := len(ss)
	for _, s := range ss {
		n += countSymbols(s.Children)
	}
	return n
}

// writeOutline writes one line per symbol, members indented under their type: the line number
// and the source line that defines it (or the kind and name when there is none).
func writeOutline(b *strings.Builder, ss []codeintel.Symbol, indent string, parentLine int) {
	for _, s := range ss {
		sig := strings.TrimSpace(strings.TrimSuffix(s.Signature, "{"))
		if sig == "" || !strings.Contains(sig, s.Name) || s.Line == parentLine {
			sig = s.Kind + " " + s.Name
		}
		fmt.Fprintf(b, "\n%s%d: %s", indent, s.Line, sig)
		writeOutline(b, s.Children, indent+"  ", s.Line)
	}
}

// openTarget opens path as openCode does and reads the symbol a call names in it: a position
// (line and column), or a name. isDir says whether path is a directory.
func (f *fileTool) openTarget(ctx context.Context, c *Call, path, name string, line, column int64) (t codeintel.Target, isDir bool, err error) {
	rel, isDir, err := f.openCode(ctx, c, path)
	if err != nil {
		return t, false, err
	}
	if line < 0 || column < 0 {
		return t, false, &ToolError{Code: CodeInvalidValue, Param: "line", Message: "line and column are 1-based"}
	}
	if line == 0 && name == "" {
		return t, false, &ToolError{Code: CodeMissingParameter, Param: "name", Message: "give the symbol's name, or line and column in path",
			Next: "find_symbol finds where a name is defined"}
	}
	if column > 0 && line == 0 {
		return t, false, &ToolError{Code: CodeMissingParameter, Param: "line", Message: "column needs a line"}
	}
	return codeintel.Target{Pos: codeintel.Pos{Path: rel, Line: int(line), Column: int(column)}, Name: name}, isDir, nil
}

// maxUsageLines is how many reference lines list_usages shows by default; the files after
// them are listed with their counts only.
const maxUsageLines = 300

func (f *fileTool) listUsages(ctx context.Context, c *Call, a *fileSymbolAtArgs) (*Result, error) {
	t, isDir, err := f.openTarget(ctx, c, a.Path, a.Name, a.Line, a.Column)
	if err != nil {
		return nil, err
	}
	r, err := f.code.ListUsages(ctx, t, isDir)
	if err != nil {
		return nil, f.codeError(err, "name")
	}
	max := a.MaxResults
	if max <= 0 {
		max = maxUsageLines
	}
	type fileRefs struct {
		path string
		refs []codeintel.Location
	}
	var files []fileRefs
	for _, l := range r.Refs {
		if len(files) == 0 || files[len(files)-1].path != l.Path {
			files = append(files, fileRefs{path: l.Path})
		}
		files[len(files)-1].refs = append(files[len(files)-1].refs, l)
	}
	var b strings.Builder
	kind := "reference(s)"
	if r.Lexical {
		kind = "whole-word match(es)"
	}
	fmt.Fprintf(&b, "%d %s to %s (%s:%d:%d) in %d file(s)", len(r.Refs), kind, r.Target.Name, r.Target.Path, r.Target.Line, r.Target.Column, len(files))
	writeBackends(&b, []string{r.Backend}, r.Notes)
	shown, countsOnly := 0, false
	for _, fr := range files {
		if shown >= max && !countsOnly {
			countsOnly = true
			b.WriteString("\nthe other files, with counts only (max_results shows more lines):")
		}
		fmt.Fprintf(&b, "\n%s (%d)", fr.path, len(fr.refs))
		if countsOnly {
			continue
		}
		for k, l := range fr.refs {
			if shown >= max {
				fmt.Fprintf(&b, "\n  ... %d more here", len(fr.refs)-k)
				break
			}
			fmt.Fprintf(&b, "\n  %d:%d: %s", l.Line, l.Column, l.Text)
			shown++
		}
	}
	return &Result{Text: b.String()}, nil
}

// definitionContext is how many lines around a definition go_to_definition shows.
const definitionContext = 3

func (f *fileTool) goToDefinition(ctx context.Context, c *Call, a *fileDefinitionArgs) (*Result, error) {
	t, isDir, err := f.openTarget(ctx, c, a.Path, a.Name, a.Line, a.Column)
	if err != nil {
		return nil, err
	}
	r, err := f.code.GoToDefinition(ctx, t, isDir)
	if err != nil {
		return nil, f.codeError(err, "name")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s:%d:%d): %d definition(s)", r.Target.Name, r.Target.Path, r.Target.Line, r.Target.Column, len(r.Defs))
	writeBackends(&b, []string{r.Backend}, r.Notes)
	for i, d := range r.Defs {
		if i == 10 {
			fmt.Fprintf(&b, "\n... %d more", len(r.Defs)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s:%d:%d", d.Path, d.Line, d.Column)
		lines, err := f.contextLines(ctx, c, d, definitionContext)
		if err != nil {
			var te *ToolError
			if errors.As(err, &te) {
				fmt.Fprintf(&b, " (not shown: %s)", te.Message)
			}
			continue
		}
		b.WriteString(lines)
	}
	return &Result{Text: b.String()}, nil
}

// contextLines reads the lines around a location through the guard (a definition outside the
// working directory is shown only where read_file could read it).
func (f *fileTool) contextLines(ctx context.Context, c *Call, d codeintel.Location, n int) (string, error) {
	p := d.Path
	if !d.Outside {
		p = filepath.Join(f.guard.WorkDir(), filepath.FromSlash(d.Path))
	}
	t, err := f.openRead(ctx, c, p, "path")
	if err != nil {
		return "", err
	}
	defer t.Close()
	fh, err := t.Root.Open(filepath.FromSlash(t.Rel))
	if err != nil {
		return "", err
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", &ToolError{Code: CodeNotRegular, Message: "not a regular file"}
	}
	src, err := io.ReadAll(io.LimitReader(fh, 4<<20))
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(src), "\n")
	var b strings.Builder
	from, to := max(1, d.Line-n), min(len(lines), max(d.Line+n, d.EndLine))
	to = min(to, d.Line+12)
	for l := from; l <= to; l++ {
		mark := " "
		if l == d.Line {
			mark = ">"
		}
		fmt.Fprintf(&b, "\n%s%5d  %s", mark, l, strings.TrimRight(lines[l-1], "\r"))
	}
	return b.String(), nil
}

// validIdentifier is a name a rename may give: letters, digits, _ and $, not starting with a
// digit.
func validIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

func (f *fileTool) renameSymbol(ctx context.Context, c *Call, a *fileRenameSymbolArgs) (*Result, error) {
	if !validIdentifier(a.NewName) {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "new_name", Message: fmt.Sprintf("%q is not an identifier", a.NewName), Next: "letters, digits and _, not starting with a digit"}
	}
	t, isDir, err := f.openTarget(ctx, c, a.Path, a.Name, a.Line, a.Column)
	if err != nil {
		return nil, err
	}
	r, err := f.code.Rename(ctx, t, isDir, a.NewName)
	if err != nil {
		return nil, f.codeError(err, "name")
	}
	if r.Target.Name == a.NewName {
		return nil, &ToolError{Code: CodeNoChange, Param: "new_name", Message: "the symbol is already called " + a.NewName}
	}
	// Every file goes through the guard as a write, and all must be under one root so that the
	// journal writes them all or none.
	set := &fileSet{}
	defer set.close()
	plan := &edit.Plan{}
	var rels []string
	for _, fe := range r.Files {
		p := fe.Path
		if !fe.Outside {
			p = filepath.Join(f.guard.WorkDir(), filepath.FromSlash(fe.Path))
		}
		tg, err := f.openWrite(ctx, c, p, "path")
		if err != nil {
			return nil, err
		}
		if err := set.add(tg, "path"); err != nil {
			return nil, err
		}
		plan.Changes = append(plan.Changes, edit.Change{Op: edit.OpUpdate, Path: tg.Rel, Old: fe.Old, New: fe.New})
		rels = append(rels, tg.Rel)
	}
	first := set.targets[0]
	edits := 0
	for _, fe := range r.Files {
		edits += fe.Edits
	}
	res := &edit.Result{Files: plan.Summary(), Diff: edit.CapDiff(plan.Diff(edit.DefaultContext), edit.DefaultMaxDiffLines), DryRun: a.DryRun}
	head := fmt.Sprintf("renamed %s to %s: %d edit(s) in %d file(s) (%s)", r.Target.Name, a.NewName, edits, len(r.Files), r.Backend)
	if a.DryRun {
		head = "dry run, nothing written: " + head
	} else {
		if err := plan.Commit(ctx, set.root, f.journal); err != nil {
			if errors.Is(err, edit.ErrConflict) {
				return nil, &ToolError{Code: CodeStale, Param: "path", Message: strings.Replace(err.Error(), "read it again and redo the edit", "it changed since the language server read it; nothing was written", 1),
					Next: "call rename_symbol again", Cause: err}
			}
			return nil, f.editError("", "path", err)
		}
		for _, ch := range plan.Changes {
			f.seen.put(c.Conversation, fileCanonical(first, ch.Path), edit.FingerprintOf(ch.New, nil))
		}
		f.code.Renamed(ctx, lsp.LanguageOf(r.Target.Path), r.Files)
	}
	_ = rels
	return f.writeResult(first, head, res), nil
}

func (f *fileTool) semanticSearch(ctx context.Context, c *Call, a *fileSemanticArgs) (*Result, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "query", Message: "query is empty", Next: "say in words what the code does"}
	}
	scope, _, err := f.openCode(ctx, c, a.Path)
	if err != nil {
		return nil, err
	}
	r, err := f.code.SemanticSearch(ctx, a.Query, scope, a.MaxResults)
	if err != nil {
		return nil, f.codeError(err, "query")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d result(s) for %q (%d chunk(s) of %d file(s) ranked; %s, blended with word matches)", len(r.Chunks), a.Query, r.Ranked, r.Files, r.Embedder)
	for _, n := range r.Notes {
		b.WriteString("; " + n)
	}
	for _, ch := range r.Chunks {
		fmt.Fprintf(&b, "\n%s:%d-%d %s %s (%.2f)", ch.Path, ch.Line, ch.EndLine, ch.Kind, ch.Name, ch.Score)
		if first := firstCodeLine(ch.Text); first != "" {
			b.WriteString("\n  " + first)
		}
	}
	return &Result{Text: b.String()}, nil
}

// firstCodeLine is the line a chunk's definition starts with (after its heading and comments).
func firstCodeLine(text string) string {
	lines := strings.Split(text, "\n")
	for _, l := range lines[1:] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
			continue
		}
		if len(t) > 160 {
			t = t[:157] + "..."
		}
		return t
	}
	return ""
}
