//go:build nouselite

package embed

// A minimal build without the built-in model: New("") falls back to the lexical embedder and
// the built-in embedder reports ErrNoBuiltin.
var (
	useWeightsBlob []byte
	useVocabJSON   []byte
)
