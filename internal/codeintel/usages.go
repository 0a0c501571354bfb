package codeintel

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"toolhost/internal/fsread"
	"toolhost/internal/lsp"
)

// Target names a symbol: a position in a file, or a name (defined in Path, a file or a
// directory).
type Target struct {
	Pos
	Name string
}

// Resolved is a target pinned to a position, with the name found there.
type Resolved struct {
	Pos
	Name string
}

// resolve turns a target into a position. A name is looked up among the definitions in the
// file (or the directory): exactly one must match, else ErrAmbiguous (with the candidates) or
// ErrNoSymbol. A position must be inside the file.
func (e *Engine) resolve(ctx context.Context, t Target, isDir bool) (Resolved, []Symbol, error) {
	if t.Line > 0 {
		if isDir {
			return Resolved{}, nil, fmt.Errorf("%w: line and column need a file, and %s is a directory", ErrPosition, t.Path)
		}
		src, _, err := e.read(t.Path)
		if err != nil {
			return Resolved{}, nil, err
		}
		lines := splitLines(src)
		if t.Line > len(lines) {
			return Resolved{}, nil, fmt.Errorf("%w: line %d, and %s has %d lines", ErrPosition, t.Line, t.Path, len(lines))
		}
		l := string(lines[t.Line-1])
		n := utf8.RuneCountInString(l)
		col := t.Column
		if col <= 0 {
			col = 1
		}
		if col > n+1 {
			return Resolved{}, nil, fmt.Errorf("%w: column %d, and line %d of %s has %d characters", ErrPosition, col, t.Line, t.Path, n)
		}
		if t.Column <= 0 && t.Name != "" {
			// A line and a name: the name's first occurrence on the line.
			if c := wordColumn(l, t.Name); c > 0 {
				col = c
			}
		}
		name := wordAt(l, col)
		if name == "" {
			return Resolved{}, nil, fmt.Errorf("%w: no identifier at line %d, column %d of %s", ErrNoSymbol, t.Line, col, t.Path)
		}
		return Resolved{Pos: Pos{Path: t.Path, Line: t.Line, Column: col}, Name: name}, nil, nil
	}
	if t.Name == "" {
		return Resolved{}, nil, fmt.Errorf("%w: give a name, or a line and column", ErrNoSymbol)
	}
	scope := t.Path
	if scope == "" {
		scope = "."
	}
	res, err := e.FindSymbol(ctx, SymbolQuery{Name: t.Name, Scope: scope, Max: 20})
	if err != nil {
		return Resolved{}, nil, err
	}
	if len(res.Symbols) == 0 || res.Loose {
		if !isDir && t.Path != "" {
			// Not defined in the file: its first use there.
			src, _, err := e.read(t.Path)
			if err == nil {
				for i, l := range splitLines(src) {
					if c := wordColumn(string(l), t.Name); c > 0 {
						return Resolved{Pos: Pos{Path: t.Path, Line: i + 1, Column: c}, Name: t.Name}, nil, nil
					}
				}
			}
		}
		return Resolved{}, res.Symbols, fmt.Errorf("%w: %s is not defined in %s", ErrNoSymbol, t.Name, scopeName(scope))
	}
	if res.Total > 1 {
		return Resolved{}, res.Symbols, fmt.Errorf("%w: %d definitions of %s in %s", ErrAmbiguous, res.Total, t.Name, scopeName(scope))
	}
	s := res.Symbols[0]
	return Resolved{Pos: Pos{Path: s.Path, Line: s.Line, Column: s.Column}, Name: s.Name}, nil, nil
}

func scopeName(scope string) string {
	if scope == "." || scope == "" {
		return "the working directory"
	}
	return scope
}

func isWordRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// wordAt returns the identifier covering the 1-based character column of line.
func wordAt(line string, col int) string {
	rs := []rune(line)
	i := col - 1
	if i >= len(rs) || i < 0 || !isWordRune(rs[i]) {
		if i > 0 && i-1 < len(rs) && isWordRune(rs[i-1]) {
			i-- // just after the word
		} else {
			return ""
		}
	}
	s, t := i, i
	for s > 0 && isWordRune(rs[s-1]) {
		s--
	}
	for t < len(rs) && isWordRune(rs[t]) {
		t++
	}
	return string(rs[s:t])
}

// wordColumn is the 1-based character column of name as a whole word in line (0: none).
func wordColumn(line, name string) int {
	for off := 0; ; {
		i := strings.Index(line[off:], name)
		if i < 0 {
			return 0
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(name):])
		if (i == 0 || !isWordRune(before)) && (i+len(name) == len(line) || !isWordRune(after)) {
			return utf8.RuneCountInString(line[:i]) + 1
		}
		off = i + len(name)
	}
}

// UsageResult is list_usages' answer: every reference, sorted by file and line.
type UsageResult struct {
	Target  Resolved
	Refs    []Location
	Backend string
	Notes   []string
	// Lexical says these are whole-word matches, not a server's references.
	Lexical bool
}

// ListUsages lists the references to a symbol: the language server's when one is ready for
// the file's language, else the whole-word occurrences of the name in files of that language.
func (e *Engine) ListUsages(ctx context.Context, t Target, isDir bool) (*UsageResult, error) {
	r, cands, err := e.resolve(ctx, t, isDir)
	if err != nil {
		return nil, candidatesError(err, cands)
	}
	out := &UsageResult{Target: r}
	lang := lsp.LanguageOf(r.Path)
	s, ready, note := e.server(ctx, lang)
	if s != nil && ready {
		locs, err := e.lspLocations(ctx, s, r, "textDocument/references", map[string]any{"includeDeclaration": true})
		if err == nil {
			out.Refs, out.Backend = locs, s.Name()
			return out, nil
		}
		note = s.Name() + " failed (" + shortErr(err) + ")"
	}
	if note != "" {
		out.Notes = append(out.Notes, note+"; answered with whole-word matches")
	}
	refs, err := e.wordMatches(ctx, r.Name, lang)
	if err != nil {
		return nil, err
	}
	out.Refs, out.Backend, out.Lexical = refs, BackendLexical, true
	return out, nil
}

// candidatesError adds the candidates of an ambiguous name to its error.
func candidatesError(err error, cands []Symbol) error {
	if len(cands) == 0 {
		return err
	}
	var b strings.Builder
	b.WriteString(err.Error())
	b.WriteString(":")
	for i, c := range cands {
		if i == 5 {
			fmt.Fprintf(&b, " (and %d more)", len(cands)-5)
			break
		}
		fmt.Fprintf(&b, " %s:%d (%s);", c.Path, c.Line, c.Kind)
	}
	return &CandidatesError{Err: err, Text: strings.TrimSuffix(b.String(), ";"), Candidates: cands}
}

// CandidatesError is an ambiguous or unknown name with the definitions that come close.
type CandidatesError struct {
	Err        error
	Text       string
	Candidates []Symbol
}

func (e *CandidatesError) Error() string { return e.Text }
func (e *CandidatesError) Unwrap() error { return e.Err }

// lspLocations asks a position request (references, definition) and converts the locations.
func (e *Engine) lspLocations(ctx context.Context, s *lsp.Server, r Resolved, method string, refCtx map[string]any) ([]Location, error) {
	_, text, err := e.syncFile(ctx, s, r.Path)
	if err != nil {
		return nil, err
	}
	if method == "textDocument/references" {
		e.prime(ctx, s, r.Name, lsp.LanguageOf(r.Path))
	}
	p, err := toLSP(s, text, r.Pos)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"textDocument": map[string]string{"uri": lsp.FileURI(e.abs(r.Path))}, "position": p}
	if refCtx != nil {
		params["context"] = refCtx
	}
	var raw []jsonLocation
	var one jsonLocation
	var anyRes any = &raw
	if method == "textDocument/definition" {
		// definition answers a Location, a list of them, or LocationLinks.
		var rawAny json.RawMessage
		if err := s.Call(ctx, method, params, &rawAny); err != nil {
			return nil, err
		}
		if len(rawAny) > 0 && rawAny[0] == '{' {
			if err := json.Unmarshal(rawAny, &one); err != nil {
				return nil, err
			}
			raw = []jsonLocation{one}
		} else if len(rawAny) > 0 {
			if err := json.Unmarshal(rawAny, &raw); err != nil {
				return nil, err
			}
		}
	} else if err := s.Call(ctx, method, params, anyRes); err != nil {
		return nil, err
	}
	return e.toLocations(s.UTF8(), raw), nil
}

type jsonLocation struct {
	URI         string     `json:"uri"`
	Range       *lsp.Range `json:"range"`
	TargetURI   string     `json:"targetUri"`
	TargetRange *lsp.Range `json:"targetSelectionRange"`
}

// toLocations converts server locations, reading each line's text, sorted by path and line.
func (e *Engine) toLocations(utf8Pos bool, raw []jsonLocation) []Location {
	files := map[string][][]byte{}
	var out []Location
	for _, j := range raw {
		uri, rg := j.URI, j.Range
		if j.TargetURI != "" {
			uri, rg = j.TargetURI, j.TargetRange
		}
		if rg == nil {
			continue
		}
		abs := lsp.URIPath(uri)
		if abs == "" {
			continue
		}
		rel, inside := e.relOf(abs)
		loc := Location{Path: rel, Line: rg.Start.Line + 1, Column: rg.Start.Character + 1, EndLine: rg.End.Line + 1, Outside: !inside}
		if inside {
			lines, ok := files[rel]
			if !ok {
				if src, _, err := e.read(rel); err == nil {
					lines = splitLines(src)
				}
				files[rel] = lines
			}
			if loc.Line <= len(lines) {
				l := string(lines[loc.Line-1])
				loc.Column = fromLSP(utf8Pos, l, rg.Start.Character)
				loc.Text = lineText(lines, loc.Line)
			}
		}
		out = append(out, loc)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Outside != out[j].Outside {
			return !out[i].Outside
		}
		if out[i].Path != out[j].Path {
			return pathLess(out[i].Path, out[j].Path)
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	// Servers sometimes repeat a location.
	dedup := out[:0]
	for i, l := range out {
		if i > 0 && l.Path == out[i-1].Path && l.Line == out[i-1].Line && l.Column == out[i-1].Column {
			continue
		}
		dedup = append(dedup, l)
	}
	return dedup
}

// primeLanguages are the servers that find references only in the files they have open
// (tsserver) or have analysed (pyright): the files holding the name are opened first.
var primeLanguages = map[string]bool{"typescript": true, "python": true}

// maxPrimed bounds the files opened for one lookup.
const maxPrimed = 200

// prime opens in the server the files of its language that hold name as a word.
func (e *Engine) prime(ctx context.Context, s *lsp.Server, name, lang string) {
	if !primeLanguages[lang] {
		return
	}
	refs, err := e.wordMatches(ctx, name, lang)
	if err != nil {
		return
	}
	opened := 0
	last := ""
	for _, r := range refs {
		if r.Path == last || r.Outside {
			continue
		}
		last = r.Path
		if src, _, err := e.read(r.Path); err == nil {
			s.Sync(ctx, e.abs(r.Path), string(src))
		}
		if opened++; opened >= maxPrimed {
			break
		}
	}
}

// wordMatches finds name as a whole word in the files of a language (all files for ""),
// through the index when it is built.
func (e *Engine) wordMatches(ctx context.Context, name, lang string) ([]Location, error) {
	o := fsread.GrepOptions{Screen: e.cfg.Screen, Pattern: `\b` + regexp.QuoteMeta(name) + `\b`, MaxMatches: 100_000}
	if !regexp.MustCompile(`^\w+$`).MatchString(name) {
		o.Pattern, o.Literal = name, true
	}
	if exts := lsp.Languages[lang]; len(exts) > 0 {
		for _, x := range exts {
			o.Include = append(o.Include, "*"+x)
		}
	}
	var r fsread.GrepResult
	var err error
	planned := false
	if ix := e.cfg.Index; ix != nil && ix.Ready() {
		if plan, ok := ix.PlanGrep(ctx, ".", o); ok {
			r, err = fsread.GrepPlanned(ctx, e.cfg.Root, o, plan)
			planned = true
		}
	}
	if !planned {
		r, err = fsread.Grep(ctx, e.cfg.Root, ".", o)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Location, 0, len(r.Matches))
	for _, m := range r.Matches {
		col := wordColumn(m.Text, name)
		if col == 0 {
			col = m.Column
		}
		out = append(out, Location{Path: m.Path, Line: int(m.Line), Column: col, Text: strings.TrimSpace(m.Text)})
	}
	return out, nil
}

// DefinitionResult is go_to_definition's answer.
type DefinitionResult struct {
	Target  Resolved
	Defs    []Location
	Backend string
	Notes   []string
}

// GoToDefinition finds where the symbol at a position (or of a name) is defined: the language
// server's answer when it is ready, else the built-in definitions of the name (those in the
// same file first).
func (e *Engine) GoToDefinition(ctx context.Context, t Target, isDir bool) (*DefinitionResult, error) {
	r, cands, err := e.resolve(ctx, t, isDir)
	if err != nil {
		return nil, candidatesError(err, cands)
	}
	out := &DefinitionResult{Target: r}
	lang := lsp.LanguageOf(r.Path)
	s, ready, note := e.server(ctx, lang)
	if s != nil && ready {
		locs, err := e.lspLocations(ctx, s, r, "textDocument/definition", nil)
		if err == nil && len(locs) > 0 {
			out.Defs, out.Backend = locs, s.Name()
			return out, nil
		}
		if err != nil {
			note = s.Name() + " failed (" + shortErr(err) + ")"
		} else {
			note = s.Name() + " found no definition"
		}
	}
	if note != "" {
		out.Notes = append(out.Notes, note+"; answered from the built-in definitions of "+r.Name)
	}
	res, err := e.FindSymbol(ctx, SymbolQuery{Name: r.Name, Scope: ".", Max: 20})
	if err != nil {
		return nil, err
	}
	if res.Loose {
		res.Symbols = nil
	}
	sort.SliceStable(res.Symbols, func(i, j int) bool {
		return res.Symbols[i].Path == r.Path && res.Symbols[j].Path != r.Path
	})
	for _, sym := range res.Symbols {
		out.Defs = append(out.Defs, Location{Path: sym.Path, Line: sym.Line, Column: sym.Column, EndLine: sym.EndLine, Text: sym.Signature})
	}
	out.Backend = backendOf(r.Path)
	if len(out.Defs) == 0 {
		return nil, fmt.Errorf("%w: no definition of %s found", ErrNoSymbol, r.Name)
	}
	return out, nil
}
