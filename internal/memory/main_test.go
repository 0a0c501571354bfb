package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"toolhost/internal/embed"
	"toolhost/store"
	"toolhost/store/storetest"
)

// Environment of the child process spawned by TestSecondProcess.
const (
	childDirEnv   = "TOOLHOST_MEMORY_TEST_CHILD_DIR"
	childCountEnv = "TOOLHOST_MEMORY_TEST_CHILD_COUNT"
	// childContentEnv makes the child store this one memory in topic:infra with the built-in
	// embedder and print the result as JSON (TestSupersedeAcrossProcesses).
	childContentEnv = "TOOLHOST_MEMORY_TEST_CHILD_CONTENT"
	// rssDirEnv makes the test binary a server that opens the state directory, reports its RSS,
	// runs one search (building the index) and reports its RSS again (BenchmarkRSS).
	rssDirEnv   = "TOOLHOST_MEMORY_TEST_RSS_DIR"
	rssIndexEnv = "TOOLHOST_MEMORY_TEST_RSS_INDEX"
	// workerEnv makes the child one of the concurrent writers of TestConcurrentWriters:
	// "DIR,WORKER,COUNT".
	workerEnv = "TOOLHOST_MEMORY_TEST_WORKER"
	// reembedEnv makes the child re-embed DIR with a slow embedder of another space, printing
	// its progress (TestReembedKilled kills it part way).
	reembedEnv = "TOOLHOST_MEMORY_TEST_REEMBED"
)

// TestMain doubles as a second toolhost process: with childDirEnv set, the test binary stores
// memories into that state directory and exits, as another editor window's server would.
func TestMain(m *testing.M) {
	if dir := os.Getenv(rssDirEnv); dir != "" {
		if err := runRSSChild(dir, IndexKind(os.Getenv(rssIndexEnv))); err != nil {
			fmt.Fprintln(os.Stderr, "rss child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv(workerEnv); spec != "" {
		if err := runWorker(spec); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(reembedEnv); dir != "" {
		if err := runReembedChild(dir); err != nil {
			fmt.Fprintln(os.Stderr, "reembed child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(childDirEnv); dir != "" {
		if err := runChild(dir); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(dir string) error {
	ctx := context.Background()
	if content := os.Getenv(childContentEnv); content != "" {
		st, err := store.Open(ctx, dir, store.Options{NoSync: true})
		if err != nil {
			return err
		}
		res, err := New(st, Config{Embedder: embed.NewUSELite()}).Store(ctx, StoreRequest{Conversation: "child", Scope: "topic:infra", Content: content})
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	n, err := strconv.Atoi(os.Getenv(childCountEnv))
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, dir, store.Options{NoSync: true})
	if err != nil {
		return err
	}
	svc := New(st, Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim)})
	for i := range n {
		_, err := svc.Store(ctx, StoreRequest{
			Conversation: "child",
			Scope:        "topic:shared",
			Content:      fmt.Sprintf("child process fact number %d about zebra%d migrations", i, i),
			Tags:         []string{"child"},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func runRSSChild(dir string, kind IndexKind) error {
	ctx := context.Background()
	st, err := store.Open(ctx, dir, store.Options{NoSync: true})
	if err != nil {
		return err
	}
	svc := New(st, Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim), Index: kind})
	before := rssBytes()
	if _, err := svc.Search(ctx, SearchRequest{Conversation: "c", Query: "fig market"}); err != nil {
		return err
	}
	runtime.GC()
	fmt.Printf("rss_before=%.0f rss_after=%.0f\n", before, rssBytes())
	return nil
}

func newTestStore(t testing.TB) *store.Store {
	t.Helper()
	return storetest.Open(t)
}

// newLexical returns a Service with the fast lexical embedder on a fresh store.
func newLexical(t testing.TB, cfg Config) (*Service, *store.Store) {
	t.Helper()
	st := newTestStore(t)
	if cfg.Embedder == nil {
		cfg.Embedder = embed.NewLexical(embed.DefaultLexicalDim)
	}
	return New(st, cfg), st
}

func mustStore(t testing.TB, s *Service, req StoreRequest) StoreResult {
	t.Helper()
	res, err := s.Store(context.Background(), req)
	if err != nil {
		t.Fatalf("Store(%q) error: %v", req.Content, err)
	}
	return res
}

func mustSearch(t testing.TB, s *Service, req SearchRequest) []Hit {
	t.Helper()
	hits, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%q) error: %v", req.Query, err)
	}
	return hits
}

func hitIDs(hits []Hit) []uint64 {
	ids := make([]uint64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func f32(x float32) *float32 { return &x }
