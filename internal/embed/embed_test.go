package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// TestUSELiteSanityPairs reproduces the similarities quoted in USE-LITE.md.
func TestUSELiteSanityPairs(t *testing.T) {
	needBuiltin(t)
	const anchor = "How do I reset my password?"
	tests := []struct {
		name, other string
		want        float32
	}{
		{"paraphrase", "Steps to recover account credentials", 0.45},
		{"unrelated", "The weather in Paris is sunny today", 0.03},
	}
	u := NewUSELite()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := u.Embed(context.Background(), []string{anchor, tt.other})
			if err != nil {
				t.Fatal(err)
			}
			if got := Cosine(v[0], v[1]); math.Abs(float64(got-tt.want)) > 0.01 {
				t.Errorf("Cosine(%q, %q) = %.4f, want %.2f ± 0.01", anchor, tt.other, got, tt.want)
			}
		})
	}
}

// TestUnitAndNonZero checks every local embedder on inputs with little or nothing to embed.
func TestUnitAndNonZero(t *testing.T) {
	inputs := []string{"", " ", "\t\n", "...", "日本語", "🎉", "x", "\xff\xfe invalid UTF-8", "nul\x00byte"}
	if !raceEnabled {
		inputs = append(inputs, strings.Repeat("long text ", 200))
	}
	for _, e := range []Embedder{NewUSELite(), NewLexical(64), NewLexical(512)} {
		t.Run(e.ID(), func(t *testing.T) {
			if e.ID() == USELiteID {
				needBuiltin(t)
			}
			got, err := e.Embed(context.Background(), inputs)
			if err != nil {
				t.Fatal(err)
			}
			again, err := e.Embed(context.Background(), inputs)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if len(v) != e.Dim() {
					t.Errorf("len(Embed(%q)) = %d, want %d", inputs[i], len(v), e.Dim())
				}
				if n := norm2(v); math.Abs(n-1) > 1e-4 {
					t.Errorf("|Embed(%q)| = %f, want 1", inputs[i], n)
				}
				if c := Cosine(v, again[i]); c < 0.999999 {
					t.Errorf("Embed(%q) not deterministic: cosine between runs %f", inputs[i], c)
				}
			}
		})
	}
}

func TestLexicalFallback(t *testing.T) {
	l := NewLexical(128)
	got, err := l.Embed(context.Background(), []string{"", "--- ...", "word"})
	if err != nil {
		t.Fatal(err)
	}
	want := fallbackVector(128)
	for i := range 2 {
		if c := Cosine(got[i], want); c < 0.999999 {
			t.Errorf("Embed(%d) is not the fallback vector: cosine %f", i, c)
		}
	}
	if c := Cosine(got[2], want); c > 0.5 {
		t.Errorf("Embed(\"word\") is too close to the fallback vector: cosine %f", c)
	}
}

func TestLexicalSimilarity(t *testing.T) {
	l := NewLexical(DefaultLexicalDim)
	v, err := l.Embed(context.Background(), []string{
		"deploy the migration to production",
		"Deploying migrations to production!",
		"my cat likes fish",
	})
	if err != nil {
		t.Fatal(err)
	}
	near, far := Cosine(v[0], v[1]), Cosine(v[0], v[2])
	if near < 0.4 || far > 0.2 || near <= far {
		t.Errorf("lexical similarities: inflected variant %.3f, unrelated %.3f; want variant >= 0.4 > 0.2 >= unrelated", near, far)
	}
}

// TestUSELiteLazy checks that construction and token counting do not decode the weights.
func TestUSELiteLazy(t *testing.T) {
	needBuiltin(t)
	u := NewUSELite()
	if u.model != nil || u.tok != nil {
		t.Fatal("NewUSELite loaded something")
	}
	if got := u.CountTokens("hello world"); got != 3 {
		t.Errorf("CountTokens(%q) = %d, want 3", "hello world", got)
	}
	if u.model != nil {
		t.Error("CountTokens loaded the weights")
	}
	if _, err := u.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if u.model == nil {
		t.Error("Embed did not load the weights")
	}
}

func TestCountTokens(t *testing.T) {
	tests := []struct {
		name string
		e    Embedder
		text string
		want int
	}{
		{"use-lite", NewUSELite(), "How do I reset my password?", 8},
		{"use-lite not clipped", NewUSELite(), strings.Repeat("x", 300), 300},
		{"use-lite empty", NewUSELite(), "", 0},
		{"lexical", NewLexical(64), "Fix the flaky test in store/bolt_test.go", 9},
		{"remote estimate", NewOllama(RemoteConfig{Model: "m"}), "abcdefgh", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.e.ID() == USELiteID {
				needBuiltin(t)
			}
			if got := tt.e.CountTokens(tt.text); got != tt.want {
				t.Errorf("CountTokens(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

func TestIDsAndDims(t *testing.T) {
	tests := []struct {
		e              Embedder
		id             string
		dim, maxTokens int
	}{
		{NewUSELite(), "use-lite-en@0.2.0", 512, 128},
		{NewLexical(512), "lexical-v1/512", 512, 256},
		{NewLexical(3), "lexical-v1/16", 16, 256},
		{NewOllama(RemoteConfig{Model: "nomic-embed-text"}), "ollama:nomic-embed-text", 0, 512},
		{NewOpenAI(RemoteConfig{Model: "text-embedding-3-small", Dim: 1536}), "openai:text-embedding-3-small@api.openai.com", 1536, 512},
		{NewOpenAI(RemoteConfig{Model: "m", BaseURL: "http://127.0.0.1:8080/v1/", MaxTokens: 8191}), "openai:m@127.0.0.1:8080", 0, 8191},
		{NewCached(NewLexical(64), 4), "lexical-v1/64", 64, 256},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if got := tt.e.ID(); got != tt.id {
				t.Errorf("ID() = %q, want %q", got, tt.id)
			}
			if got := tt.e.Dim(); got != tt.dim {
				t.Errorf("Dim() = %d, want %d", got, tt.dim)
			}
			if got := tt.e.MaxTokens(); got != tt.maxTokens {
				t.Errorf("MaxTokens() = %d, want %d", got, tt.maxTokens)
			}
		})
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"same", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scaled", []float32{1, 0}, []float32{5, 0}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{1, 1}, []float32{-1, -1}, -1},
		{"zero", []float32{0, 0}, []float32{1, 0}, 0},
		{"length mismatch", []float32{1}, []float32{1, 0}, 0},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); math.Abs(float64(got-tt.want)) > 1e-6 {
				t.Errorf("Cosine(%v, %v) = %f, want %f", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		spec    string
		id      string
		dim     int
		wantErr bool
		check   func(*testing.T, *Remote)
	}{
		{spec: "", id: "use-lite-en@0.2.0", dim: 512},
		{spec: "builtin", id: "use-lite-en@0.2.0", dim: 512},
		{spec: " builtin ", id: "use-lite-en@0.2.0", dim: 512},
		{spec: "lexical", id: "lexical-v1/512", dim: 512},
		{spec: "lexical:256", id: "lexical-v1/256", dim: 256},
		{spec: "ollama:nomic-embed-text", id: "ollama:nomic-embed-text", check: func(t *testing.T, r *Remote) {
			if r.base != DefaultOllamaURL {
				t.Errorf("base = %q, want %q", r.base, DefaultOllamaURL)
			}
		}},
		{spec: "ollama:nomic-embed-text:latest@http://gpu-box:11434", id: "ollama:nomic-embed-text:latest", check: func(t *testing.T, r *Remote) {
			if r.base != "http://gpu-box:11434" {
				t.Errorf("base = %q, want http://gpu-box:11434", r.base)
			}
		}},
		{spec: "openai:text-embedding-3-small", id: "openai:text-embedding-3-small@api.openai.com", check: func(t *testing.T, r *Remote) {
			if r.cfg.APIKeyEnv != "OPENAI_API_KEY" {
				t.Errorf("APIKeyEnv = %q, want OPENAI_API_KEY", r.cfg.APIKeyEnv)
			}
		}},
		{spec: "openai:e5@http://127.0.0.1:8080/v1,key_env=LOCAL_KEY,dim=1024,batch=8,timeout=5s", id: "openai:e5@127.0.0.1:8080", dim: 1024, check: func(t *testing.T, r *Remote) {
			if r.cfg.APIKeyEnv != "LOCAL_KEY" || r.cfg.BatchSize != 8 || r.cfg.Timeout != 5*time.Second {
				t.Errorf("config = %+v, want key_env LOCAL_KEY, batch 8, timeout 5s", r.cfg)
			}
		}},
		{spec: "ollama:bge-m3@http://h:1,max_tokens=8192", id: "ollama:bge-m3", check: func(t *testing.T, r *Remote) {
			if r.MaxTokens() != 8192 {
				t.Errorf("MaxTokens() = %d, want 8192", r.MaxTokens())
			}
		}},
		{spec: "ollama:m,max_tokens=0", wantErr: true},
		{spec: "builtin:x", wantErr: true},
		{spec: "lexical:abc", wantErr: true},
		{spec: "lexical:4", wantErr: true},
		{spec: "ollama:", wantErr: true},
		{spec: "ollama:@http://x", wantErr: true},
		{spec: "openai:m@http://x,dim=-1", wantErr: true},
		{spec: "openai:m@http://x,colour=blue", wantErr: true},
		{spec: "openai:m@http://x,key_env", wantErr: true},
		{spec: "word2vec", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			if tt.id == USELiteID {
				needBuiltin(t)
			}
			e, err := New(tt.spec)
			if tt.wantErr {
				if !errors.Is(err, ErrBadSpec) {
					t.Fatalf("New(%q) error = %v, want ErrBadSpec", tt.spec, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.spec, err)
			}
			if got := e.ID(); got != tt.id {
				t.Errorf("New(%q).ID() = %q, want %q", tt.spec, got, tt.id)
			}
			if got := e.Dim(); got != tt.dim {
				t.Errorf("New(%q).Dim() = %d, want %d", tt.spec, got, tt.dim)
			}
			c, ok := e.(*Cached)
			if !ok {
				t.Fatalf("New(%q) is %T, want *Cached", tt.spec, e)
			}
			if tt.check != nil {
				r, ok := c.Unwrap().(*Remote)
				if !ok {
					t.Fatalf("New(%q) wraps %T, want *Remote", tt.spec, c.Unwrap())
				}
				tt.check(t, r)
			}
		})
	}
}

func TestEmbedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, e := range []Embedder{NewUSELite(), NewLexical(64)} {
		if _, err := e.Embed(ctx, []string{"a", "b"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Embed(cancelled) error = %v, want context.Canceled", e.ID(), err)
		}
	}
}

func TestMinimalBuild(t *testing.T) {
	if BuiltinAvailable() {
		t.Skip("only meaningful with -tags nouselite")
	}
	e, err := New("")
	if err != nil {
		t.Fatalf("New(\"\"): %v", err)
	}
	if got, want := e.ID(), "lexical-v1/512"; got != want {
		t.Errorf("New(\"\").ID() = %q, want %q", got, want)
	}
	if _, err := New("builtin"); !errors.Is(err, ErrNoBuiltin) {
		t.Errorf("New(\"builtin\") error = %v, want ErrNoBuiltin", err)
	}
	if _, err := NewUSELite().Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrNoBuiltin) {
		t.Errorf("USELite.Embed error = %v, want ErrNoBuiltin", err)
	}
}

func TestFunc(t *testing.T) {
	l := NewLexical(64)
	f := Func(l)
	got, err := f(context.Background(), "hello world")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := l.Embed(context.Background(), []string{"hello world"})
	if c := Cosine(got, want[0]); c < 0.999999 {
		t.Errorf("Func(lexical)(%q) differs from Embed: cosine %f", "hello world", c)
	}
}
