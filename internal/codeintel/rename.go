package codeintel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"toolhost/internal/lsp"
)

// FileEdit is one file's part of a rename: the content the server computed the edit against
// (which the disk must still hold when the edit is written) and the new content.
type FileEdit struct {
	Path    string // relative inside the working directory, else absolute
	Outside bool
	Old     []byte
	New     []byte
	Edits   int
}

// RenameResult is the edit a rename makes, not yet applied.
type RenameResult struct {
	Target  Resolved
	Files   []FileEdit
	Backend string
}

// ErrStaleServer says the server computed an edit against a text the file no longer holds.
var ErrStaleServer = errors.New("the file changed since the language server read it")

// StaleError names the file of an ErrStaleServer.
type StaleError struct{ Path string }

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s changed since the language server read it", e.Path)
}
func (e *StaleError) Unwrap() error { return ErrStaleServer }

// maxRenameRounds bounds how often a rename is asked again after files it touches were given
// to the server afresh.
const maxRenameRounds = 3

// Rename computes the edit that renames the symbol at a target to newName, with the language
// server of the file's language: every file the edit touches is first given to the server with
// its content on disk (and the rename asked again when that changed anything), so the edit is
// computed against what the disk holds; the caller writes it only if the disk still holds it.
func (e *Engine) Rename(ctx context.Context, t Target, isDir bool, newName string) (*RenameResult, error) {
	r, cands, err := e.resolve(ctx, t, isDir)
	if err != nil {
		return nil, candidatesError(err, cands)
	}
	lang := lsp.LanguageOf(r.Path)
	s, ready, note := e.server(ctx, lang)
	if s == nil {
		if note == "" {
			note = "no language server for " + langName(lang) + " is installed or configured"
		}
		return nil, fmt.Errorf("%w: %s", ErrNeedServer, note)
	}
	if !ready {
		return nil, fmt.Errorf("%w: %s; try again in a moment", lsp.ErrNotReady, note)
	}
	_, text, err := e.syncFile(ctx, s, r.Path)
	if err != nil {
		return nil, err
	}
	e.prime(ctx, s, r.Name, lang)
	p, err := toLSP(s, text, r.Pos)
	if err != nil {
		return nil, err
	}
	uri := lsp.FileURI(e.abs(r.Path))
	// prepareRename says early whether the position can be renamed at all.
	var prep map[string]any
	if err := s.Call(ctx, "textDocument/prepareRename", map[string]any{"textDocument": map[string]string{"uri": uri}, "position": p}, &prep); err != nil {
		var re *lsp.ResponseError
		if errors.As(err, &re) && re.Code != -32601 { // method not found: the server has no prepare
			return nil, fmt.Errorf("%w: %s cannot rename %s here: %s", ErrNoSymbol, s.Name(), r.Name, re.Message)
		}
		if !errors.As(err, &re) {
			return nil, err
		}
	}
	var we lsp.WorkspaceEdit
	synced := map[string]string{}
	for round := 0; ; round++ {
		we = lsp.WorkspaceEdit{}
		if err := s.Call(ctx, "textDocument/rename", map[string]any{"textDocument": map[string]string{"uri": uri}, "position": p, "newName": newName}, &we); err != nil {
			var re *lsp.ResponseError
			if errors.As(err, &re) {
				return nil, fmt.Errorf("%w the rename: %s: %s", ErrRefused, s.Name(), re.Message)
			}
			return nil, err
		}
		// Give the server every touched file as the disk holds it now.
		changed := false
		for _, path := range editPaths(we) {
			b, err := e.readAny(path)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path, err)
			}
			sent, _, open := s.Sent(path)
			if !open || sent != string(b) {
				if _, err := s.Sync(ctx, path, string(b)); err != nil {
					return nil, err
				}
				changed = true
			}
			synced[path] = string(b)
		}
		if !changed || round+1 >= maxRenameRounds {
			break
		}
	}
	if len(we.Changes) == 0 && len(we.DocumentChanges) == 0 {
		return nil, fmt.Errorf("%w: %s found nothing to rename at %s:%d:%d", ErrNoSymbol, s.Name(), r.Path, r.Line, r.Column)
	}
	byPath := map[string][]lsp.TextEdit{}
	for u, edits := range we.Changes {
		byPath[lsp.URIPath(u)] = append(byPath[lsp.URIPath(u)], edits...)
	}
	for _, dc := range we.DocumentChanges {
		if dc.Kind != "" {
			return nil, fmt.Errorf("%w: %s's rename also does a %s of %s, which rename_symbol does not do; rename the file with rename_file", ErrNoSymbol, s.Name(), dc.Kind, lsp.URIPath(dc.URI+dc.OldURI))
		}
		path := lsp.URIPath(dc.TextDocument.URI)
		if dc.TextDocument.Version != nil && *dc.TextDocument.Version > 0 {
			if _, v, open := s.Sent(path); open && v != *dc.TextDocument.Version {
				rel, _ := e.relOf(path)
				return nil, &StaleError{Path: rel}
			}
		}
		byPath[path] = append(byPath[path], dc.Edits...)
	}
	out := &RenameResult{Target: r, Backend: s.Name()}
	for path, edits := range byPath {
		old, ok := synced[path]
		if !ok {
			b, err := e.readAny(path)
			if err != nil {
				return nil, err
			}
			old = string(b)
		}
		nw, err := applyEdits(s.UTF8(), old, edits)
		if err != nil {
			rel, _ := e.relOf(path)
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		rel, inside := e.relOf(path)
		out.Files = append(out.Files, FileEdit{Path: rel, Outside: !inside, Old: []byte(old), New: []byte(nw), Edits: len(edits)})
	}
	sort.Slice(out.Files, func(i, j int) bool {
		if out.Files[i].Outside != out.Files[j].Outside {
			return !out.Files[i].Outside
		}
		return pathLess(out.Files[i].Path, out.Files[j].Path)
	})
	return out, nil
}

// Renamed tells the server the files a rename wrote (their new text).
func (e *Engine) Renamed(ctx context.Context, lang string, files []FileEdit) {
	if e.cfg.Pool == nil {
		return
	}
	s := e.cfg.Pool.Running(lang)
	if s == nil {
		return
	}
	for _, f := range files {
		p := f.Path
		if !f.Outside {
			p = e.abs(f.Path)
		}
		s.Sync(ctx, p, string(f.New))
	}
}

// readAny reads an absolute path: through the working directory's root when inside.
func (e *Engine) readAny(abs string) ([]byte, error) {
	if rel, inside := e.relOf(abs); inside {
		b, _, err := e.read(rel)
		return b, err
	}
	return nil, fmt.Errorf("%s is outside the working directory", abs)
}

// editPaths lists the files a workspace edit touches.
func editPaths(we lsp.WorkspaceEdit) []string {
	var out []string
	for u := range we.Changes {
		out = append(out, lsp.URIPath(u))
	}
	for _, dc := range we.DocumentChanges {
		if dc.Kind == "" {
			out = append(out, lsp.URIPath(dc.TextDocument.URI))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// applyEdits applies non-overlapping text edits to text.
func applyEdits(utf8Pos bool, text string, edits []lsp.TextEdit) (string, error) {
	type span struct {
		from, to int
		text     string
	}
	spans := make([]span, 0, len(edits))
	for _, ed := range edits {
		a, err := byteOffset(utf8Pos, text, ed.Range.Start)
		if err != nil {
			return "", err
		}
		b, err := byteOffset(utf8Pos, text, ed.Range.End)
		if err != nil {
			return "", err
		}
		if b < a {
			return "", fmt.Errorf("an edit ends before it starts")
		}
		spans = append(spans, span{a, b, ed.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp.from < at {
			return "", fmt.Errorf("the server's edits overlap")
		}
		b.WriteString(text[at:sp.from])
		b.WriteString(sp.text)
		at = sp.to
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

func langName(lang string) string {
	switch lang {
	case "go":
		return "Go (gopls)"
	case "python":
		return "Python (pyright or basedpyright)"
	case "typescript":
		return "TypeScript and JavaScript (typescript-language-server)"
	case "rust":
		return "Rust (rust-analyzer)"
	case "c":
		return "C and C++ (clangd)"
	}
	return "this kind of file"
}

// LanguageName names a language and its server for messages.
func LanguageName(lang string) string { return langName(lang) }
