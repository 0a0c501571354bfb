package memory

import (
	"math"
	"slices"
	"strings"

	"toolhost/internal/lexicon"
)

// Ranking. A search gathers candidates from two sides — the vector index (cosine of the
// embedder's vectors) and the lexical index (BM25 over stems and whole identifiers) — and
// orders their union by a weighted sum of signals:
//
//	vector    cosine between the query's and the memory's embedder vectors
//	lexical   BM25 of the query's terms, divided by the best candidate's (0..1); the terms are
//	          Snowball stems and whole identifiers, plus WordNet synonyms of the query's words
//	          and, for a German, French or Spanish question, the FreeDict translations of its
//	          words (the vector side then embeds the translated question too)
//	exact     the share of the query's identifiers (flags, paths, codes, versions) that the
//	          memory contains verbatim: what makes "--skip-seed" or "23P01" win
//	words     soft matching of words by GloVe vectors: for each word of the query, its closest
//	          word in the memory (1 for the same word, the cosine above a floor for a related
//	          one: "contact" for "person", "version" for "release"), weighted by SIF weights
//	answer    the question wants a person, a time, a number or a place ("who", "wann", "où"), or
//	          names an attribute anywhere ("document-store port", "kyc runtime version", "Port
//	          von X"), and the memory holds a value of that kind or attribute (see answertype.go);
//	          the words naming the attribute weigh attrTerm in the lexical terms
//	sif       cosine of SIF-weighted mean GloVe vectors of query and memory (measured; off by
//	          default, see docs/memory.md)
//	names     subtracted from a note that names only a look-alike of the question's subject
//	          (checkout-v2 or Wayne Foods Europe for checkout or Wayne Foods) when another
//	          candidate names the subject itself (entity.go)
//
// and, once the candidates are ordered, newer: of two candidates about one subject, a later one
// that says it corrects the earlier moves above it (preferNewer), so a correction the store could
// not prove a version of its note still answers first.
//
// Each signal can be switched off (Config.signals) so that TestRecallSignals measures what it
// adds on the retrieval set; the weights below are the ones that set chose, documented with
// their figures in docs/memory.md.

// Signal names, for Config.signals and the figures.
const (
	SignalLexical   = "lexical"
	SignalStem      = "stem"
	SignalSynonyms  = "synonyms"
	SignalTranslate = "translate"
	SignalExact     = "exact"
	SignalWords     = "words"
	SignalSIF       = "sif"
	SignalAnswer    = "answer"
	SignalNames     = "names"
	SignalNewer     = "newer"
)

// rankWeights are the weights of the fused score and of the expansion terms.
type rankWeights struct {
	vector, lex, exact, words, sif, answer float64
	// names is subtracted from a note that names a look-alike of the question's subject.
	names float64
	// floor is the cosine under which two words count as unrelated in soft matching.
	floor float64
	// synonym, translation and cognate scale expansion terms against the query's own words.
	synonym, translation, cognate float64
	// attrTerm scales the lexical terms of the words that name the attribute a question asks
	// ("port", "runtime", "version"): the answer type checks the value, so the words weigh
	// less than the subject's, and "runtime of wishlist: Scala 2.13" no longer outranks "kyc
	// runs on Node 20" for "kyc runtime version".
	attrTerm float64
}

// defaultWeights are the weights the retrieval set chose (docs/memory.md has the figures).
var defaultWeights = rankWeights{vector: 1, lex: 0.8, exact: 0.6, words: 0.4, sif: 0, answer: 0.5, names: 0.4, floor: 0.3, synonym: 0.3, translation: 0.8, cognate: 0.5, attrTerm: 0.5}

// total is the sum of the fused score's weights: a memory best on every signal scores it.
func (w rankWeights) total() float64 { return w.vector + w.lex + w.exact + w.words + w.sif + w.answer }

// identifierTerm weighs a whole identifier against one word.
const identifierTerm = 2.0

// queryPlan is a query analysed for both sides.
type queryPlan struct {
	query  string
	lang   string
	vector string         // the text to embed: the query, or its translation
	terms  []weightedTerm // lexical terms with weights
	idents []string       // identifiers and dates, lower-cased, matched verbatim
	// identWeight weighs each identifier by its rarity in the index (set by Search): a token in
	// one memory in two thousand says more than "p99" in forty.
	identWeight []float64
	numbers     []string // plain numbers, matched as whole words
	words       []string // English words for the word-vector signal
}

// englishStop are English words too common to say what a question is about.
var englishStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on at by for with from is are was were be been
		it its this that these those what which who whom whose how do does did i we you my our your me us
		about when where why there here can could should would will shall may might must have has had
		any some all get got know tell find show give want need again please anything something`) {
		englishStop[w] = true
	}
}

// plan analyses a query: its language, its identifiers and its weighted terms.
func (s *Service) plan(query string) queryPlan {
	p := queryPlan{query: query, lang: "en"}
	on := func(sig string) bool { return !s.off[sig] }
	if on(SignalTranslate) {
		p.lang = lexicon.Detect(query)
	}
	seen := map[string]float64{}
	add := func(term string, w float64) {
		if old, ok := seen[term]; ok {
			if w > old {
				seen[term] = w
				for i := range p.terms {
					if p.terms[i].term == term {
						p.terms[i].weight = w
					}
				}
			}
			return
		}
		seen[term] = w
		p.terms = append(p.terms, weightedTerm{term: term, weight: w})
	}
	stem := func(w string) string {
		if on(SignalStem) {
			return lexicon.Stem(w)
		}
		return w
	}
	// scale weighs the terms of word w: less when it names the attribute the question asks.
	scale := func(string) float64 { return 1 }
	if on(SignalAnswer) && s.w.answer != 0 && s.w.attrTerm != 1 {
		if want := questionWants(query); want.attr != attrNone {
			scale = func(w string) float64 {
				if attributeWords[w] != attrNone {
					return s.w.attrTerm
				}
				return 1
			}
		}
	}
	var vec []string
	toks := tokens(query)
	for i, tok := range toks {
		if i+1 < len(toks) && monthName[strings.ToLower(tok)] && isDigits(toks[i+1]) {
			// A date is a value like an identifier: "January 24" is not "June 24".
			p.idents = append(p.idents, strings.ToLower(tok)+" "+toks[i+1])
		}
		if isDigits(tok) {
			// A number is matched as a whole word: "April 9" is not "April 19".
			p.numbers = append(p.numbers, tok)
		}
		if isIdentifier(tok) {
			l := strings.ToLower(tok)
			p.idents = append(p.idents, l)
			add("="+l, identifierTerm)
			vec = append(vec, tok)
			for _, w := range lexicon.Words(tok) {
				if len(w) > 1 && !englishStop[w] {
					add(stem(w), 0.5)
				}
			}
			continue
		}
		for _, w := range lexicon.Words(tok) {
			if p.lang != "en" {
				if lexicon.IsFunctionWord(p.lang, w) {
					continue
				}
				tr := s.lex.Translate(p.lang, w)
				for i, t := range tr {
					if !englishStop[t] {
						add(stem(t), scale(w)*s.w.translation/float64(1+i/2))
						p.words = append(p.words, t)
					}
				}
				if len(tr) > 0 {
					vec = append(vec, tr[0])
				} else {
					vec = append(vec, w)
				}
				// Cognates and borrowed words: Port, Version, Cache, Dashboard.
				add(stem(lexicon.Fold(w)), scale(w)*s.w.cognate)
				continue
			}
			if englishStop[w] || len(w) < 2 && !isDigits(w) {
				vec = append(vec, w)
				continue
			}
			add(stem(w), scale(w))
			p.words = append(p.words, w)
			vec = append(vec, w)
			for _, long := range lexicon.Expand(w) {
				add(stem(long), scale(w)*0.9)
				p.words = append(p.words, long)
			}
			if on(SignalSynonyms) && !isDigits(w) {
				for _, syn := range s.lex.Synonyms(w) {
					add(stem(syn), scale(w)*s.w.synonym)
				}
			}
		}
	}
	p.vector = query
	if p.lang != "en" {
		p.vector = strings.Join(vec, " ")
	}
	return p
}

// candidate is one memory under consideration, with its signals.
type candidate struct {
	id    uint64
	rec   *record
	cos   float32
	lex   float64 // BM25, normalised after gathering
	exact float64
	words float64
	// answer is set when the memory holds the kind of value the question asks for.
	answer bool
	// other is set when the memory names a look-alike of the question's subject.
	other bool
	score float64
}

// fuse computes every candidate's score from its signals.
func (s *Service) fuse(p queryPlan, cands []*candidate) {
	on := func(sig string) bool { return !s.off[sig] }
	var maxLex float64
	for _, c := range cands {
		maxLex = math.Max(maxLex, c.lex)
	}
	var qv []float32
	if on(SignalSIF) && s.w.sif != 0 {
		qv = lexicon.SentenceVector(p.words)
	}
	var qw []wordVec
	if on(SignalWords) && s.w.words != 0 {
		qw = wordVecs(p.words)
	}
	var want wanted
	if on(SignalAnswer) && s.w.answer != 0 {
		want = questionWants(p.query)
	}
	if on(SignalNames) && s.w.names != 0 {
		lookAlikes(p.query, cands)
	}
	for _, c := range cands {
		c.score = s.w.vector * float64(c.cos)
		if on(SignalLexical) && maxLex > 0 {
			c.lex /= maxLex
			c.score += s.w.lex * c.lex
		}
		if on(SignalExact) && len(p.idents)+len(p.numbers) > 0 && c.rec != nil {
			lower := strings.ToLower(c.rec.Content)
			var hit, total float64
			for i, id := range p.idents {
				w := 1.0
				if i < len(p.identWeight) {
					w = p.identWeight[i]
				}
				total += w
				if strings.Contains(lower, id) {
					hit += w
				}
			}
			var words map[string]bool
			for _, n := range p.numbers {
				if words == nil {
					words = map[string]bool{}
					for _, w := range lexicon.Words(lower) {
						words[w] = true
					}
				}
				total++
				if words[n] {
					hit++
				}
			}
			c.exact = hit / total
			c.score += s.w.exact * c.exact
		}
		if qv != nil && c.rec != nil {
			if dv := lexicon.SentenceVector(contentWords(c.rec.Content)); dv != nil {
				c.score += s.w.sif * float64(lexicon.Dot(qv, dv))
			}
		}
		if len(qw) > 0 && c.rec != nil {
			c.words = softMatch(qw, wordVecs(contentWords(c.rec.Content)), s.w.floor)
			c.score += s.w.words * c.words
		}
		if !want.none() && c.rec != nil && noteAnswers(c.rec.Content, want) {
			c.answer = true
			c.score += s.w.answer
		}
		if c.other {
			c.score -= s.w.names
		}
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case a.id > b.id: // a tie goes to the newer memory
			return -1
		case a.id < b.id:
			return 1
		}
		return 0
	})
	if on(SignalNewer) {
		preferNewer(cands, want.attr != attrNone)
	}
}

// newerWindow is how many of the best candidates preferNewer compares pairwise.
const newerWindow = 10

// preferNewer moves a note above an older one among the best candidates when it restates it
// (see restates): of two statements of one fact, the later answers. Where the question names an
// attribute (byAttr), two notes that both hold its value restate each other when the newer
// names the older's subject first and says it corrects (restatesAttr): "We moved
// legacy-onboarding-api to Python 3.12" after "... is pinned to Python 3.10", for "what tech
// stack does legacy onboarding use".
func preferNewer(cands []*candidate, byAttr bool) {
	n := min(len(cands), newerWindow)
	runs := make([][]nameRun, n)
	for i := range n {
		if cands[i].rec != nil {
			runs[i] = nameRuns(cands[i].rec.Content)
		}
	}
	for j := 1; j < n; j++ {
		for i := 0; i < j; i++ {
			older, newer := cands[i], cands[j]
			if older.rec == nil || newer.rec == nil || newer.id < older.id {
				continue
			}
			if !restates(older.rec.Content, newer.rec.Content, runs[i], runs[j]) &&
				!(byAttr && older.answer && newer.answer && restatesAttr(older.rec.Content, newer.rec.Content, runs[i], runs[j])) {
				continue
			}
			newer.score = max(newer.score, older.score)
			copy(cands[i+1:j+1], cands[i:j])
			cands[i] = newer
			r := runs[j]
			copy(runs[i+1:j+1], runs[i:j])
			runs[i] = r
			break
		}
	}
}

// monthName are the month names (and abbreviations) that start a date.
var monthName = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true, "jan": true,
	"feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true,
	"oct": true, "nov": true, "dec": true,
}

// contentWords are a memory's plain words without the English stop words.
func contentWords(text string) []string {
	var out []string
	for _, w := range lexicon.Words(text) {
		if !englishStop[w] && !isDigits(w) {
			out = append(out, w)
		}
	}
	return out
}

// wordVec is a word with its stem, GloVe vector and SIF weight.
type wordVec struct {
	word, stem string
	vec        []float32
	weight     float64
}

func wordVecs(words []string) []wordVec {
	out := make([]wordVec, 0, len(words))
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, wordVec{word: w, stem: lexicon.Stem(w), vec: lexicon.Vector(w), weight: lexicon.SIFWeight(w)})
	}
	return out
}

// softMatch is the SIF-weighted share of the query's words that the memory has, or has a
// related word for: 1 for the same word (or stem), (cos − floor) / (1 − floor) for the closest
// related one.
func softMatch(q, d []wordVec, floor float64) float64 {
	var sum, total float64
	for _, qw := range q {
		total += qw.weight
		best := 0.0
		for _, dw := range d {
			if dw.stem == qw.stem {
				best = 1
				break
			}
			if qw.vec == nil || dw.vec == nil {
				continue
			}
			if c := float64(lexicon.Dot(qw.vec, dw.vec)); c > floor {
				best = max(best, (c-floor)/(1-floor))
			}
		}
		sum += qw.weight * best
	}
	if total == 0 {
		return 0
	}
	return sum / total
}

// restatesAttr is restates for two notes that hold a value of the attribute a question asks:
// the attribute they share stands for the word or value restates looks for, which a correction
// often does not repeat ("Hiro Jovanović no longer works at Wingtip Toys, Katarina Andersen
// took over" after "Main contact at Wingtip Toys: Hiro Jovanović <...>"). The newer names the
// older's subject first, no look-alike of it, under the same label, and has a correction cue.
func restatesAttr(older, newer string, ra, rb []nameRun) bool {
	if lookAlike(ra, rb) || !sameLabel(older, newer) {
		return false
	}
	b := factTokens(newer)
	_, ok := sameSubject(factTokens(older), b, ra, rb)
	return ok && orderingCue(newer, b)
}
