// Package codeintel is the engine of file_operations' code operations: find_symbol,
// list_usages, go_to_definition, document_symbols, rename_symbol and semantic_search.
//
// Each operation has a language server behind it where one runs for the language (package
// lsp: gopls, pyright, typescript-language-server, rust-analyzer, clangd) and a built-in
// answer where none does or it is not ready in time: go/parser for Go, a line-based recogniser
// for the other languages, and whole-word matches for usages. Every answer names the backend
// that served it. Searches over the tree use the working-directory index (package codeindex)
// when it is built, so a lookup on a large tree reads the few files that hold the name.
//
// Paths are slash-separated and relative to the working directory inside it; a location a
// server gives outside it (a standard library, a dependency) is absolute. The engine knows no
// guard: the tool layer decides what may be read and written.
package codeintel

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"toolhost/internal/codeindex"
	"toolhost/internal/embed"
	"toolhost/internal/fsread"
	"toolhost/internal/lsp"
	"toolhost/internal/sysfile"
)

// Config configures an Engine.
type Config struct {
	// Root is the working directory, RootPath its canonical path.
	Root     *os.Root
	RootPath string
	// Screen withholds what the guard withholds in the working directory (walks skip it).
	Screen fsread.Screen
	// Index makes tree-wide lookups read only the files that hold a name (nil: walk).
	Index *codeindex.Index
	// Pool runs the language servers (nil: built-in answers only).
	Pool *lsp.Pool
	// Embedder embeds chunks and queries for semantic_search (nil: the lexical embedder).
	Embedder embed.Embedder
	// MaxFiles bounds the files a walk without the index reads for one answer (default
	// 20,000); MaxFileBytes the size of a file parsed (default 2 MiB).
	MaxFiles     int
	MaxFileBytes int64
}

// Engine answers the code operations of one working directory.
type Engine struct {
	cfg     Config
	outline *lru[outlineKey, []Symbol]
	scanned *lru[outlineKey, []Symbol]
	vectors *lru[string, []float32]
}

// NewEngine returns an engine.
func NewEngine(cfg Config) *Engine {
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = 20_000
	}
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = 2 << 20
	}
	if cfg.Embedder == nil {
		cfg.Embedder = embed.NewLexical(embed.DefaultLexicalDim)
	}
	return &Engine{cfg: cfg, outline: newLRU[outlineKey, []Symbol](4096), scanned: newLRU[outlineKey, []Symbol](16384), vectors: newLRU[string, []float32](20000)}
}

// Errors the tool layer maps to codes.
var (
	// ErrUnsupported: the file's language has no built-in parser and no server.
	ErrUnsupported = errors.New("no symbol support for this kind of file")
	// ErrNoSymbol: nothing of that name (or at that position).
	ErrNoSymbol = errors.New("no such symbol")
	// ErrPosition: the line or column is outside the file.
	ErrPosition = errors.New("position outside the file")
	// ErrAmbiguous: a name that several definitions have; a position picks one.
	ErrAmbiguous = errors.New("several symbols have that name")
	// ErrNeedServer: the operation needs a language server (rename).
	ErrNeedServer = errors.New("this needs a language server")
	// ErrRefused: the language server refused the rename (the message says why).
	ErrRefused = errors.New("the language server refused")
	// ErrTooLarge: a file too large to parse.
	ErrTooLarge = errors.New("file too large")
)

// Pos is a position in a file: 1-based line and column, the column in characters.
type Pos struct {
	Path   string
	Line   int
	Column int
}

// Location is a place a server or the parser pointed at. Path is relative to the working
// directory inside it, else absolute (Outside says which).
type Location struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	EndLine int    `json:"end_line,omitempty"`
	Outside bool   `json:"outside,omitempty"`
	Text    string `json:"text,omitempty"` // the line's text
}

// Backend names what served an answer, as the answers show it.
const (
	BackendGoParser  = "built-in Go parser"
	BackendHeuristic = "built-in outline (no language server)"
	BackendLexical   = "whole-word matches (no language server)"
)

// abs is the absolute path of a path inside the working directory.
func (e *Engine) abs(rel string) string {
	return filepath.Join(e.cfg.RootPath, filepath.FromSlash(rel))
}

// relOf returns the working-directory-relative path of an absolute path, and whether it is
// inside.
func (e *Engine) relOf(abs string) (string, bool) {
	r, err := filepath.Rel(e.cfg.RootPath, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return abs, false
	}
	return filepath.ToSlash(r), true
}

// syncFile reads rel and gives its text to the server s, so that a request about it answers
// for the file as it is now.
func (e *Engine) syncFile(ctx context.Context, s *lsp.Server, rel string) ([]byte, string, error) {
	src, _, err := e.read(rel)
	if err != nil {
		return nil, "", err
	}
	text := string(src)
	if _, err := s.Sync(ctx, e.abs(rel), text); err != nil {
		return nil, "", err
	}
	return src, text, nil
}

// read reads a file inside the working directory. The open does not wait for a writer when rel
// is a FIFO (one swapped in after a walk listed a file), which is then refused as not regular.
func (e *Engine) read(rel string) ([]byte, fs.FileInfo, error) {
	f, err := e.cfg.Root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|sysfile.OpenReadFlags&^sysfile.NoFollow, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.IsDir() {
		return nil, fi, fmt.Errorf("%s: %w", rel, fsread.ErrIsDir)
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s: %w", rel, fsread.ErrNotRegular)
	}
	if fi.Size() > e.cfg.MaxFileBytes {
		return nil, fi, fmt.Errorf("%s is %d bytes: %w (the bound is %d)", rel, fi.Size(), ErrTooLarge, e.cfg.MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, e.cfg.MaxFileBytes+1))
	return b, fi, err
}

type outlineKey struct {
	rel   string
	size  int64
	mtime int64
}

// outlineOf returns the built-in outline of a file, cached by size and modification time.
func (e *Engine) outlineOf(rel string) ([]Symbol, error) {
	return e.cachedSymbols(e.outline, rel, func(src []byte) ([]Symbol, bool) {
		return outline(rel, src), true
	})
}

// cachedSymbols returns rel's symbols from cache, kept by the file's size and modification
// time, or computes them from its bytes; what compute does not keep is not cached.
func (e *Engine) cachedSymbols(cache *lru[outlineKey, []Symbol], rel string, compute func(src []byte) (syms []Symbol, keep bool)) ([]Symbol, error) {
	fi, err := e.cfg.Root.Stat(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	k := outlineKey{rel, fi.Size(), fi.ModTime().UnixNano()}
	if s, ok := cache.get(k); ok {
		return s, nil
	}
	src, _, err := e.read(rel)
	if err != nil {
		return nil, err
	}
	syms, keep := compute(src)
	if keep {
		cache.put(k, syms)
	}
	return syms, nil
}

// scanOf returns the definitions of a file for find_symbol, flat: the Go line scanner for Go
// (many files are read per lookup; go/parser is twenty times slower), the outline for the
// others. Cached by size and modification time. With lit, a file that does not hold it is
// not scanned (nil).
func (e *Engine) scanOf(rel, lit string) ([]Symbol, error) {
	return e.cachedSymbols(e.scanned, rel, func(src []byte) ([]Symbol, bool) {
		if lit != "" && !bytes.Contains(src, []byte(lit)) {
			return nil, false
		}
		if lsp.LanguageOf(rel) == "go" {
			return goScan(rel, src), true
		}
		return flatten(outline(rel, src)), true
	})
}

// backendOf names the built-in backend of a file.
func backendOf(rel string) string {
	if lsp.LanguageOf(rel) == "go" {
		return BackendGoParser
	}
	return BackendHeuristic
}

// lineCol converts a 1-based character column on a line of text to the server's position.
func toLSP(s *lsp.Server, text string, p Pos) (lsp.Position, error) {
	lines := strings.Split(text, "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return lsp.Position{}, fmt.Errorf("%w: line %d of %d", ErrPosition, p.Line, len(lines))
	}
	l := strings.TrimSuffix(lines[p.Line-1], "\r")
	n := utf8.RuneCountInString(l)
	if p.Column < 1 || p.Column > n+1 {
		return lsp.Position{}, fmt.Errorf("%w: column %d of line %d, which has %d characters", ErrPosition, p.Column, p.Line, n)
	}
	prefix := l
	for i := range l {
		if utf8.RuneCountInString(l[:i]) == p.Column-1 {
			prefix = l[:i]
			break
		}
	}
	if p.Column-1 == n {
		prefix = l
	}
	if s.UTF8() {
		return lsp.Position{Line: p.Line - 1, Character: len(prefix)}, nil
	}
	return lsp.Position{Line: p.Line - 1, Character: len(utf16.Encode([]rune(prefix)))}, nil
}

// fromLSP converts a server position on a line of text to a 1-based character column.
func fromLSP(utf8Pos bool, line string, ch int) int {
	if utf8Pos {
		if ch > len(line) {
			ch = len(line)
		}
		return utf8.RuneCountInString(line[:ch]) + 1
	}
	units := 0
	col := 1
	for _, r := range line {
		if units >= ch {
			break
		}
		units += len(utf16.Encode([]rune{r}))
		col++
	}
	return col
}

// byteOffset converts a server position to a byte offset in text.
func byteOffset(utf8Pos bool, text string, p lsp.Position) (int, error) {
	off := 0
	for i := 0; i < p.Line; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			return 0, fmt.Errorf("%w: line %d", ErrPosition, p.Line+1)
		}
		off += j + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	line := text[off:]
	if end >= 0 {
		line = text[off : off+end]
	}
	if utf8Pos {
		if p.Character > len(line) {
			return 0, fmt.Errorf("%w: character %d of line %d", ErrPosition, p.Character, p.Line+1)
		}
		return off + p.Character, nil
	}
	units := 0
	for i, r := range line {
		if units >= p.Character {
			return off + i, nil
		}
		units += len(utf16.Encode([]rune{r}))
	}
	if units >= p.Character {
		return off + len(line), nil
	}
	return 0, fmt.Errorf("%w: character %d of line %d", ErrPosition, p.Character, p.Line+1)
}

// server returns the language's server when one is configured, started if need be and given
// up to the start timeout to be ready. note says why there is none, or that it is still busy
// (then the server is returned all the same: it may answer from what it has).
func (e *Engine) server(ctx context.Context, lang string) (s *lsp.Server, ready bool, note string) {
	if e.cfg.Pool == nil || lang == "" {
		return nil, false, ""
	}
	s, err := e.cfg.Pool.Server(lang)
	if err != nil {
		if errors.Is(err, lsp.ErrNotInstalled) {
			return nil, false, ""
		}
		return nil, false, err.Error()
	}
	err = s.WaitReady(ctx, e.cfg.Pool.Options().StartTimeout)
	switch {
	case err == nil:
		// Open documents may have changed on disk since they were given to the server.
		s.FilesChanged(ctx, s.OpenPaths())
		return s, true, ""
	case errors.Is(err, lsp.ErrNotReady):
		what := s.BusyWith()
		if what == "" {
			what = "starting"
		}
		return s, false, fmt.Sprintf("%s is still busy (%s)", s.Name(), strings.ToLower(what))
	}
	return nil, false, err.Error()
}

// ServerNames lists the configured language servers, by language.
func (e *Engine) ServerNames() map[string]string {
	out := map[string]string{}
	if e.cfg.Pool == nil {
		return out
	}
	for lang := range lsp.Languages {
		if s, ok := e.cfg.Pool.Spec(lang); ok {
			out[lang] = s.Name
		}
	}
	return out
}

// Changed tells running servers that files changed (toolhost's own writes), so their view
// stays current.
func (e *Engine) Changed(ctx context.Context, rels []string) {
	if e.cfg.Pool == nil || len(rels) == 0 {
		return
	}
	abs := make([]string, len(rels))
	for i, r := range rels {
		abs[i] = e.abs(r)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	e.cfg.Pool.Each(func(s *lsp.Server) { s.FilesChanged(ctx, abs) })
}

// lru is a small bounded map, least recently used out first.
type lru[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	ll  *list.List
	m   map[K]*list.Element
}

type lruItem[K comparable, V any] struct {
	k K
	v V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, ll: list.New(), m: map[K]*list.Element{}}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*lruItem[K, V]).v, true
	}
	var zero V
	return zero, false
}

func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		el.Value.(*lruItem[K, V]).v = v
		c.ll.MoveToFront(el)
		return
	}
	c.m[k] = c.ll.PushFront(&lruItem[K, V]{k, v})
	for c.ll.Len() > c.max {
		el := c.ll.Back()
		c.ll.Remove(el)
		delete(c.m, el.Value.(*lruItem[K, V]).k)
	}
}
