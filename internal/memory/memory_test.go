package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/embed"
	"toolhost/internal/todo"
	"toolhost/reminders"
	"toolhost/store"
)

var indexKinds = []IndexKind{IndexAuto, IndexSlab, IndexChromem}

func TestStoreDuplicates(t *testing.T) {
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			s, _ := newLexical(t, Config{Index: kind})
			first := mustStore(t, s, StoreRequest{Conversation: "c1", Content: "The staging database is read-only on Fridays."})
			if first.Duplicate != NotDuplicate || first.ID == 0 {
				t.Fatalf("first Store = %+v, want a new memory", first)
			}
			tests := []struct {
				name    string
				req     StoreRequest
				wantDup Duplicate
				wantOld bool
			}{
				{"exact", StoreRequest{Conversation: "c1", Content: "The staging database is read-only on Fridays."}, ExactDuplicate, true},
				{"exact with white space", StoreRequest{Conversation: "c1", Content: "  The staging database is read-only on Fridays.\n"}, ExactDuplicate, true},
				{"near: punctuation only", StoreRequest{Conversation: "c1", Content: "the staging database is read-only on fridays!"}, NearDuplicate, true},
				{"different", StoreRequest{Conversation: "c1", Content: "Deployments to eu-west-1 need approval from the platform team."}, NotDuplicate, false},
				{"same text, other scope", StoreRequest{Conversation: "c1", Scope: "topic:ops", Content: "The staging database is read-only on Fridays."}, NotDuplicate, false},
				{"same text, other conversation", StoreRequest{Conversation: "c2", Content: "The staging database is read-only on Fridays."}, NotDuplicate, false},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got := mustStore(t, s, tt.req)
					if got.Duplicate != tt.wantDup {
						t.Fatalf("Store(%q).Duplicate = %q, want %q", tt.req.Content, got.Duplicate, tt.wantDup)
					}
					if (got.ID == first.ID) != tt.wantOld {
						t.Errorf("Store(%q).ID = %d, first ID %d, want same = %v", tt.req.Content, got.ID, first.ID, tt.wantOld)
					}
					if tt.wantDup != NotDuplicate && (got.Existing == "" || got.Similarity < DefaultNearDuplicate) {
						t.Errorf("Store(%q) = %+v, want the existing content and a similarity >= %v", tt.req.Content, got, DefaultNearDuplicate)
					}
				})
			}
		})
	}
}

func TestNearDuplicateThreshold(t *testing.T) {
	s, _ := newLexical(t, Config{NearDuplicate: 1.5}) // disabled
	a := mustStore(t, s, StoreRequest{Conversation: "c", Content: "Use tabs for indentation."})
	b := mustStore(t, s, StoreRequest{Conversation: "c", Content: "use tabs for indentation!"})
	if b.Duplicate != NotDuplicate || a.ID == b.ID {
		t.Errorf("with near-duplicate detection off, Store = %+v, want a new memory", b)
	}
}

func TestStoreValidation(t *testing.T) {
	s, _ := newLexical(t, Config{MaxContentBytes: 100})
	tests := []struct {
		name string
		req  StoreRequest
		want error
	}{
		{"empty", StoreRequest{Conversation: "c", Content: " \n\t"}, ErrEmptyContent},
		{"too large", StoreRequest{Conversation: "c", Content: strings.Repeat("x", 101)}, ErrTooLarge},
		{"no conversation", StoreRequest{Content: "hello"}, ErrBadRequest},
		{"other conversation's scope", StoreRequest{Conversation: "c", Scope: "conversation:d", Content: "hello"}, ErrBadRequest},
		{"bad topic", StoreRequest{Conversation: "c", Scope: "topic:" + strings.Repeat("t", 101), Content: "hello"}, ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Store(context.Background(), tt.req)
			if !errors.Is(err, tt.want) {
				t.Errorf("Store(%+v) error = %v, want %v", tt.req, err, tt.want)
			}
		})
	}
}

func TestScopesAndTopics(t *testing.T) {
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			s, _ := newLexical(t, Config{Index: kind})
			own := mustStore(t, s, StoreRequest{Conversation: "alice", Content: "alice private note about kubernetes upgrades"})
			shared := mustStore(t, s, StoreRequest{Conversation: "alice", Scope: "topic:infra", Content: "kubernetes upgrades happen on tuesdays"})
			bare := mustStore(t, s, StoreRequest{Conversation: "bob", Scope: "infra", Content: "kubernetes upgrades need a drain first"})
			other := mustStore(t, s, StoreRequest{Conversation: "bob", Scope: "topic:payroll", Content: "kubernetes upgrades are not payroll business"})
			q := "kubernetes upgrades"
			tests := []struct {
				name   string
				conv   string
				scopes []string
				want   []uint64
			}{
				{"own conversation by default", "alice", nil, []uint64{own.ID}},
				{"other conversation sees nothing of alice", "carol", nil, nil},
				{"topic by prefix", "carol", []string{"topic:infra"}, []uint64{shared.ID, bare.ID}},
				{"topic by bare name", "carol", []string{"infra"}, []uint64{shared.ID, bare.ID}},
				{"conversation and topic", "alice", []string{"conversation", "infra"}, []uint64{own.ID, shared.ID, bare.ID}},
				{"all", "alice", []string{"all"}, []uint64{own.ID, shared.ID, bare.ID, other.ID}},
				{"all from bob", "bob", []string{"all"}, []uint64{shared.ID, bare.ID, other.ID}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					hits := mustSearch(t, s, SearchRequest{Conversation: tt.conv, Query: q, Scopes: tt.scopes, Limit: 10})
					got := hitIDs(hits)
					slices.Sort(got)
					if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b []uint64) bool { return slices.Equal(a, b) })); diff != "" && !(len(tt.want) == 0 && len(got) == 0) {
						t.Errorf("Search(%s, %v) IDs (-want +got):\n%s", tt.conv, tt.scopes, diff)
					}
				})
			}
		})
	}
}

func TestTagFilters(t *testing.T) {
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			s, _ := newLexical(t, Config{Index: kind})
			a := mustStore(t, s, StoreRequest{Conversation: "c", Content: "release checklist step one: freeze the branch", Tags: []string{"Release", "git"}})
			b := mustStore(t, s, StoreRequest{Conversation: "c", Content: "release checklist step two: tag the build", Tags: []string{"release"}})
			mustStore(t, s, StoreRequest{Conversation: "c", Content: "release checklist for the cafeteria menu", Tags: []string{"food"}})
			tests := []struct {
				name string
				tags []string
				want []uint64
			}{
				{"one tag, case-insensitive", []string{"RELEASE"}, []uint64{a.ID, b.ID}},
				{"every tag must match", []string{"release", "git"}, []uint64{a.ID}},
				{"unknown tag", []string{"nope"}, nil},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got := hitIDs(mustSearch(t, s, SearchRequest{Conversation: "c", Query: "release checklist", Tags: tt.tags, Threshold: f32(-1)}))
					slices.Sort(got)
					if !slices.Equal(got, tt.want) {
						t.Errorf("Search(tags %v) = %v, want %v", tt.tags, got, tt.want)
					}
				})
			}
			hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "release checklist", Tags: []string{"git"}})
			if len(hits) != 1 || !slices.Equal(hits[0].Tags, []string{"git", "release"}) {
				t.Errorf("Search hit tags = %+v, want [git release]", hits)
			}
		})
	}
}

func TestSearchResultShape(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s, _ := newLexical(t, Config{Now: func() time.Time { return now }})
	long := "zanzibar " + strings.Repeat("word ", 300)
	res := mustStore(t, s, StoreRequest{Conversation: "c", Content: long, Metadata: map[string]string{"source": "test"}})
	hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "zanzibar", SnippetChars: 20})
	if len(hits) != 1 {
		t.Fatalf("Search = %d hits, want 1", len(hits))
	}
	h := hits[0]
	want := Hit{ID: res.ID, Score: h.Score, Similarity: h.Similarity, Content: "zanzibar word word w…", Truncated: true,
		Metadata: map[string]string{"source": "test"}, Scope: "conversation:c", Created: now}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("Search hit (-want +got):\n%s", diff)
	}
	if h.Similarity <= 0 || h.Similarity > 1.0001 {
		t.Errorf("Similarity = %v, want in (0, 1]", h.Similarity)
	}
}

func TestSearchThresholdAndLimit(t *testing.T) {
	s, _ := newLexical(t, Config{})
	for i := range 12 {
		mustStore(t, s, StoreRequest{Conversation: "c", Content: fmt.Sprintf("note %d about the quarterly budget review", i)})
	}
	mustStore(t, s, StoreRequest{Conversation: "c", Content: "completely unrelated: penguins live in antarctica"})
	tests := []struct {
		name      string
		limit     int
		threshold *float32
		want      int
	}{
		{"default limit", 0, nil, DefaultSearchLimit},
		{"limit", 3, nil, 3},
		{"threshold excludes unrelated", 20, nil, 12},
		{"no threshold", 20, f32(-1), 13},
		{"threshold too high", 20, f32(0.999), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "quarterly budget review", Limit: tt.limit, Threshold: tt.threshold})
			if len(hits) != tt.want {
				t.Errorf("Search(limit %d) = %d hits, want %d", tt.limit, len(hits), tt.want)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("hits not sorted by score: %v before %v", hits[i-1].Score, hits[i].Score)
				}
			}
		})
	}
	if _, err := s.Search(context.Background(), SearchRequest{Conversation: "c", Query: "  "}); !errors.Is(err, ErrEmptyContent) {
		t.Errorf("Search(empty) error = %v, want ErrEmptyContent", err)
	}
}

// TestCountClamp asks for more results than a tiny collection holds: chromem-go would fail
// without the clamp.
func TestCountClamp(t *testing.T) {
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			s, _ := newLexical(t, Config{Index: kind})
			mustStore(t, s, StoreRequest{Conversation: "c", Content: "only memory"})
			hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "only memory", Limit: 50, Threshold: f32(-1)})
			if len(hits) != 1 {
				t.Errorf("Search(limit 50) on one memory = %d hits, want 1", len(hits))
			}
			hits = mustSearch(t, s, SearchRequest{Conversation: "c", Query: "only memory", Limit: 50, Scopes: []string{"topic:empty"}})
			if len(hits) != 0 {
				t.Errorf("Search in an empty topic = %d hits, want 0", len(hits))
			}
		})
	}
}

func TestDelete(t *testing.T) {
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			ctx := context.Background()
			s, _ := newLexical(t, Config{Index: kind})
			a := mustStore(t, s, StoreRequest{Conversation: "c", Content: "alpha fact about gardening", Tags: []string{"garden"}})
			b := mustStore(t, s, StoreRequest{Conversation: "c", Content: "beta fact about gardening", Tags: []string{"garden"}})
			c := mustStore(t, s, StoreRequest{Conversation: "c", Content: "gamma fact about gardening", Tags: []string{"other"}})
			d := mustStore(t, s, StoreRequest{Conversation: "c", Scope: "topic:t", Content: "delta fact about gardening", Tags: []string{"garden"}})
			mustSearch(t, s, SearchRequest{Conversation: "c", Query: "gardening"}) // build the index first

			tests := []struct {
				name    string
				req     DeleteRequest
				want    int
				wantErr error
			}{
				{"neither id nor tag", DeleteRequest{Conversation: "c"}, 0, ErrBadRequest},
				{"both id and tag", DeleteRequest{Conversation: "c", ID: a.ID, Tag: "garden"}, 0, ErrBadRequest},
				{"unknown id", DeleteRequest{Conversation: "c", ID: 999}, 0, ErrNotFound},
				{"another conversation's memory", DeleteRequest{Conversation: "x", ID: a.ID}, 0, ErrNotFound},
				{"by id", DeleteRequest{Conversation: "c", ID: a.ID}, 1, nil},
				{"same id again", DeleteRequest{Conversation: "c", ID: a.ID}, 0, ErrNotFound},
				{"by tag in the conversation scope", DeleteRequest{Conversation: "c", Tag: "GARDEN"}, 1, nil},
				{"by tag, nothing left", DeleteRequest{Conversation: "c", Tag: "garden"}, 0, nil},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := s.Delete(ctx, tt.req)
					if !errors.Is(err, tt.wantErr) || got != tt.want {
						t.Errorf("Delete(%+v) = %d, %v; want %d, %v", tt.req, got, err, tt.want, tt.wantErr)
					}
				})
			}
			hits := hitIDs(mustSearch(t, s, SearchRequest{Conversation: "c", Query: "gardening", Scopes: []string{"all"}}))
			slices.Sort(hits)
			if want := []uint64{c.ID, d.ID}; !slices.Equal(hits, want) {
				t.Errorf("after deletes, Search = %v, want %v (b=%d deleted)", hits, want, b.ID)
			}
			// A deleted memory's content can be stored again (its hash entry is gone).
			again := mustStore(t, s, StoreRequest{Conversation: "c", Content: "alpha fact about gardening"})
			if again.Duplicate != NotDuplicate || again.ID == a.ID {
				t.Errorf("Store after delete = %+v, want a new memory", again)
			}
			n, err := s.Delete(ctx, DeleteRequest{Conversation: "z", Tag: "garden", Scope: "topic:t"})
			if err != nil || n != 1 {
				t.Errorf("Delete(tag in topic) = %d, %v; want 1, nil", n, err)
			}
		})
	}
}

func TestCollections(t *testing.T) {
	ctx := context.Background()
	s, _ := newLexical(t, Config{})
	mustStore(t, s, StoreRequest{Conversation: "c", Content: "one"})
	mustStore(t, s, StoreRequest{Conversation: "c", Content: "two"})
	mustStore(t, s, StoreRequest{Conversation: "c", Scope: "topic:t", Content: "three"})
	mustStore(t, s, StoreRequest{Conversation: "other", Content: "hidden"})
	if _, err := s.Import(ctx, ImportRequest{Conversation: "c", Scope: "t", Name: "doc.md", Content: []byte("# Doc\n\nhello world")}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Collections(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i].Bytes <= 0 {
			t.Errorf("Collections()[%d].Bytes = %d, want > 0", i, got[i].Bytes)
		}
		got[i].Bytes = 0
	}
	id := embed.NewLexical(embed.DefaultLexicalDim).ID()
	want := []Collection{
		{Scope: "conversation:c", Count: 2, Embedder: id, Dim: 512},
		{Scope: "topic:t", Count: 2, Documents: 1, Embedder: id, Dim: 512},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Collections (-want +got):\n%s", diff)
	}
}

func TestRecent(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	s, _ := newLexical(t, Config{Now: clock})
	old := mustStore(t, s, StoreRequest{Conversation: "c", Content: "old note"})
	now = now.Add(time.Hour)
	fresh := mustStore(t, s, StoreRequest{Conversation: "c", Scope: "topic:x", Content: "fresh   note\nwith lines", Tags: []string{"t"}})
	mustStore(t, s, StoreRequest{Conversation: "d", Content: "someone else's"})
	now = now.Add(time.Minute)
	imp, err := s.Import(ctx, ImportRequest{Conversation: "c", Name: "notes.txt", Content: []byte("some text")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Recent(ctx, "c", now.Add(-30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []Note{
		{Kind: NoteMemory, ID: fresh.ID, Scope: "topic:x", Text: "fresh note with lines", Tags: []string{"t"}, Time: now.Add(-time.Minute)},
		{Kind: NoteDocument, ID: imp.IDs[0], Scope: "conversation:c", Text: "notes.txt", Time: now, Chunks: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Recent (-want +got):\n%s", diff)
	}
	if _, err := s.Delete(ctx, DeleteRequest{Conversation: "c", ID: fresh.ID}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Recent(ctx, "c", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != old.ID || got[1].Kind != NoteDocument {
		t.Errorf("Recent after delete = %+v, want the old note and the document", got)
	}
}

// TestEmbedderChange stores with one embedder and reopens with another: operations refuse with
// a clear error until Reembed, which reports progress; spaces are never mixed.
func TestEmbedderChange(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	old := New(st, Config{Embedder: embed.NewLexical(512)})
	var ids []uint64
	for i := range 40 {
		ids = append(ids, mustStore(t, old, StoreRequest{Conversation: "c", Content: fmt.Sprintf("fact %d about owl%d migration", i, i)}).ID)
	}
	s := New(st, Config{Embedder: embed.NewLexical(256)})
	_, err := s.Search(ctx, SearchRequest{Conversation: "c", Query: "owl7 migration"})
	var ce *EmbedderChangedError
	if !errors.As(err, &ce) || !errors.Is(err, ErrEmbedderChanged) {
		t.Fatalf("Search after embedder change error = %v, want *EmbedderChangedError", err)
	}
	if want := (EmbedderChangedError{Stored: "lexical-v1/512", Configured: "lexical-v1/256", Stale: 40}); *ce != want {
		t.Errorf("EmbedderChangedError = %+v, want %+v", *ce, want)
	}
	for _, want := range []string{"lexical-v1/512", "lexical-v1/256", "re-embed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := s.Store(ctx, StoreRequest{Conversation: "c", Content: "new fact"}); !errors.Is(err, ErrEmbedderChanged) {
		t.Errorf("Store after embedder change error = %v, want ErrEmbedderChanged", err)
	}
	if _, err := s.Import(ctx, ImportRequest{Conversation: "c", Name: "a.md", Content: []byte("x")}); !errors.Is(err, ErrEmbedderChanged) {
		t.Errorf("Import after embedder change error = %v, want ErrEmbedderChanged", err)
	}
	cols, err := s.Collections(ctx, "c")
	if err != nil || len(cols) != 1 || cols[0].Stale != 40 {
		t.Errorf("Collections = %+v, %v; want one scope with 40 stale", cols, err)
	}
	if n, err := s.Delete(ctx, DeleteRequest{Conversation: "c", ID: ids[0]}); n != 1 || err != nil {
		t.Errorf("Delete during embedder change = %d, %v; want 1, nil", n, err)
	}

	var calls [][2]int
	if err := s.Reembed(ctx, func(done, total int) { calls = append(calls, [2]int{done, total}) }); err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{32, 39}, {39, 39}}; !slices.Equal(calls, want) {
		t.Errorf("Reembed progress = %v, want %v", calls, want)
	}
	hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "owl7 migration", Limit: 1})
	if len(hits) != 1 || hits[0].ID != ids[7] {
		t.Errorf("Search after Reembed = %+v, want memory %d", hits, ids[7])
	}
	err = st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(itemsPath, func(k string, v []byte) error {
			var r record
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			raw, _ := tx.Get(vecsPath, k)
			if r.Embedder != "lexical-v1/256" || r.Dim != 256 || len(raw) != 4*256 {
				return fmt.Errorf("memory %d: embedder %s dim %d vector %d bytes after Reembed", r.ID, r.Embedder, r.Dim, len(raw))
			}
			return nil
		})
	})
	if err != nil {
		t.Error(err)
	}
	// The old service, still configured with the old embedder, now refuses instead of mixing.
	if _, err := old.Search(ctx, SearchRequest{Conversation: "c", Query: "owl"}); !errors.Is(err, ErrEmbedderChanged) {
		t.Errorf("old service Search after Reembed error = %v, want ErrEmbedderChanged", err)
	}
}

// zeroEmbedder returns zero vectors, as a broken remote service might.
type zeroEmbedder struct{ embed.Embedder }

func (z zeroEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, z.Dim())
	}
	return out, nil
}

// TestNoZeroVectors checks that nothing stored is a zero vector: inputs with nothing to embed get
// the embedder's fallback, and an embedder that returns zeros is refused.
func TestNoZeroVectors(t *testing.T) {
	ctx := context.Background()
	s, st := newLexical(t, Config{})
	for _, c := range []string{"!!!", "---", "…", "日本語"} {
		mustStore(t, s, StoreRequest{Conversation: "c", Content: c})
	}
	err := st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(vecsPath, func(k string, v []byte) error {
			var n float64
			for _, x := range decodeVec(v) {
				n += float64(x) * float64(x)
			}
			if math.Abs(n-1) > 1e-4 {
				return fmt.Errorf("memory %x: vector norm² %v, want 1", k, n)
			}
			return nil
		})
	})
	if err != nil {
		t.Error(err)
	}
	z, _ := newLexical(t, Config{Embedder: zeroEmbedder{embed.NewLexical(64)}})
	if _, err := z.Store(ctx, StoreRequest{Conversation: "c", Content: "anything"}); err == nil || !strings.Contains(err.Error(), "zero") {
		t.Errorf("Store with a zero-vector embedder error = %v, want a zero vector error", err)
	}
}

// TestSecondProcess spawns this test binary as another toolhost process that stores memories
// into the same state directory; they must become searchable here without a restart.
func TestSecondProcess(t *testing.T) {
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			ctx := context.Background()
			s, st := newLexical(t, Config{Index: kind})
			mustStore(t, s, StoreRequest{Conversation: "me", Scope: "topic:shared", Content: "parent fact about zebra migrations"})
			if hits := mustSearch(t, s, SearchRequest{Conversation: "me", Query: "zebra migrations", Scopes: []string{"shared"}, Limit: 10}); len(hits) != 1 {
				t.Fatalf("before the child, Search = %d hits, want 1", len(hits))
			}
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childDirEnv+"="+st.Dir(), childCountEnv+"=20")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child process: %v\n%s", err, out)
			}
			hits := mustSearch(t, s, SearchRequest{Conversation: "me", Query: "zebra7 migrations", Scopes: []string{"shared"}, Limit: 3})
			if len(hits) == 0 || !strings.Contains(hits[0].Content, "zebra7 ") {
				t.Fatalf("after the child, Search(zebra7) = %+v, want the child's fact 7 first", hits)
			}
			all := mustSearch(t, s, SearchRequest{Conversation: "me", Query: "fact about zebra migrations", Scopes: []string{"shared"}, Limit: 100, Threshold: f32(-1)})
			if len(all) != 21 {
				t.Errorf("after the child, Search = %d hits, want 21", len(all))
			}
			// Deletions by another process are seen too.
			other := New(st, Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim)})
			if n, err := other.Delete(ctx, DeleteRequest{Conversation: "x", Tag: "child", Scope: "topic:shared"}); err != nil || n != 20 {
				t.Fatalf("Delete(tag child) = %d, %v; want 20", n, err)
			}
			all = mustSearch(t, s, SearchRequest{Conversation: "me", Query: "fact about zebra migrations", Scopes: []string{"shared"}, Limit: 100, Threshold: f32(-1)})
			if len(all) != 1 {
				t.Errorf("after another process deleted, Search = %d hits, want 1", len(all))
			}
		})
	}
}

// TestRestart stores 10,000 memories, then searches from a new Service on the same directory,
// as after a server restart.
func TestRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 memories: skipped with -short")
	}
	ctx := context.Background()
	st := newTestStore(t)
	const n = 10000
	lex := embed.NewLexical(embed.DefaultLexicalDim)
	fillStore(t, st, lex, n, "conversation:c")
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			s := New(st, Config{Embedder: lex, Index: kind})
			hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "record 4242 mentions kiwi4242", Limit: 1})
			if len(hits) != 1 || !strings.Contains(hits[0].Content, "kiwi4242 ") {
				t.Errorf("Search after restart = %+v, want record 4242", hits)
			}
			cols, err := s.Collections(ctx, "c")
			if err != nil || len(cols) != 1 || cols[0].Count != n {
				t.Errorf("Collections after restart = %+v, %v; want %d memories", cols, err, n)
			}
		})
	}
}

// fillStore writes n memories directly in batches (faster than n Store calls, same records).
func fillStore(t testing.TB, st *store.Store, e embed.Embedder, n int, scope string) {
	t.Helper()
	ctx := context.Background()
	const batch = 2000
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		texts := make([]string, 0, end-start)
		for i := start; i < end; i++ {
			texts = append(texts, fmt.Sprintf("record %d mentions kiwi%d and the %s fruit market", i, i, fruits[i%len(fruits)]))
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		err = st.Update(ctx, func(tx *store.Tx) error {
			for i, text := range texts {
				conv := strings.TrimPrefix(scope, conversationPrefix)
				rec := record{Scope: scope, Conversation: conv, Content: text, Created: time.Unix(int64(start+i), 0).UTC(),
					Hash: contentHash(text), Embedder: e.ID(), Dim: len(vecs[i])}
				if _, err := putRecord(tx, rec, vecs[i], DefaultLogKeep); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

var fruits = []string{"apple", "banana", "cherry", "damson", "elderberry", "fig", "grape"}

// TestIndexParity checks that both indexes return the same ranking.
func TestIndexParity(t *testing.T) {
	st := newTestStore(t)
	lex := embed.NewLexical(embed.DefaultLexicalDim)
	fillStore(t, st, lex, 500, "topic:t")
	a := New(st, Config{Embedder: lex, Index: IndexSlab, Hybrid: new(bool)})
	b := New(st, Config{Embedder: lex, Index: IndexChromem, Hybrid: new(bool)})
	for _, q := range []string{"cherry market", "record 17", "banana fig", "kiwi300"} {
		req := SearchRequest{Conversation: "c", Query: q, Scopes: []string{"t"}, Limit: 10, Threshold: f32(-1)}
		ha, hb := mustSearch(t, a, req), mustSearch(t, b, req)
		if len(ha) != len(hb) {
			t.Fatalf("Search(%q): slab %d hits, chromem %d", q, len(ha), len(hb))
		}
		for i := range ha {
			if ha[i].ID != hb[i].ID && math.Abs(float64(ha[i].Similarity-hb[i].Similarity)) > 1e-5 {
				t.Errorf("Search(%q)[%d]: slab %d (%.6f), chromem %d (%.6f)", q, i, ha[i].ID, ha[i].Similarity, hb[i].ID, hb[i].Similarity)
			}
		}
	}
}

// TestRemoteEmbedders runs the service on Ollama and OpenAI-compatible embedders served by a
// local httptest server (never the network); the server embeds with the lexical embedder.
func TestRemoteEmbedders(t *testing.T) {
	lex := embed.NewLexical(128)
	var requests atomic.Int64
	vectors := func(texts []string) [][]float32 {
		v, _ := lex.Embed(context.Background(), texts)
		for _, x := range v {
			for i := range x {
				x[i] *= 3 // unnormalised, as real services may answer
			}
		}
		return v
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": vectors(req.Input)})
	})
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "Bearer sekret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, v := range vectors(req.Input) {
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	t.Setenv("MEMORY_TEST_KEY", "sekret")
	tests := []struct {
		name string
		emb  embed.Embedder
	}{
		{"ollama", embed.NewOllama(embed.RemoteConfig{BaseURL: srv.URL, Model: "nomic", Timeout: 5 * time.Second})},
		{"openai", embed.NewOpenAI(embed.RemoteConfig{BaseURL: srv.URL + "/v1", Model: "small", APIKeyEnv: "MEMORY_TEST_KEY", Timeout: 5 * time.Second})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newLexical(t, Config{Embedder: tt.emb})
			want := mustStore(t, s, StoreRequest{Conversation: "c", Content: "the backup job runs at 02:00 UTC"})
			mustStore(t, s, StoreRequest{Conversation: "c", Content: "lunch is served at noon"})
			hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "when does the backup job run", Limit: 1})
			if len(hits) != 1 || hits[0].ID != want.ID {
				t.Errorf("Search = %+v, want memory %d", hits, want.ID)
			}
			cols, err := s.Collections(context.Background(), "c")
			if err != nil || len(cols) != 1 || cols[0].Dim != 128 || cols[0].Embedder != tt.emb.ID() {
				t.Errorf("Collections = %+v, %v; want dim 128 and embedder %s", cols, err, tt.emb.ID())
			}
		})
	}
	if requests.Load() == 0 {
		t.Error("the test server saw no requests")
	}
}

// TestConcurrentUse runs stores and searches from several goroutines (meaningful under -race).
func TestConcurrentUse(t *testing.T) {
	s, _ := newLexical(t, Config{})
	ctx := context.Background()
	errs := make(chan error, 8)
	for g := range 4 {
		go func() {
			for i := range 10 {
				if _, err := s.Store(ctx, StoreRequest{Conversation: "c", Scope: "topic:t", Content: fmt.Sprintf("goroutine %d stored item %d about quokka%d", g, i, g*100+i)}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
		go func() {
			for range 10 {
				if _, err := s.Search(ctx, SearchRequest{Conversation: "c", Query: "quokka item", Scopes: []string{"t"}}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "goroutine item quokka", Scopes: []string{"t"}, Limit: 100, Threshold: f32(-1)})
	if len(hits) != 40 {
		t.Errorf("after concurrent stores, Search = %d hits, want 40", len(hits))
	}
}

// TestRemindersSource checks the notes the reminder channel gets, and that a reminder built
// from them lists the memory and the imported document.
func TestRemindersSource(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	s, _ := newLexical(t, Config{Now: func() time.Time { return now }})
	m := mustStore(t, s, StoreRequest{Conversation: "c", Content: "The user prefers short commit messages."})
	d, err := s.Import(ctx, ImportRequest{Conversation: "c", Scope: "topic:docs", Name: "README.md", Content: []byte("# Readme\n\nhello")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.RecentMemories(ctx, "c", now.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []reminders.MemoryNote{
		{ID: fmt.Sprint(m.ID), Collection: "conversation:c", Text: "The user prefers short commit messages.", StoredAt: now},
		{ID: fmt.Sprint(d.IDs[0]), Collection: "topic:docs", Text: "document README.md imported (1 chunks)", StoredAt: now},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RecentMemories (-want +got):\n%s", diff)
	}
	text := reminders.Build(todo.List{}, got, reminders.DefaultConfig())
	for _, s := range []string{"short commit messages", "README.md"} {
		if !strings.Contains(text, s) {
			t.Errorf("reminder does not mention %q:\n%s", s, text)
		}
	}
}

// TestLogPruning lets another service write more changes than the log keeps: the first service's
// index, too far behind to replay, rebuilds and still sees every change.
func TestLogPruning(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	lex := embed.NewLexical(embed.DefaultLexicalDim)
	a := New(st, Config{Embedder: lex, LogKeep: 10})
	b := New(st, Config{Embedder: lex, LogKeep: 10})
	first := mustStore(t, a, StoreRequest{Conversation: "c", Content: "first memory about capybaras"})
	mustSearch(t, a, SearchRequest{Conversation: "c", Query: "capybaras"})
	if _, err := b.Delete(ctx, DeleteRequest{Conversation: "c", ID: first.ID}); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		mustStore(t, b, StoreRequest{Conversation: "c", Content: fmt.Sprintf("memory %d about capybaras and tapir%d", i, i)})
	}
	var logLen int
	err := st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(logPath, func(string, []byte) error { logLen++; return nil })
	})
	if err != nil || logLen > 10+pruneBatch {
		t.Errorf("log holds %d entries (%v), want about 10", logLen, err)
	}
	hits := mustSearch(t, a, SearchRequest{Conversation: "c", Query: "capybaras", Limit: 100, Threshold: f32(-1)})
	if len(hits) != 30 || slices.Contains(hitIDs(hits), first.ID) {
		t.Errorf("after pruning, Search = %d hits (deleted %d present: %v), want 30 without it", len(hits), first.ID, slices.Contains(hitIDs(hits), first.ID))
	}
}

// TestSharedTopicByMeaning is the "done" scenario with the built-in model, offline: a
// memory stored in one conversation under a topic is found by meaning from another conversation
// that names the topic, and not from one that does not.
func TestSharedTopicByMeaning(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("USE-Lite forward passes: too slow under -race or -short")
	}
	s := New(newTestStore(t), Config{}) // the default: built-in USE-Lite
	want := mustStore(t, s, StoreRequest{Conversation: "monday", Scope: "topic:ops", Content: "The staging database is read-only every Friday afternoon."})
	mustStore(t, s, StoreRequest{Conversation: "monday", Scope: "topic:ops", Content: "Deployments to eu-west-1 must be approved by the platform team."})
	mustStore(t, s, StoreRequest{Conversation: "monday", Scope: "topic:ops", Content: "The office coffee machine is broken until next week."})
	hits := mustSearch(t, s, SearchRequest{Conversation: "tuesday", Query: "When can't I write to the pre-production DB?", Scopes: []string{"ops"}})
	if len(hits) == 0 || hits[0].ID != want.ID {
		t.Errorf("Search from another conversation = %+v, want memory %d first", hits, want.ID)
	}
	if hits := mustSearch(t, s, SearchRequest{Conversation: "tuesday", Query: "When can't I write to the pre-production DB?"}); len(hits) != 0 {
		t.Errorf("Search without naming the topic = %+v, want nothing", hits)
	}
}
