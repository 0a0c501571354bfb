package codeintel

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"toolhost/internal/codeindex"
	"toolhost/internal/fsread"
	"toolhost/internal/lsp"
)

// Outline is a file's or a directory's symbols.
type Outline struct {
	Files   []FileOutline
	Backend []string // what served it, one per kind of file
	Notes   []string
	// Truncated says the directory held more files than were outlined.
	Truncated bool
}

// FileOutline is one file's symbols, top level with their members as children.
type FileOutline struct {
	Path    string
	Symbols []Symbol
}

// DefaultOutlineDepth is how deep a directory's outline goes unless told: its files and
// those of its subdirectories.
const DefaultOutlineDepth = 2

// DocumentSymbols outlines a file, or the files of a directory down to depth (1: the
// directory's own files). A language server answers for a file when it is ready in time;
// otherwise (and for Go, whose parser here is exact) the built-in parsers do.
func (e *Engine) DocumentSymbols(ctx context.Context, rel string, depth int, isDir bool) (*Outline, error) {
	out := &Outline{}
	if !isDir {
		lang := lsp.LanguageOf(rel)
		if lang == "" {
			return nil, ErrUnsupported
		}
		if lang != "go" {
			if s, ready, note := e.server(ctx, lang); s != nil && ready {
				syms, err := e.lspOutline(ctx, s, rel)
				if err == nil {
					out.Files = []FileOutline{{Path: rel, Symbols: syms}}
					out.Backend = []string{s.Name()}
					return out, nil
				}
				out.Notes = append(out.Notes, s.Name()+" failed ("+shortErr(err)+"); answered by the built-in outline")
			} else if note != "" {
				out.Notes = append(out.Notes, note+"; answered by the built-in outline")
			}
		}
		syms, err := e.outlineOf(rel)
		if err != nil {
			return nil, err
		}
		out.Files = []FileOutline{{Path: rel, Symbols: syms}}
		out.Backend = []string{backendOf(rel)}
		return out, nil
	}
	if depth <= 0 {
		depth = DefaultOutlineDepth
	}
	files, truncated, err := e.sourceFiles(ctx, rel, depth, codeindex.Query{All: true}, 500)
	if err != nil {
		return nil, err
	}
	out.Truncated = truncated
	seen := map[string]bool{}
	for _, f := range files {
		syms, err := e.outlineOf(f)
		if err != nil || len(syms) == 0 {
			continue
		}
		out.Files = append(out.Files, FileOutline{Path: f, Symbols: syms})
		if b := backendOf(f); !seen[b] {
			seen[b] = true
			out.Backend = append(out.Backend, b)
		}
	}
	return out, nil
}

// lspOutline asks a server for a file's outline.
func (e *Engine) lspOutline(ctx context.Context, s *lsp.Server, rel string) ([]Symbol, error) {
	src, _, err := e.read(rel)
	if err != nil {
		return nil, err
	}
	text := string(src)
	if _, err := s.Sync(ctx, e.abs(rel), text); err != nil {
		return nil, err
	}
	var raw []jsonSymbol
	if err := s.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": lsp.FileURI(e.abs(rel))}}, &raw); err != nil {
		return nil, err
	}
	lines := splitLines(src)
	var conv func(js []jsonSymbol, container string) []Symbol
	conv = func(js []jsonSymbol, container string) []Symbol {
		var out []Symbol
		for _, j := range js {
			r := j.SelectionRange
			if r == nil {
				r = j.Range
			}
			if r == nil && j.Location != nil {
				r = j.Location.Range
			}
			if r == nil {
				continue
			}
			line := r.Start.Line + 1
			ltext := ""
			if line >= 1 && line <= len(lines) {
				ltext = string(lines[line-1])
			}
			sym := Symbol{Path: rel, Name: j.Name, Kind: lspKind(j.Kind), Container: container, Line: line,
				Column: fromLSP(s.UTF8(), ltext, r.Start.Character), Signature: lineText(lines, line)}
			if j.ContainerName != "" {
				sym.Container = j.ContainerName
			}
			if j.Range != nil {
				sym.EndLine = j.Range.End.Line + 1
			}
			sym.Children = conv(j.Children, j.Name)
			out = append(out, sym)
		}
		return out
	}
	return tidy(conv(raw, "")), nil
}

// tidy sorts symbols by line and drops what servers list inside functions (parameters, local
// variables, callbacks): an outline shows definitions, not a function's insides.
func tidy(ss []Symbol) []Symbol {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].Line < ss[j].Line })
	for i := range ss {
		if ss[i].Kind == KindFunction || ss[i].Kind == KindMethod {
			ss[i].Children = nil
			continue
		}
		ss[i].Children = tidy(ss[i].Children)
	}
	return ss
}

// jsonSymbol reads both DocumentSymbol and SymbolInformation.
type jsonSymbol struct {
	Name           string         `json:"name"`
	Kind           lsp.SymbolKind `json:"kind"`
	Detail         string         `json:"detail"`
	ContainerName  string         `json:"containerName"`
	Range          *lsp.Range     `json:"range"`
	SelectionRange *lsp.Range     `json:"selectionRange"`
	Location       *struct {
		URI   string     `json:"uri"`
		Range *lsp.Range `json:"range"`
	} `json:"location"`
	Children []jsonSymbol `json:"children"`
}

// SymbolQuery is what find_symbol looks for.
type SymbolQuery struct {
	// Name is an exact name, or a glob (* and ?) over names.
	Name string
	Kind string
	// Scope is a file or directory (relative; "." for everything).
	Scope string
	// Max bounds the symbols returned (the rest are counted).
	Max int
}

// SymbolResult is find_symbol's answer.
type SymbolResult struct {
	Symbols []Symbol
	Total   int
	Backend []string
	Notes   []string
	// Loose says nothing matched exactly, so these match ignoring case or as a part.
	Loose bool
	// Truncated says the walk stopped at the file bound before the end of the scope.
	Truncated bool
}

// FindSymbol finds definitions by name in a scope: from the built-in parsers over the files
// that hold the name (the index finds them without reading the tree), and from the language
// servers already running and ready for the other languages (workspace/symbol). Nothing
// exact: the same search ignoring case, then as a part of names.
func (e *Engine) FindSymbol(ctx context.Context, q SymbolQuery) (*SymbolResult, error) {
	if q.Max <= 0 {
		q.Max = 50
	}
	glob := strings.ContainsAny(q.Name, "*?[")
	if glob {
		if _, err := path.Match(q.Name, ""); err != nil {
			return nil, err
		}
	}
	lit := longestLiteral(q.Name)
	scopeIsFile := q.Scope != "." && q.Scope != "" && lsp.LanguageOf(q.Scope) != ""
	ix := e.cfg.Index
	byName := !glob && !scopeIsFile && ix != nil && ix.HasSymbols() && ix.Ready()
	res := &SymbolResult{}
	// files lists the files to scan: those defining the name (the index knows), those holding
	// its longest literal (the index's trigrams), or a bounded walk.
	files := func(anyCase bool) ([]string, error) {
		if scopeIsFile {
			return []string{q.Scope}, nil
		}
		if byName {
			if fs, ok := ix.Files(ctx, q.Scope, codeindex.SymbolQuery(q.Name, anyCase)); ok {
				return onlySource(fs), nil
			}
		}
		iq := codeindex.Query{All: true}
		if len(lit) >= 3 {
			iq = codeindex.LiteralQuery(lit)
		}
		fs, truncated, err := e.sourceFiles(ctx, q.Scope, 0, iq, e.cfg.MaxFiles)
		res.Truncated = res.Truncated || truncated
		return fs, err
	}
	match := func(name string) bool {
		if glob {
			ok, _ := path.Match(q.Name, name)
			return ok
		}
		return name == q.Name
	}
	backends := map[string]bool{}
	langs := map[string]bool{}
	scan := func(fs []string, anyCase bool) ([]Symbol, error) {
		var all []Symbol
		prefilter := lit
		if anyCase || glob {
			prefilter = ""
		}
		for _, f := range fs {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lang := lsp.LanguageOf(f)
			langs[lang] = true
			syms, err := e.scanOf(f, prefilter)
			if err != nil || syms == nil {
				continue
			}
			backends[backendOf(f)] = true
			all = append(all, syms...)
		}
		return all, nil
	}
	fs, err := files(false)
	if err != nil {
		return nil, err
	}
	all, err := scan(fs, false)
	if err != nil {
		return nil, err
	}
	// Servers already running and ready answer for their languages too (workspace/symbol).
	if e.cfg.Pool != nil && !glob {
		for lang := range langs {
			if lang == "go" {
				continue // the Go parser is exact
			}
			s := e.cfg.Pool.Running(lang)
			if s == nil || s.Busy() {
				continue
			}
			syms, err := e.workspaceSymbols(ctx, s, q.Name, q.Scope)
			if err != nil {
				res.Notes = append(res.Notes, s.Name()+" failed ("+shortErr(err)+")")
				continue
			}
			// The server's answer replaces the outline's for its language; a container the
			// server leaves out (tsserver's workspace/symbol) is taken from the outline.
			kept := all[:0]
			outlined := map[string]string{}
			for _, sym := range all {
				if lsp.LanguageOf(sym.Path) != lang {
					kept = append(kept, sym)
				} else if sym.Container != "" {
					outlined[fmt.Sprintf("%s:%d:%s", sym.Path, sym.Line, sym.Name)] = sym.Container
				}
			}
			for i := range syms {
				if syms[i].Container == "" {
					syms[i].Container = outlined[fmt.Sprintf("%s:%d:%s", syms[i].Path, syms[i].Line, syms[i].Name)]
				}
			}
			all = append(kept, syms...)
			delete(backends, BackendHeuristic)
			backends[s.Name()] = true
		}
	}
	pick := func(m func(Symbol) bool) []Symbol {
		var out []Symbol
		for _, s := range all {
			if m(s) && kindMatches(s.Kind, q.Kind) {
				out = append(out, s)
			}
		}
		return out
	}
	found := pick(func(s Symbol) bool { return match(s.Name) })
	if len(found) == 0 && !glob {
		// The files defining the name in any case (or holding it, without the index), read
		// again without the case-sensitive filter.
		fs, err := files(true)
		if err != nil {
			return nil, err
		}
		if all, err = scan(fs, true); err != nil {
			return nil, err
		}
		lower := strings.ToLower(q.Name)
		found = pick(func(s Symbol) bool { return strings.EqualFold(s.Name, q.Name) })
		if len(found) == 0 && !byName {
			found = pick(func(s Symbol) bool { return strings.Contains(strings.ToLower(s.Name), lower) })
		}
		res.Loose = len(found) > 0
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Path != found[j].Path {
			return pathLess(found[i].Path, found[j].Path)
		}
		return found[i].Line < found[j].Line
	})
	res.Total = len(found)
	if len(found) > q.Max {
		found = found[:q.Max]
	}
	res.Symbols = found
	for b := range backends {
		res.Backend = append(res.Backend, b)
	}
	sort.Strings(res.Backend)
	return res, nil
}

// onlySource keeps the files of a language with symbol support.
func onlySource(fs []string) []string {
	out := fs[:0]
	for _, f := range fs {
		if lsp.LanguageOf(f) != "" {
			out = append(out, f)
		}
	}
	return out
}

// workspaceSymbols asks a server for symbols by name, keeping exact matches in the scope.
func (e *Engine) workspaceSymbols(ctx context.Context, s interface {
	Call(context.Context, string, any, any) error
	UTF8() bool
}, name, scope string) ([]Symbol, error) {
	var raw []jsonSymbol
	if err := s.Call(ctx, "workspace/symbol", map[string]any{"query": name}, &raw); err != nil {
		return nil, err
	}
	var out []Symbol
	for _, j := range raw {
		if j.Name != name || j.Location == nil {
			continue
		}
		rel, inside := e.relOf(lsp.URIPath(j.Location.URI))
		if !inside || !under(rel, scope) {
			continue
		}
		sym := Symbol{Path: rel, Name: j.Name, Kind: lspKind(j.Kind), Container: j.ContainerName, Line: 1, Column: 1}
		if r := j.Location.Range; r != nil {
			sym.Line = r.Start.Line + 1
			if src, _, err := e.read(rel); err == nil {
				lines := splitLines(src)
				sym.Signature = lineText(lines, sym.Line)
				if sym.Line <= len(lines) {
					sym.Column = fromLSP(s.UTF8(), string(lines[sym.Line-1]), r.Start.Character)
				}
			}
		}
		out = append(out, sym)
	}
	return out, nil
}

func under(rel, scope string) bool {
	return scope == "" || scope == "." || rel == scope || strings.HasPrefix(rel, strings.TrimSuffix(scope, "/")+"/")
}

// flatten lists symbols and their members.
func flatten(syms []Symbol) []Symbol {
	var out []Symbol
	for _, s := range syms {
		out = append(out, s)
		if len(s.Children) > 0 {
			out = append(out, flatten(s.Children)...)
		}
	}
	return out
}

// longestLiteral is the longest run of name characters of a glob.
func longestLiteral(glob string) string {
	best, cur := "", strings.Builder{}
	flush := func() {
		if cur.Len() > len(best) {
			best = cur.String()
		}
		cur.Reset()
	}
	for _, r := range glob {
		if r == '*' || r == '?' || r == '[' || r == ']' {
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return best
}

// sourceFiles lists files with a known language under scope (a directory), in walk order:
// from the index (only those that may hold q's text) or a bounded walk. depth 0 means no
// bound.
func (e *Engine) sourceFiles(ctx context.Context, scope string, depth int, q codeindex.Query, max int) ([]string, bool, error) {
	if scope == "" {
		scope = "."
	}
	keep := func(rel string) bool {
		if lsp.LanguageOf(rel) == "" {
			return false
		}
		if depth > 0 {
			d := strings.Count(rel, "/") + 1
			if scope != "." {
				d -= strings.Count(scope, "/") + 1
			}
			return d <= depth
		}
		return true
	}
	if e.cfg.Index != nil && e.cfg.Index.Ready() {
		if files, ok := e.cfg.Index.Files(ctx, scope, q); ok {
			var out []string
			for _, f := range files {
				if keep(f) {
					out = append(out, f)
				}
			}
			if len(out) > max {
				return out[:max], true, nil
			}
			return out, false, nil
		}
	}
	var out []string
	truncated := false
	_, err := fsread.Walk(ctx, e.cfg.Root, scope, fsread.WalkOptions{Screen: e.cfg.Screen, MaxDepth: depth}, func(en fsread.WalkEntry) error {
		if en.Type != fsread.TypeFile || !keep(en.Rel) {
			return nil
		}
		if len(out) >= max {
			truncated = true
			return errStop
		}
		out = append(out, en.Rel)
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, false, err
	}
	return out, truncated, nil
}

var errStop = errors.New("stop")

// pathLess orders paths as a walk visits them: by component.
func pathLess(a, b string) bool {
	return strings.ReplaceAll(a, "/", "\x00") < strings.ReplaceAll(b, "/", "\x00")
}

// shortErr is an error's first line, cut.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
