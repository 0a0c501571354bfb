package memory

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// manyChunks is a document the lexical embedder's 128-token window cuts into dozens of chunks.
func manyChunks(tag string) []byte {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "Paragraph %d of %s: the relay forwards message %d to the archive and records the checksum.\n\n", i, tag, i)
	}
	return []byte(b.String())
}

func TestImportProgressInBatches(t *testing.T) {
	s, _ := newLexical(t, Config{})
	var mu sync.Mutex
	var calls [][2]int
	res, err := s.Import(context.Background(), ImportRequest{Conversation: "c", Name: "relay.md", Content: manyChunks("relay"),
		Progress: func(done, total int) {
			mu.Lock()
			calls = append(calls, [2]int{done, total})
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	batch := importBatch * runtime.GOMAXPROCS(0)
	want := (res.Chunks + batch - 1) / batch
	if len(calls) != want || res.Chunks <= batch {
		t.Fatalf("%d chunks in batches of %d: progress called %d times (%v), want %d", res.Chunks, batch, len(calls), calls, want)
	}
	for i, c := range calls {
		if c[1] != res.Chunks || c[0] != min((i+1)*batch, res.Chunks) {
			t.Errorf("progress call %d = %v, want %d of %d", i, c, min((i+1)*batch, res.Chunks), res.Chunks)
		}
	}
}

func TestStartImport(t *testing.T) {
	ctx := context.Background()
	s, _ := newLexical(t, Config{})
	// Hold the first import after its first batch, so the test decides when it goes on.
	gate, reached := make(chan struct{}), make(chan struct{}, 1)
	hold := func(done, total int) {
		if done < total {
			select {
			case reached <- struct{}{}:
			default:
			}
			<-gate
		}
	}
	first, attached, err := s.StartImport(ImportRequest{Conversation: "c", Name: "relay.md", Content: manyChunks("v1"), Progress: hold})
	if err != nil || attached {
		t.Fatalf("StartImport = %v, %v", attached, err)
	}
	<-reached
	if done, total := first.Progress(); done == 0 || done >= total {
		t.Errorf("progress while held = %d of %d", done, total)
	}
	// The same document with the same bytes finds the running import.
	same, attached, err := s.StartImport(ImportRequest{Conversation: "c", Name: "relay.md", Content: manyChunks("v1")})
	if err != nil || !attached || same != first {
		t.Fatalf("StartImport of the same content = %p %v %v, want the running job %p", same, attached, err, first)
	}
	// Other bytes replace it: the first is cancelled and stores nothing.
	second, attached, err := s.StartImport(ImportRequest{Conversation: "c", Name: "relay.md", Content: manyChunks("v2")})
	if err != nil || attached || second == first {
		t.Fatalf("StartImport of new content = %v %v", attached, err)
	}
	close(gate)
	if _, err := first.Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("replaced import = %v, want cancelled", err)
	}
	res, err := second.Result()
	if err != nil || res.Chunks == 0 {
		t.Fatalf("second import = %+v, %v", res, err)
	}
	s.Collect(second)
	hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "relay forwards message 7 to the archive", Limit: 100, Threshold: f32(-1)})
	for _, h := range hits {
		if strings.Contains(h.Content, "of v1") {
			t.Fatalf("the cancelled import stored a chunk: %q", h.Content)
		}
	}
	if docs, _ := s.Documents(ctx, "c"); len(docs) != 1 || docs[0].Chunks != res.Chunks {
		t.Errorf("documents = %+v, want the second import only", docs)
	}
}

// TestCloseCancelsImports: closing the service (the server shutting down) cancels background
// imports, which store nothing.
func TestCloseCancelsImports(t *testing.T) {
	s, st := newLexical(t, Config{})
	gate, reached := make(chan struct{}), make(chan struct{})
	var once sync.Once
	job, _, err := s.StartImport(ImportRequest{Conversation: "c", Name: "relay.md", Content: manyChunks("v1"), Progress: func(done, total int) {
		once.Do(func() { close(reached); <-gate })
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-reached
	s.stop() // what Close does first; then the held import may go on, and must find it cancelled
	close(gate)
	s.Close()
	if _, err := job.Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("import after Close = %v, want cancelled", err)
	}
	other := New(st, Config{Embedder: s.Embedder()})
	if docs, _ := other.Documents(context.Background(), "c"); len(docs) != 0 {
		t.Errorf("documents after a cancelled import = %+v, want none", docs)
	}
}
