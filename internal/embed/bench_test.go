package embed

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// benchSentences are typical memory-sized inputs (8–25 tokens).
var benchSentences = []string{
	"How do I reset my password?",
	"The deployment to eu-west-1 failed because the migration timed out.",
	"Use bbolt with a timeout so that several processes can share the state file.",
	"The quick brown fox jumps over the lazy dog.",
	"Run go test -race on the store package before committing.",
	"Terminal sessions are keyed by conversation id and survive reconnects.",
	"The user prefers tabs over spaces and short commit messages.",
	"Remember that the staging database is read-only on Fridays.",
}

// BenchmarkEmbedSingle measures sentences per second on one core.
func BenchmarkEmbedSingle(b *testing.B) {
	needBuiltin(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	u := NewUSELite()
	ctx := context.Background()
	if _, err := u.Embed(ctx, benchSentences[:1]); err != nil { // load outside the timer
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	cpu0 := processCPUSeconds()
	for b.Loop() {
		if _, err := u.Embed(ctx, benchSentences[n%len(benchSentences):n%len(benchSentences)+1]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "sentences/s")
	if cpu := processCPUSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "sentences/cpu-s")
	}
}

// BenchmarkEmbedParallel measures sentences per second for batches spread over all cores.
func BenchmarkEmbedParallel(b *testing.B) {
	needBuiltin(b)
	u := NewUSELite()
	ctx := context.Background()
	batch := make([]string, 32)
	for i := range batch {
		batch[i] = benchSentences[i%len(benchSentences)]
	}
	if _, err := u.Embed(ctx, batch[:1]); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	cpu0 := processCPUSeconds()
	for b.Loop() {
		if _, err := u.Embed(ctx, batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	if cpu := processCPUSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "sentences/cpu-s")
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "sentences/s")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
}

// BenchmarkEmbedLength shows how the cost grows with input length.
func BenchmarkEmbedLength(b *testing.B) {
	needBuiltin(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	u := NewUSELite()
	ctx := context.Background()
	for _, words := range []int{4, 16, 64, 128} {
		text := ""
		for i := range words {
			text += fmt.Sprintf("word%d ", i%10)
		}
		b.Run(fmt.Sprintf("tokens=%d", len(u.Tokenize(text))), func(b *testing.B) {
			if _, err := u.Embed(ctx, []string{text}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := u.Embed(ctx, []string{text}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoad measures decoding the embedded weights (float16 to float32, transposes).
func BenchmarkLoad(b *testing.B) {
	needBuiltin(b)
	for b.Loop() {
		if _, err := loadUSEModel(useWeightsBlob); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadVocab measures building the tokenizer from the embedded vocabulary.
func BenchmarkLoadVocab(b *testing.B) {
	needBuiltin(b)
	for b.Loop() {
		if _, err := newSentencePiece(useVocabJSON); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLexical measures the lexical embedder on one core.
func BenchmarkLexical(b *testing.B) {
	l := NewLexical(DefaultLexicalDim)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if _, err := l.Embed(ctx, benchSentences[n%len(benchSentences):n%len(benchSentences)+1]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkTokenize measures the SentencePiece tokenizer on a 10 kB document, as CountTokens
// runs it when the memory layer chunks documents.
func BenchmarkTokenize(b *testing.B) {
	needBuiltin(b)
	u := NewUSELite()
	doc := strings.Repeat("The deployment to eu-west-1 failed because the migration timed out. ", 150)
	u.Tokenize("warm up")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		u.Tokenize(doc)
	}
}
