package embed

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// USELiteID is the ID of the built-in embedder. It names the weights' source package and version,
// so vectors from another build of the model are never mixed with these.
const USELiteID = "use-lite-en@0.2.0"

// ErrNoBuiltin reports use of the built-in model in a binary built with -tags nouselite, which
// leaves the 14 MB of weights out.
var ErrNoBuiltin = errors.New("embed: built-in USE-Lite model not compiled in (built with -tags nouselite)")

// BuiltinAvailable reports whether the USE-Lite weights are compiled into this binary.
func BuiltinAvailable() bool { return len(useWeightsBlob) > 0 }

// USELite is the built-in, offline embedder: Google's Universal Sentence Encoder Lite (2018),
// English, 512 dimensions, a 128-token window. Its output matches the TF.js implementation
// (cosine ≥ 0.99999, identical token ids).
//
// Nothing is decoded until the first call that needs it: the tokenizer on the first
// CountTokens, Tokenize or Embed, the weights (about 28 MB of float32) on the first Embed. A
// USELite is safe for concurrent use; Embed spreads a batch over GOMAXPROCS goroutines. Each
// USELite holds its own copy of the weights once loaded, so a process should create one and
// share it.
//
// The empty string (after NFKC normalisation) has no tokens; it gets the model's own output for
// an empty sequence, normalise(tanh(b_pool)), which is deterministic and non-zero. Text made of
// characters outside the vocabulary (CJK, emoji) maps to the unknown token and is embedded like
// any other sequence.
type USELite struct {
	tokOnce sync.Once
	tok     *sentencePiece
	tokErr  error

	modelOnce sync.Once
	model     *useModel
	modelErr  error

	work sync.Pool // *useWork
}

// NewUSELite returns the built-in embedder. It is cheap: the model loads on first use.
func NewUSELite() *USELite {
	return &USELite{}
}

// ID implements Embedder.
func (u *USELite) ID() string { return USELiteID }

// Dim implements Embedder.
func (u *USELite) Dim() int { return useModelDim }

// MaxTokens implements Embedder: tokens past the 128th are ignored by the model.
func (u *USELite) MaxTokens() int { return useMaxTokens }

// CountTokens implements Embedder with the model's own tokenizer, without truncation. In a
// build without the model it estimates one token per four characters.
func (u *USELite) CountTokens(text string) int {
	if !BuiltinAvailable() {
		return (utf8.RuneCountInString(text) + 3) / 4
	}
	return len(u.Tokenize(text))
}

// Tokenize returns the SentencePiece ids of text, not truncated to MaxTokens. It is exported for
// the golden tests and for callers that want to chunk on exact token boundaries.
func (u *USELite) Tokenize(text string) []int {
	tok, err := u.tokenizer()
	if err != nil {
		return nil // cannot happen with the embedded vocabulary; tested
	}
	return tok.encode(text)
}

// embedTokens tokenizes text for Embed. Only the first useMaxTokens ids reach the model, so a
// very long text is cut first: tokens are at most maxRune runes long, and the generous margin
// past the window keeps the cut far from the tokens that are used.
func embedTokens(tok *sentencePiece, text string) []int {
	limit := (useMaxTokens + 64) * max(tok.maxRune, 1)
	if len(text) > limit { // bytes >= runes, so this only costs a count when it may matter
		n := 0
		for i := range text {
			if n == limit {
				text = text[:i]
				break
			}
			n++
		}
	}
	return tok.encode(text)
}

func (u *USELite) tokenizer() (*sentencePiece, error) {
	if !BuiltinAvailable() {
		return nil, ErrNoBuiltin
	}
	u.tokOnce.Do(func() {
		u.tok, u.tokErr = newSentencePiece(useVocabJSON)
	})
	return u.tok, u.tokErr
}

func (u *USELite) load() (*useModel, error) {
	u.modelOnce.Do(func() {
		u.model, u.modelErr = loadUSEModel(useWeightsBlob)
	})
	return u.model, u.modelErr
}

// Embed implements Embedder. Texts are processed in parallel, one goroutine per available CPU;
// cancellation is checked between texts.
func (u *USELite) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	tok, err := u.tokenizer()
	if err != nil {
		return nil, fmt.Errorf("load USE-Lite vocabulary: %w", err)
	}
	m, err := u.load()
	if err != nil {
		return nil, fmt.Errorf("load USE-Lite weights: %w", err)
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*useModelDim)
	for i := range out {
		out[i] = backing[i*useModelDim : (i+1)*useModelDim : (i+1)*useModelDim]
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if workers <= 1 {
		w := u.getWork()
		defer u.work.Put(w)
		for i, t := range texts {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m.forward(embedTokens(tok, t), w, out[i])
		}
		return out, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := u.getWork()
			defer u.work.Put(w)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(texts) || ctx.Err() != nil {
					return
				}
				m.forward(embedTokens(tok, texts[i]), w, out[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (u *USELite) getWork() *useWork {
	if w, ok := u.work.Get().(*useWork); ok {
		return w
	}
	return newUSEWork()
}
