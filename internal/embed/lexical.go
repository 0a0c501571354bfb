package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// DefaultLexicalDim is the dimension of the lexical embedder when none is given.
const DefaultLexicalDim = 512

// lexicalMaxTokens is the chunking window the lexical embedder advertises. It has no hard limit,
// but one vector for a whole long document dilutes every term; chunks of this many words keep
// retrieval sharp.
const lexicalMaxTokens = 256

// Lexical embeds text as signed feature hashes of words, word bigrams and character n-grams:
// no model, no data files, no network, a few microseconds per sentence. It finds shared words
// and spelling variants (plural, inflection, identifiers split differently) but not synonyms
// or paraphrases; use it for minimal builds or as a baseline.
//
// Text is NFKC-normalised and lower-cased, then split into words at every character that is
// not a letter or a digit. Features and their weights: each word, stripped of one common
// inflection suffix (1, or 0.25 for a short list of English function words), each pair of
// adjacent stripped words (0.5), and each character 3- and
// 4-gram of the word wrapped in "<" and ">" (0.3 in total per word, shared among its n-grams).
// A feature occurring c times weighs 1+ln(c) times its base weight.
//
// Text without any letter or digit (including the empty string) gets fallbackVector: every
// component 1/√dim.
type Lexical struct {
	dim int
}

// NewLexical returns a lexical embedder of dimension dim (values below 16 become 16).
func NewLexical(dim int) *Lexical {
	return &Lexical{dim: max(dim, 16)}
}

// ID implements Embedder; it encodes the feature scheme version and the dimension.
func (l *Lexical) ID() string { return fmt.Sprintf("lexical-v1/%d", l.dim) }

// Dim implements Embedder.
func (l *Lexical) Dim() int { return l.dim }

// MaxTokens implements Embedder (see lexicalMaxTokens).
func (l *Lexical) MaxTokens() int { return lexicalMaxTokens }

// CountTokens implements Embedder: the number of words.
func (l *Lexical) CountTokens(text string) int { return len(lexicalWords(text)) }

// Embed implements Embedder.
func (l *Lexical) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = l.embedOne(t)
	}
	return out, nil
}

func (l *Lexical) embedOne(text string) []float32 {
	words := lexicalWords(text)
	v := make([]float32, l.dim)
	if len(words) == 0 {
		copy(v, fallbackVector(l.dim))
		return v
	}
	feats := map[string]float64{}
	counts := map[string]int{}
	add := func(f string, w float64) {
		feats[f] += w
		counts[f]++
	}
	for i, w := range words {
		weight := 1.0
		if isStopword(w) {
			weight = 0.25
		}
		stem := lightStem(w)
		add("w:"+stem, weight)
		if i > 0 {
			add("b:"+lightStem(words[i-1])+" "+stem, 0.5)
		}
		grams := charGrams(w)
		for _, g := range grams {
			add("c:"+g, 0.3*weight/float64(len(grams)))
		}
	}
	for f, w := range feats {
		h := fnv.New64a()
		h.Write([]byte(f))
		sum := h.Sum64()
		idx := int(sum % uint64(l.dim))
		c := float64(counts[f])
		x := w / c * (1 + math.Log(c)) // mean base weight, sublinear in the count
		if sum>>63 == 1 {
			x = -x
		}
		v[idx] += float32(x)
	}
	normalize(v)
	return v
}

// lexicalWords splits normalised, lower-cased text into runs of letters and digits.
func lexicalWords(text string) []string {
	text = strings.ToLower(norm.NFKC.String(text))
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// lightStem strips one common English inflection so that "deploying", "deployed" and "deploys"
// share a feature with "deploy". It is deliberately crude: the character n-grams cover the rest.
func lightStem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) >= len(suf)+3 && strings.HasSuffix(w, suf) {
			if suf == "s" && strings.HasSuffix(w, "ss") {
				return w
			}
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// charGrams returns the character 3- and 4-grams of "<word>".
func charGrams(word string) []string {
	r := []rune("<" + word + ">")
	var out []string
	for n := 3; n <= 4; n++ {
		for i := 0; i+n <= len(r); i++ {
			out = append(out, string(r[i:i+n]))
		}
	}
	return out
}

// isStopword reports English function words, down-weighted so that they do not dominate short
// texts.
func isStopword(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for",
		"with", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this",
		"that", "these", "those", "i", "you", "he", "she", "we", "they", "my", "your", "our", "their",
		"me", "him", "her", "us", "them", "do", "does", "did", "how", "what", "which", "who", "whom",
		"when", "where", "why", "not", "no", "so", "than", "then", "there", "here", "can", "could",
		"should", "would", "will", "shall", "may", "might", "must", "have", "has", "had", "into",
		"about":
		return true
	}
	return false
}
