package memory

import (
	"strings"
	"unicode"
)

// Hybrid ranking. Sentence encoders blur rare exact strings: "ERR_CONN_RESET", "eu-west-1" or
// "parseSeqKey" become a few generic sub-word pieces, so a query that is mostly such identifiers
// can rank a loosely related memory above the one that contains them verbatim. For those queries
// (keywordHeavy) Search fetches 4×limit candidates by cosine and adds hybridWeight × the fraction
// of query terms found in each candidate's text (identifier-like terms count double); candidates
// whose lexical score reaches hybridKeep are kept even below the similarity threshold.
//
// Measured by TestRetrievalQuality (testdata/retrieval.json, 36 facts): USE-Lite keyword queries
// go from recall@1 0.889 / MRR 0.938 without hybrid ranking to 1.000 / 1.000 with it; paraphrase
// figures do not change (0.500 / 0.644), since paraphrases rarely trigger it. Lexical: keywords
// 0.972 / 0.981 → 1.000 / 1.000, paraphrases unchanged (0.139 / 0.205). Counting 2–3 letter
// all-caps words ("UI", "RAM") as identifiers triggered it on paraphrases and cost the lexical
// embedder 0.028 recall@1 there, hence the four-letter minimum.
const (
	hybridWeight = 0.3
	hybridKeep   = 0.5
)

// keywordHeavy reports whether query contains an identifier-like term: a digit, an inner
// underscore, dot, slash, hyphen or colon, a camelCase hump, or an all-caps word of four letters
// or more (ENOENT, HTTP).
func keywordHeavy(query string) bool {
	for _, f := range strings.Fields(query) {
		if identifierLike(strings.Trim(f, `"'(),;?!`)) {
			return true
		}
	}
	return false
}

func identifierLike(w string) bool {
	if len(w) < 2 {
		return false
	}
	upper, lower := 0, 0
	prevLower := false
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			return true
		case strings.ContainsRune("_./:-", r) && i > 0 && i < len(w)-1:
			return true
		case unicode.IsUpper(r):
			if prevLower {
				return true // camelCase
			}
			upper++
		case unicode.IsLower(r):
			lower++
		}
		prevLower = unicode.IsLower(r)
	}
	return lower == 0 && upper >= 4
}

// queryTerm is one term of a keyword query with its weight.
type queryTerm struct {
	text   string // lower-cased
	weight float64
	whole  bool // an identifier matched as a substring, not as a word
}

// queryTerms splits query into lower-cased words (weight 1, function words skipped) and keeps
// identifier-like fields whole as well (weight 2).
func queryTerms(query string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	for _, f := range strings.Fields(query) {
		f = strings.Trim(f, `"'(),;?!`)
		if identifierLike(f) {
			l := strings.ToLower(f)
			if !seen["="+l] {
				seen["="+l] = true
				out = append(out, queryTerm{text: l, weight: 2, whole: true})
			}
			continue
		}
		for _, w := range words(f) {
			if len(w) < 2 || stopword(w) || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, queryTerm{text: w, weight: 1})
		}
	}
	return out
}

// lexicalScores returns, per record, the weighted fraction of the query's terms it contains.
func lexicalScores(query string, recs []*record) []float64 {
	terms := queryTerms(query)
	out := make([]float64, len(recs))
	var total float64
	for _, t := range terms {
		total += t.weight
	}
	if total == 0 {
		return out
	}
	for i, r := range recs {
		if r == nil {
			continue
		}
		lower := strings.ToLower(r.Content)
		have := map[string]bool{}
		for _, w := range words(lower) {
			have[w] = true
		}
		var got float64
		for _, t := range terms {
			if (t.whole && strings.Contains(lower, t.text)) || (!t.whole && have[t.text]) {
				got += t.weight
			}
		}
		out[i] = got / total
	}
	return out
}

// words splits lower-cased text into runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func stopword(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from",
		"is", "are", "was", "were", "be", "it", "this", "that", "what", "which", "how", "do",
		"does", "did", "i", "we", "you", "my", "our", "me", "about", "when", "where", "why":
		return true
	}
	return false
}
