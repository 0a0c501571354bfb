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
	src, _, err := e.syncFile(ctx, s, rel)
	if err != nil {
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
	ix := e.cfg.Index
	scopeIsFile := q.Scope != "." && q.Scope != "" && lsp.LanguageOf(q.Scope) != ""
	s := &symbolSearch{e: e, q: q, glob: glob, lit: longestLiteral(q.Name), scopeIsFile: scopeIsFile,
		byName:   !glob && !scopeIsFile && ix != nil && ix.HasSymbols() && ix.Ready(),
		res:      &SymbolResult{},
		backends: map[string]bool{}, langs: map[string]bool{}}
	all, err := s.outline(ctx, false)
	if err != nil {
		return nil, err
	}
	if e.cfg.Pool != nil && !glob {
		all = s.fromServers(ctx, all)
	}
	found := s.pick(all, func(sym Symbol) bool {
		if glob {
			ok, _ := path.Match(q.Name, sym.Name)
			return ok
		}
		return sym.Name == q.Name
	})
	if len(found) == 0 && !glob {
		if found, err = s.loose(ctx); err != nil {
			return nil, err
		}
	}
	return s.answer(found), nil
}

// symbolSearch is one FindSymbol call: the query, what it knows of the scope, and what the
// answer gathers on the way (backends used, languages seen, notes).
type symbolSearch struct {
	e           *Engine
	q           SymbolQuery
	glob        bool
	lit         string // the name's longest literal, to filter files and lines by
	scopeIsFile bool
	byName      bool // the index finds the files that define the name
	res         *SymbolResult
	backends    map[string]bool
	langs       map[string]bool
}

// files lists the files to scan: those defining the name (the index knows), those holding its
// longest literal (the index's trigrams), or a bounded walk.
func (s *symbolSearch) files(ctx context.Context, anyCase bool) ([]string, error) {
	if s.scopeIsFile {
		return []string{s.q.Scope}, nil
	}
	if s.byName {
		if fs, ok := s.e.cfg.Index.Files(ctx, s.q.Scope, codeindex.SymbolQuery(s.q.Name, anyCase)); ok {
			return onlySource(fs), nil
		}
	}
	iq := codeindex.Query{All: true}
	if len(s.lit) >= 3 {
		iq = codeindex.LiteralQuery(s.lit)
	}
	fs, truncated, err := s.e.sourceFiles(ctx, s.q.Scope, 0, iq, s.e.cfg.MaxFiles)
	s.res.Truncated = s.res.Truncated || truncated
	return fs, err
}

// outline reads the symbols of the files to scan with the built-in parsers.
func (s *symbolSearch) outline(ctx context.Context, anyCase bool) ([]Symbol, error) {
	fs, err := s.files(ctx, anyCase)
	if err != nil {
		return nil, err
	}
	var all []Symbol
	prefilter := s.lit
	if anyCase || s.glob {
		prefilter = ""
	}
	for _, f := range fs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.langs[lsp.LanguageOf(f)] = true
		syms, err := s.e.scanOf(f, prefilter)
		if err != nil || syms == nil {
			continue
		}
		s.backends[backendOf(f)] = true
		all = append(all, syms...)
	}
	return all, nil
}

// fromServers lets the servers already running and ready answer for their languages too
// (workspace/symbol); the Go parser is exact and keeps Go.
func (s *symbolSearch) fromServers(ctx context.Context, all []Symbol) []Symbol {
	for lang := range s.langs {
		if lang == "go" {
			continue
		}
		srv := s.e.cfg.Pool.Running(lang)
		if srv == nil || srv.Busy() {
			continue
		}
		syms, err := s.e.workspaceSymbols(ctx, srv, s.q.Name, s.q.Scope)
		if err != nil {
			s.res.Notes = append(s.res.Notes, srv.Name()+" failed ("+shortErr(err)+")")
			continue
		}
		all = replaceLanguage(all, lang, syms)
		delete(s.backends, BackendHeuristic)
		s.backends[srv.Name()] = true
	}
	return all
}

// replaceLanguage puts a server's answer in place of the outline's for its language; a
// container the server leaves out (tsserver's workspace/symbol) is taken from the outline.
func replaceLanguage(all []Symbol, lang string, syms []Symbol) []Symbol {
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
	return append(kept, syms...)
}

// pick keeps the symbols that match and are of the kind asked for.
func (s *symbolSearch) pick(all []Symbol, m func(Symbol) bool) []Symbol {
	var out []Symbol
	for _, sym := range all {
		if m(sym) && kindMatches(sym.Kind, s.q.Kind) {
			out = append(out, sym)
		}
	}
	return out
}

// loose searches again when nothing matched exactly: the files defining the name in any case
// (or holding it, without the index), read without the case-sensitive filter, matched ignoring
// case, then (without the index) as a part of names.
func (s *symbolSearch) loose(ctx context.Context) ([]Symbol, error) {
	all, err := s.outline(ctx, true)
	if err != nil {
		return nil, err
	}
	lower := strings.ToLower(s.q.Name)
	found := s.pick(all, func(sym Symbol) bool { return strings.EqualFold(sym.Name, s.q.Name) })
	if len(found) == 0 && !s.byName {
		found = s.pick(all, func(sym Symbol) bool { return strings.Contains(strings.ToLower(sym.Name), lower) })
	}
	s.res.Loose = len(found) > 0
	return found, nil
}

// answer sorts what was found by place, cuts it at the bound and names the backends.
func (s *symbolSearch) answer(found []Symbol) *SymbolResult {
	res := s.res
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Path != found[j].Path {
			return pathLess(found[i].Path, found[j].Path)
		}
		return found[i].Line < found[j].Line
	})
	res.Total = len(found)
	if len(found) > s.q.Max {
		found = found[:s.q.Max]
	}
	res.Symbols = found
	for b := range s.backends {
		res.Backend = append(res.Backend, b)
	}
	sort.Strings(res.Backend)
	return res
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
