package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/embed"
	"toolhost/internal/golden"
)

// wordCount is a token counter for chunking tests: one token per word.
func wordCount(s string) int { return len(strings.Fields(s)) }

func TestChunkDocument(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"plain text", "one two three\n\nfour five", 100, []string{"one two three\n\nfour five"}},
		{"empty", " \n\n ", 100, nil},
		{"headings become context", "# A\n\nalpha\n\n## B\n\nbeta\n\n# C\n\ngamma", 100,
			[]string{"# A: alpha", "# A > ## B: beta", "# C: gamma"}},
		{"sibling replaces sibling", "## X\n\nx\n\n## Y\n\ny", 100, []string{"## X: x", "## Y: y"}},
		{"heading without body", "# Title\n\n## Empty\n\n## Full\n\ntext", 100, []string{"# Title > ## Full: text"}},
		{"not headings", "#hashtag\n\n    # indented code\n\n####### seven", 100, []string{"#hashtag\n\n# indented code\n\n####### seven"}},
		{"fence keeps heading-like lines", "# A\n\n```\n# comment\n\nmore\n```", 100, []string{"# A: ```\n# comment\n\nmore\n```"}},
		{"blocks packed up to the window", "a b c\n\nd e f\n\ng h i", 10, []string{"a b c\n\nd e f", "g h i"}},
		{"long paragraph split at sentences", "One two three. Four five six. Seven eight nine.", 8,
			[]string{"One two three. Four five six.", "Seven eight nine."}},
		{"long sentence split at words", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10", 6, []string{"w1 w2 w3 w4", "w5 w6 w7 w8", "w9 w10"}},
		{"long list split at lines", "- a b c\n- d e f\n- g h i", 10, []string{"- a b c\n- d e f", "- g h i"}},
		{"CRLF", "# T\r\n\r\nx\r\n", 100, []string{"# T: x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chunkDocument(tt.text, tt.max, wordCount)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chunkDocument(%q, %d) (-want +got):\n%s", tt.text, tt.max, diff)
			}
			for _, c := range got {
				if n := wordCount(c); n > tt.max {
					t.Errorf("chunk %q has %d tokens, window %d", c, n, tt.max)
				}
			}
		})
	}
}

// TestChunkGuideGolden pins the chunks of a realistic Markdown file under the built-in model's
// tokenizer (only the tokenizer is loaded, not the weights).
func TestChunkGuideGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	u := embed.NewUSELite()
	const window = 64 // smaller than the model's 128 so the file needs several chunks
	chunks := chunkDocument(string(src), window, u.CountTokens)
	for _, c := range chunks {
		if n := u.CountTokens(c); n > window {
			t.Errorf("chunk has %d tokens, window %d: %q", n, window, c)
		}
	}
	got := strings.Join(chunks, "\n---\n") + "\n"
	golden.CheckString(t, "testdata/guide.chunks.golden", got)
}

func TestImport(t *testing.T) {
	ctx := context.Background()
	s, _ := newLexical(t, Config{})
	src, err := os.ReadFile("testdata/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	req := ImportRequest{Conversation: "c", Scope: "topic:docs", Name: "guide.md", Content: src, Tags: []string{"Docs"}}
	first, err := s.Import(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Unchanged || first.Chunks == 0 || len(first.IDs) != first.Chunks || first.Replaced != 0 {
		t.Fatalf("first Import = %+v, want new chunks", first)
	}

	hits := mustSearch(t, s, SearchRequest{Conversation: "other", Query: "state directory bbolt file", Scopes: []string{"docs"}, Limit: 1})
	if len(hits) != 1 || hits[0].Document != "guide.md" || !strings.HasPrefix(hits[0].Content, "# Toolhost Guide > ## Configuration: ") ||
		hits[0].Tags[0] != "docs" {
		t.Errorf("Search in imported doc = %+v, want the Configuration chunk of guide.md", hits)
	}

	again, err := s.Import(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Unchanged || !cmp.Equal(again.IDs, first.IDs) {
		t.Errorf("re-import unchanged = %+v, want Unchanged with the same IDs %v", again, first.IDs)
	}

	req.Content = append([]byte("# Toolhost Guide\n\nNew intro paragraph about wombats.\n\n"), src[len("# Toolhost Guide\n"):]...)
	changed, err := s.Import(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Unchanged || changed.Replaced != first.Chunks || changed.IDs[0] <= first.IDs[len(first.IDs)-1] {
		t.Errorf("re-import changed = %+v, want %d old chunks replaced by new IDs", changed, first.Chunks)
	}
	all := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "toolhost guide", Scopes: []string{"docs"}, Limit: 100, Threshold: f32(-1)})
	if len(all) != changed.Chunks {
		t.Errorf("after re-import, %d chunks searchable, want %d", len(all), changed.Chunks)
	}
	for _, h := range all {
		if h.ID < changed.IDs[0] {
			t.Errorf("old chunk %d still searchable", h.ID)
		}
	}
	docs, err := s.Documents(ctx, "c")
	if err != nil || len(docs) != 1 || docs[0].Name != "guide.md" || docs[0].Chunks != changed.Chunks {
		t.Errorf("Documents = %+v, %v; want guide.md with %d chunks", docs, err, changed.Chunks)
	}

	// Deleting every chunk forgets the document, so it can be imported again.
	if n, err := s.Delete(ctx, DeleteRequest{Conversation: "c", Scope: "docs", Tag: "docs"}); err != nil || n != changed.Chunks {
		t.Fatalf("Delete(tag docs) = %d, %v; want %d", n, err, changed.Chunks)
	}
	if docs, _ := s.Documents(ctx, "c"); len(docs) != 0 {
		t.Errorf("Documents after deleting every chunk = %+v, want none", docs)
	}
	if res, err := s.Import(ctx, req); err != nil || res.Unchanged {
		t.Errorf("Import after delete = %+v, %v; want a fresh import", res, err)
	}
}

func TestImportValidation(t *testing.T) {
	s, _ := newLexical(t, Config{MaxDocumentBytes: 50})
	tests := []struct {
		name string
		req  ImportRequest
		want error
	}{
		{"no name", ImportRequest{Conversation: "c", Content: []byte("x")}, ErrBadRequest},
		{"too large", ImportRequest{Conversation: "c", Name: "a", Content: []byte(strings.Repeat("x", 51))}, ErrTooLarge},
		{"binary", ImportRequest{Conversation: "c", Name: "a", Content: []byte("a\x00b")}, ErrNotText},
		{"invalid UTF-8", ImportRequest{Conversation: "c", Name: "a", Content: []byte{0xff, 0xfe}}, ErrNotText},
		{"only white space", ImportRequest{Conversation: "c", Name: "a", Content: []byte("\n\n  \n")}, ErrEmptyContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Import(context.Background(), tt.req); !errors.Is(err, tt.want) {
				t.Errorf("Import(%s) error = %v, want %v", tt.name, err, tt.want)
			}
		})
	}
}

// TestImportSizeBothSides: a document up to MaxDocumentBytes is imported, a longer one refused
// with the limit named, by Import and StartImport alike (CheckDocumentSize decides for both).
func TestImportSizeBothSides(t *testing.T) {
	const limit = 50
	s, _ := newLexical(t, Config{MaxDocumentBytes: limit})
	if got := s.MaxDocumentBytes(); got != limit {
		t.Fatalf("MaxDocumentBytes() = %d, want %d", got, limit)
	}
	for _, tt := range []struct {
		name string
		size int
		ok   bool
	}{
		{"just under", limit - 1, true},
		{"at", limit, true},
		{"just over", limit + 1, false},
		{"far over", 100 * limit, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := ImportRequest{Conversation: "c", Name: tt.name, Content: []byte(strings.Repeat("word ", tt.size)[:tt.size])}
			_, err := s.Import(context.Background(), req)
			job, _, serr := s.StartImport(req)
			if serr == nil {
				<-job.Done()
				_, serr = job.Result()
			}
			for _, err := range []error{err, serr} {
				if tt.ok && err != nil || !tt.ok && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("the import limit is %d", limit))) {
					t.Errorf("a document of %d bytes (limit %d): %v", tt.size, limit, err)
				}
			}
		})
	}
}
