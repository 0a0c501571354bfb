// Package embed turns text into unit-length vectors for semantic memory.
//
// Three families of embedders share one interface:
//
//   - USELite, the default: Google's Universal Sentence Encoder Lite ported to Go (no cgo), with
//     its weights compiled into the binary (go:embed) and loaded lazily on the first Embed, so a
//     server that never touches memory pays nothing at start and nothing is fetched at run time.
//   - Lexical: hashed word and character n-grams, no data files, for minimal builds and as a
//     baseline.
//   - Remote: Ollama and OpenAI-compatible embedding endpoints, for users who want a modern model.
//
// Every embedder has a stable ID and a dimension that the memory layer stores beside each vector,
// so a change of embedder re-embeds instead of mixing vector spaces. Every vector returned is
// L2-normalised and never zero: input that yields nothing to embed (the empty string, text made
// only of separators for the lexical embedder, a zero vector from a remote service) gets a
// deterministic non-zero unit vector instead (see each embedder's documentation).
//
// Embedders also expose their token window (MaxTokens) and a token counter (CountTokens) so the
// memory layer can chunk documents that would otherwise be truncated.
//
// Build tags: -tags nouselite leaves the 14 MB of weights out (New("") then means the lexical
// embedder); -tags purego replaces the AVX2/FMA matrix kernels used on amd64 with the portable Go
// loops, which are about six times slower and give the same vectors to within float rounding.
//
// A forward pass of a document-sized chunk (about 100 tokens) spends its time in the dense
// layers (a cache-blocked AVX2 GEMM, near the FMA units' peak), attention (laid out as rows of
// dot products for the same kernels) and little else: the last feed-forward layer runs once on
// the mean of the tokens (it is affine, and mean pooling follows it), the position signal is a
// table, and softmax uses a float32 exp. kernels_test.go keeps the previous kernels as a
// reference: BenchmarkEmbedChunks measures both in one run.
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Embedder maps texts to unit-length vectors of a fixed dimension.
type Embedder interface {
	// ID names the model and its configuration; vectors with different IDs are not comparable.
	ID() string
	// Dim is the vector length (0 for a remote embedder whose dimension is not known yet).
	Dim() int
	// MaxTokens is the input window; tokens past it are ignored, so callers chunk longer text.
	MaxTokens() int
	// CountTokens counts (or, for remote embedders, estimates) the tokens of text.
	CountTokens(text string) int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrBadSpec reports an embedder specification New cannot parse.
var ErrBadSpec = errors.New("embed: bad embedder spec")

// DefaultCacheSize is the number of vectors New's cache keeps.
const DefaultCacheSize = 4096

// New builds an embedder from a one-line specification, wrapped in a vector cache of
// DefaultCacheSize entries. Syntax:
//
//	""  or "builtin"            the built-in USE-Lite model (512-d, offline); in a build with
//	                            -tags nouselite, "" means "lexical" and "builtin" fails with
//	                            ErrNoBuiltin
//	"lexical" or "lexical:DIM"  hashed n-grams, DIM defaults to 512
//	"ollama:MODEL[@URL]"        Ollama, URL defaults to http://localhost:11434
//	"openai:MODEL[@URL]"        OpenAI-compatible /v1/embeddings, URL defaults to
//	                            https://api.openai.com; the key is read from $OPENAI_API_KEY
//
// Remote specs accept comma-separated options after the URL: "key_env=NAME" (the environment
// variable holding the API key), "dim=N" (the known dimension), "max_tokens=N" (the model's
// window, for chunking), "timeout=30s", "batch=N". Example:
// "openai:text-embedding-3-small@http://127.0.0.1:8080,key_env=LOCAL_KEY,dim=1536".
func New(spec string) (Embedder, error) {
	e, err := newUncached(strings.TrimSpace(spec))
	if err != nil {
		return nil, err
	}
	return NewCached(e, DefaultCacheSize), nil
}

func newUncached(spec string) (Embedder, error) {
	kind, rest, hasRest := strings.Cut(spec, ":")
	switch kind {
	case "", "builtin", "use-lite":
		if hasRest {
			return nil, fmt.Errorf("%w: %q takes no argument", ErrBadSpec, kind)
		}
		if !BuiltinAvailable() {
			if kind == "" {
				return NewLexical(DefaultLexicalDim), nil
			}
			return nil, ErrNoBuiltin
		}
		return NewUSELite(), nil
	case "lexical":
		dim := DefaultLexicalDim
		if hasRest {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 16 || n > 1<<16 {
				return nil, fmt.Errorf("%w: lexical dimension %q must be an integer in [16, 65536]", ErrBadSpec, rest)
			}
			dim = n
		}
		return NewLexical(dim), nil
	case "ollama", "openai":
		if rest == "" {
			return nil, fmt.Errorf("%w: %q needs a model name, as in %s:MODEL[@URL]", ErrBadSpec, kind, kind)
		}
		cfg, err := parseRemote(rest)
		if err != nil {
			return nil, err
		}
		if kind == "ollama" {
			return NewOllama(cfg), nil
		}
		if cfg.APIKeyEnv == "" {
			cfg.APIKeyEnv = "OPENAI_API_KEY"
		}
		return NewOpenAI(cfg), nil
	default:
		return nil, fmt.Errorf("%w: unknown kind %q (want builtin, lexical, ollama or openai)", ErrBadSpec, kind)
	}
}

func parseRemote(rest string) (RemoteConfig, error) {
	var cfg RemoteConfig
	main, opts, _ := strings.Cut(rest, ",")
	model, url, _ := strings.Cut(main, "@")
	if model == "" {
		return cfg, fmt.Errorf("%w: empty model name in %q", ErrBadSpec, rest)
	}
	cfg.Model, cfg.BaseURL = model, url
	if opts == "" {
		return cfg, nil
	}
	for _, opt := range strings.Split(opts, ",") {
		k, v, ok := strings.Cut(opt, "=")
		if !ok || v == "" {
			return cfg, fmt.Errorf("%w: option %q is not key=value", ErrBadSpec, opt)
		}
		var err error
		switch k {
		case "key_env":
			cfg.APIKeyEnv = v
		case "dim":
			cfg.Dim, err = positiveOption(k, v)
		case "max_tokens":
			cfg.MaxTokens, err = positiveOption(k, v)
		case "batch":
			cfg.BatchSize, err = positiveOption(k, v)
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return cfg, fmt.Errorf("%w: timeout %q must be a positive duration", ErrBadSpec, v)
			}
			cfg.Timeout = d
		default:
			return cfg, fmt.Errorf("%w: unknown option %q (want key_env, dim, max_tokens, batch or timeout)", ErrBadSpec, k)
		}
		if err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// Cosine returns the cosine similarity of a and b (0 if either is zero or their lengths differ).
// For the unit vectors embedders return it equals the dot product.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// normalize scales v to unit length in place. A zero (or non-finite) vector is replaced by
// fallbackVector so callers never see one.
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		copy(v, fallbackVector(len(v)))
		return
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// fallbackVector is the deterministic unit vector given to input that has nothing to embed:
// every component equals 1/√dim. It is the same for all such inputs, so they match each other
// and sit at a neutral, low similarity to ordinary text.
func fallbackVector(dim int) []float32 {
	v := make([]float32, dim)
	c := float32(1 / math.Sqrt(float64(dim)))
	for i := range v {
		v[i] = c
	}
	return v
}

// Func adapts e to the one-text function shape of chromem-go's EmbeddingFunc, so an index can
// be given this package's embedders directly (chromem-go's default, used when none is given, is
// a network call to OpenAI).
func Func(e Embedder) func(ctx context.Context, text string) ([]float32, error) {
	return func(ctx context.Context, text string) ([]float32, error) {
		v, err := e.Embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("embed: %s returned %d vectors for one text", e.ID(), len(v))
		}
		return v[0], nil
	}
}

// positiveOption reads the value of option k of a spec as a positive integer.
func positiveOption(k, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %s %q must be a positive integer", ErrBadSpec, k, v)
	}
	return n, nil
}
