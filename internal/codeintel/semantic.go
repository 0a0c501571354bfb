package codeintel

import (
	"context"
	"crypto/sha256"
	"math"
	"sort"
	"strings"
	"unicode"

	"toolhost/internal/codeindex"
	"toolhost/internal/embed"
)

// Chunk is a piece of code at function or type granularity: what semantic_search ranks.
type Chunk struct {
	Path    string  `json:"path"`
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Line    int     `json:"line"`
	EndLine int     `json:"end_line"`
	Score   float64 `json:"score"`
	Text    string  `json:"-"`
}

// SemanticResult is semantic_search's answer.
type SemanticResult struct {
	Chunks   []Chunk
	Embedder string
	Files    int // files read
	Ranked   int // chunks embedded and ranked
	Notes    []string
}

// Blend of the two scores; the lexical one keeps exact identifiers from being outranked by
// vaguely similar code.
const (
	semanticWeight = 0.65
	lexicalWeight  = 0.35
	// maxRanked bounds the chunks embedded for one query (the best by words first).
	maxRanked = 200
	// maxChunkLines and maxChunkBytes bound a chunk's text.
	maxChunkLines = 60
	maxChunkBytes = 2000
)

// SemanticSearch ranks the functions and types under scope by how well they answer a
// natural-language query: the chunks sharing most words with it are embedded (the vectors are
// cached by content) and ranked by a blend of cosine similarity and word overlap.
func (e *Engine) SemanticSearch(ctx context.Context, query, scope string, max int) (*SemanticResult, error) {
	if max <= 0 {
		max = 10
	}
	words := queryWords(query)
	q := codeindex.Query{All: true}
	for _, w := range words {
		if len(w) >= 3 {
			lq := codeindex.LiteralQuery(w)
			q.Alts = append(q.Alts, lq.Alts...)
		}
	}
	if len(q.Alts) > 0 {
		q.All = false
	}
	files, truncated, err := e.sourceFiles(ctx, scope, 0, q, e.cfg.MaxFiles)
	if err != nil {
		return nil, err
	}
	res := &SemanticResult{Embedder: e.cfg.Embedder.ID(), Files: len(files)}
	if truncated {
		res.Notes = append(res.Notes, "the scope holds more files than one search reads; narrow path")
	}
	var chunks []Chunk
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		cs, err := e.chunksOf(f)
		if err != nil {
			continue
		}
		chunks = append(chunks, cs...)
	}
	if len(chunks) == 0 {
		return res, nil
	}
	// Word overlap, weighted by how rare each word is among the chunks.
	df := map[string]int{}
	toks := make([]map[string]bool, len(chunks))
	for i, c := range chunks {
		toks[i] = tokenSet(c.Text)
		for _, w := range words {
			if toks[i][w] {
				df[w]++
			}
		}
	}
	lex := make([]float64, len(chunks))
	maxLex := 0.0
	for i := range chunks {
		for _, w := range words {
			if toks[i][w] {
				lex[i] += math.Log(1 + float64(len(chunks))/float64(df[w]))
			}
		}
		maxLex = math.Max(maxLex, lex[i])
	}
	order := make([]int, len(chunks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lex[order[a]] > lex[order[b]] })
	if len(order) > maxRanked {
		order = order[:maxRanked]
	}
	qv, err := e.cfg.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	var todo []int
	var texts []string
	vecs := make(map[int][]float32, len(order))
	for _, i := range order {
		k := vectorKey(e.cfg.Embedder, chunks[i].Text)
		if v, ok := e.vectors.get(k); ok {
			vecs[i] = v
			continue
		}
		todo = append(todo, i)
		texts = append(texts, chunks[i].Text)
	}
	for start := 0; start < len(texts); start += 32 {
		end := min(start+32, len(texts))
		vs, err := e.cfg.Embedder.Embed(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			i := todo[start+j]
			vecs[i] = v
			e.vectors.put(vectorKey(e.cfg.Embedder, chunks[i].Text), v)
		}
	}
	for _, i := range order {
		s := float64(embed.Cosine(qv[0], vecs[i])) * semanticWeight
		if maxLex > 0 {
			s += lexicalWeight * lex[i] / maxLex
		}
		chunks[i].Score = s
	}
	res.Ranked = len(order)
	ranked := make([]Chunk, 0, len(order))
	for _, i := range order {
		ranked = append(ranked, chunks[i])
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].Score > ranked[b].Score })
	if len(ranked) > max {
		ranked = ranked[:max]
	}
	res.Chunks = ranked
	return res, nil
}

func vectorKey(e embed.Embedder, text string) string {
	h := sha256.Sum256([]byte(text))
	return e.ID() + "\x00" + string(h[:16])
}

// chunksOf cuts a file into its top-level symbols (and the members of types, each alone).
func (e *Engine) chunksOf(rel string) ([]Chunk, error) {
	syms, err := e.outlineOf(rel)
	if err != nil {
		return nil, err
	}
	src, _, err := e.read(rel)
	if err != nil {
		return nil, err
	}
	lines := splitLines(src)
	flat := flatten(syms)
	sort.SliceStable(flat, func(i, j int) bool { return flat[i].Line < flat[j].Line })
	var out []Chunk
	for i, s := range flat {
		if s.Kind == KindField || s.Kind == KindVariable && s.Container != "" {
			continue
		}
		end := s.EndLine
		if end < s.Line {
			end = len(lines)
			for _, n := range flat[i+1:] {
				if n.Line > s.Line {
					end = n.Line - 1
					// The comment above the next definition is the next one's.
					for end > s.Line && end <= len(lines) && (isComment(string(lines[end-1])) || strings.TrimSpace(string(lines[end-1])) == "") {
						end--
					}
					break
				}
			}
		}
		end = min(end, s.Line+maxChunkLines-1, len(lines))
		// The comment above a definition says what it is for: it belongs to the chunk.
		start := s.Line
		for start > 1 && isComment(string(lines[start-2])) && s.Line-start < 12 {
			start--
		}
		var b strings.Builder
		b.WriteString(rel + ": " + s.Name + "\n")
		for l := start; l <= end && b.Len() < maxChunkBytes; l++ {
			b.Write(lines[l-1])
			b.WriteByte('\n')
		}
		text := b.String()
		if len(text) > maxChunkBytes {
			text = text[:maxChunkBytes]
		}
		out = append(out, Chunk{Path: rel, Name: qualified(s), Kind: s.Kind, Line: s.Line, EndLine: end, Text: text})
	}
	return out, nil
}

func qualified(s Symbol) string {
	if s.Container != "" {
		return s.Container + "." + s.Name
	}
	return s.Name
}

func isComment(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*")
}

// stopWords are left out of the word overlap.
var stopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "in": true, "and": true, "or": true,
	"is": true, "are": true, "we": true, "do": true, "does": true, "where": true, "what": true, "how": true, "which": true,
	"for": true, "on": true, "with": true, "that": true, "this": true, "it": true, "be": true, "from": true, "by": true, "when": true}

// queryWords are a query's words, lower-cased, stemmed crudely, without stop words.
func queryWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range splitWords(q) {
		if stopWords[w] || len(w) < 2 || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// tokenSet is the set of a text's words (identifiers split at case changes and underscores).
func tokenSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range splitWords(text) {
		m[w] = true
	}
	return m
}

// splitWords splits text into lower-case words: at non-letters, at lower-to-upper case
// changes, and with a plural or -ing/-ed ending cut.
func splitWords(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, stem(strings.ToLower(string(cur))))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

func stem(w string) string {
	for _, suf := range []string{"ing", "ies", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			if suf == "ies" {
				return w[:len(w)-3] + "y"
			}
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
