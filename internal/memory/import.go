package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"toolhost/store"
)

// ErrNotText reports an imported document that is not UTF-8 text.
var ErrNotText = errors.New("memory: document is not UTF-8 text")

// ImportRequest is one import_document call. The caller has read the file through the guard.
type ImportRequest struct {
	Conversation string
	// Name identifies the document (usually its path relative to the working directory); a
	// second import under the same name and scope replaces the first.
	Name string
	// Content is the file's bytes: plain text or Markdown.
	Content []byte
	// Scope is where the chunks go, as in StoreRequest.
	Scope string
	// Tags are given to every chunk.
	Tags []string
	// Progress, if set, is called after each batch of chunks is embedded, with the chunks done
	// and the total.
	Progress func(done, total int)
}

// ImportResult reports what Import did.
type ImportResult struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
	// Unchanged reports that the same bytes were imported before: nothing was written.
	Unchanged bool `json:"unchanged,omitempty"`
	// Replaced is the number of chunks of an earlier version that were deleted.
	Replaced int `json:"replaced,omitempty"`
	// Chunks is the number of chunks now stored for the document; IDs are their memory IDs in
	// chunk order.
	Chunks int      `json:"chunks"`
	IDs    []uint64 `json:"ids"`
}

// MaxDocumentBytes is the largest document Import takes (Config.MaxDocumentBytes).
func (s *Service) MaxDocumentBytes() int { return s.maxDoc }

// CheckDocumentSize says whether a document of n bytes may be imported: nil, or ErrTooLarge
// naming the limit. Import decides with it, and so do callers that know a document's size
// before they read it (a file's, an upload's).
func (s *Service) CheckDocumentSize(name string, n int64) error {
	if n > int64(s.maxDoc) {
		return fmt.Errorf("%w: %s is %d bytes, the import limit is %d; split the file", ErrTooLarge, name, n, s.maxDoc)
	}
	return nil
}

// Import chunks a text or Markdown document and stores the chunks in a scope. Importing
// unchanged bytes again is a no-op; changed bytes replace the old chunks in one transaction.
func (s *Service) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" {
		return ImportResult{}, fmt.Errorf("%w: the document needs a name", ErrBadRequest)
	}
	if err := s.CheckDocumentSize(name, int64(len(req.Content))); err != nil {
		return ImportResult{}, err
	}
	if !utf8.Valid(req.Content) || bytes.IndexByte(req.Content, 0) >= 0 {
		return ImportResult{}, fmt.Errorf("%w: %s; only text and Markdown files can be imported", ErrNotText, name)
	}
	scope, err := resolveScope(req.Conversation, req.Scope)
	if err != nil {
		return ImportResult{}, err
	}
	tags := normalizeTags(req.Tags)
	sum := sha256.Sum256(req.Content)
	hash := hex.EncodeToString(sum[:])
	key := docKey(scope, name)
	res := ImportResult{Name: name, Scope: scope}

	var prev docEntry
	var found bool
	err = s.st.View(ctx, func(tx *store.Tx) error {
		var err error
		found, err = tx.GetJSON(docsPath, key, &prev)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("import %s: %w", name, err)
	}
	if found && prev.Hash == hash {
		res.Unchanged, res.Chunks, res.IDs = true, len(prev.IDs), prev.IDs
		return res, nil
	}

	if err := s.ready(ctx); err != nil {
		return res, err
	}
	chunks := chunkDocument(string(req.Content), s.emb.MaxTokens(), s.emb.CountTokens)
	if len(chunks) == 0 {
		return res, fmt.Errorf("%w: %s has no text to import", ErrEmptyContent, name)
	}
	vecs, err := s.embedBatches(ctx, chunks, req.Progress)
	if err != nil {
		return res, fmt.Errorf("import %s: %w", name, err)
	}
	now := s.now().UTC()
	err = s.st.Update(ctx, func(tx *store.Tx) error {
		res = ImportResult{Name: name, Scope: scope}
		var old docEntry
		found, err := tx.GetJSON(docsPath, key, &old)
		if err != nil {
			return err
		}
		if found && old.Hash == hash {
			res.Unchanged, res.Chunks, res.IDs = true, len(old.IDs), old.IDs
			return nil
		}
		for _, id := range old.IDs {
			var r record
			if ok, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r); err != nil {
				return err
			} else if ok {
				if err := deleteRecord(tx, &r, s.logKeep); err != nil {
					return err
				}
				res.Replaced++
			}
		}
		for i, c := range chunks {
			rec := record{
				Scope: scope, Conversation: req.Conversation, Content: c, Tags: tags,
				Created: now, Hash: contentHash(c), Embedder: s.emb.ID(), Dim: len(vecs[i]),
				Document: name, Chunk: i,
			}
			id, err := putRecord(tx, rec, vecs[i], s.logKeep)
			if err != nil {
				return err
			}
			res.IDs = append(res.IDs, id)
		}
		res.Chunks = len(res.IDs)
		d := docEntry{Name: name, Scope: scope, Hash: hash, IDs: res.IDs, Bytes: len(req.Content), Imported: now, Conversation: req.Conversation}
		if err := tx.PutJSON(docsPath, key, d); err != nil {
			return err
		}
		if req.Conversation == "" {
			return nil
		}
		n := Note{Kind: NoteDocument, ID: res.IDs[0], Scope: scope, Text: name, Tags: tags, Time: now, Chunks: res.Chunks}
		return tx.PutJSON(append(slices.Clone(recentPath), req.Conversation), recentKey(now, res.IDs[0]), n)
	})
	if err != nil {
		return res, fmt.Errorf("import %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.syncLocked(ctx); err != nil {
		return res, err
	}
	return res, nil
}

// importBatch is how many chunks one embedder call takes per core: enough to keep every core
// busy through the call (USE-Lite spreads a call's texts over the cores), few enough that
// progress and cancellation are seen about every second.
const importBatch = 8

// embedBatches embeds texts in batches of importBatch per core, calling progress after each.
func (s *Service) embedBatches(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	size := importBatch * runtime.GOMAXPROCS(0)
	out := make([][]float32, 0, len(texts))
	for len(out) < len(texts) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := texts[len(out):min(len(out)+size, len(texts))]
		vecs, err := s.embedAll(ctx, part)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
		if progress != nil {
			progress(len(out), len(texts))
		}
	}
	return out, nil
}

// DocumentInfo describes one imported document.
type DocumentInfo struct {
	Name     string    `json:"name"`
	Scope    string    `json:"scope"`
	Chunks   int       `json:"chunks"`
	Bytes    int       `json:"bytes"`
	Imported time.Time `json:"imported"`
}

// Documents lists the documents imported into the conversation's scope and every topic, so the
// reminder (and the model) can see what is already there.
func (s *Service) Documents(ctx context.Context, conversation string) ([]DocumentInfo, error) {
	var out []DocumentInfo
	err := s.st.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		return tx.ForEach(docsPath, func(k string, v []byte) error {
			scope, _, _ := strings.Cut(k, "\x00")
			if !visible(conversation, scope) {
				return nil
			}
			var d docEntry
			if err := json.Unmarshal(v, &d); err != nil {
				return err
			}
			out = append(out, DocumentInfo{Name: d.Name, Scope: d.Scope, Chunks: len(d.IDs), Bytes: d.Bytes, Imported: d.Imported})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list imported documents: %w", err)
	}
	return out, nil
}

// section is a run of Markdown body under one heading path.
type section struct {
	path []string // e.g. ["# Guide", "## Install"]
	body []string // blocks: paragraphs, lists, fenced code
}

// splitSections parses Markdown (plain text is Markdown without headings) into sections of
// blank-line separated blocks. Headings inside fenced code blocks are not headings.
func splitSections(text string) []section {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []section
	cur := section{}
	var block []string
	var fence string
	flushBlock := func() {
		if b := strings.TrimSpace(strings.Join(block, "\n")); b != "" {
			cur.body = append(cur.body, b)
		}
		block = block[:0]
	}
	flushSection := func() {
		flushBlock()
		if len(cur.body) > 0 {
			out = append(out, cur)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			block = append(block, line)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
				flushBlock()
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flushBlock()
			fence = trimmed[:3]
			block = append(block, line)
			continue
		}
		if level, title, ok := heading(line); ok {
			flushSection()
			path := slices.Clone(cur.path)
			for len(path) > 0 && headingLevel(path[len(path)-1]) >= level {
				path = path[:len(path)-1]
			}
			cur = section{path: append(path, strings.Repeat("#", level)+" "+title)}
			continue
		}
		if trimmed == "" {
			flushBlock()
			continue
		}
		block = append(block, line)
	}
	flushSection()
	return out
}

// heading recognises an ATX heading ("## Title").
func heading(line string) (level int, title string, ok bool) {
	if len(line)-len(strings.TrimLeft(line, " ")) > 3 {
		return 0, "", false
	}
	t := strings.TrimLeft(line, " ")
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, "", false
	}
	title = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[level:]), "#"))
	return level, title, title != ""
}

func headingLevel(h string) int { return len(h) - len(strings.TrimLeft(h, "#")) }

// chunkDocument splits text into chunks of at most maxTokens tokens (as counted by count), each
// prefixed with its heading path ("# Guide > ## Install: ") so that a chunk read alone — and its
// vector — still says what it is about. Blocks are packed greedily; a block larger than the
// window is split at lines, then sentences, then words.
func chunkDocument(text string, maxTokens int, count func(string) int) []string {
	if maxTokens <= 0 {
		maxTokens = 128
	}
	var out []string
	for _, sec := range splitSections(text) {
		// Keep at least three quarters of the window for the text itself: drop the outermost
		// headings first, since the nearest one says most about the text.
		prefix := ""
		for path := sec.path; len(path) > 0; path = path[1:] {
			if p := strings.Join(path, " > ") + ": "; count(p) <= maxTokens/4 {
				prefix = p
				break
			}
		}
		budget := maxTokens - count(prefix) - 2
		var cur []string
		curTokens := 0
		flush := func() {
			if len(cur) > 0 {
				out = append(out, prefix+strings.Join(cur, "\n\n"))
			}
			cur, curTokens = nil, 0
		}
		for _, b := range sec.body {
			t := count(b)
			if t > budget {
				flush()
				for _, piece := range splitLong(b, budget, count) {
					out = append(out, prefix+piece)
				}
				continue
			}
			if curTokens+t > budget {
				flush()
			}
			cur = append(cur, b)
			curTokens += t + 1
		}
		flush()
	}
	return out
}

// splitLong cuts a block larger than budget into pieces that fit, at line breaks if it has them
// (lists, code), else at sentence ends, else at spaces.
func splitLong(block string, budget int, count func(string) int) []string {
	var parts []string
	sep := "\n"
	if strings.Contains(block, "\n") {
		parts = strings.Split(block, "\n")
	} else {
		sep = " "
		parts = sentences(block)
	}
	var out, cur []string
	curTokens := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, sep))
		}
		cur, curTokens = nil, 0
	}
	for _, p := range parts {
		t := count(p)
		if t > budget {
			flush()
			if sep == "\n" {
				out = append(out, splitLong(strings.TrimSpace(p), budget, count)...)
				continue
			}
			for _, w := range strings.Fields(p) {
				wt := count(w)
				if curTokens+wt > budget {
					flush()
				}
				cur = append(cur, w)
				curTokens += wt
			}
			flush()
			continue
		}
		if curTokens+t > budget {
			flush()
		}
		cur = append(cur, p)
		curTokens += t
	}
	flush()
	return out
}

// sentences splits a paragraph after '.', '!' or '?' followed by a space.
func sentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(p); i++ {
		if strings.IndexByte(".!?", p[i]) >= 0 && p[i+1] == ' ' {
			out = append(out, strings.TrimSpace(p[start:i+1]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(p[start:]); rest != "" {
		out = append(out, rest)
	}
	if len(out) == 1 && !strings.ContainsAny(p, ".!?") {
		return []string{p}
	}
	return out
}
