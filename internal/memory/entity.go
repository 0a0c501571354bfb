package memory

import (
	"slices"
	"strings"
	"unicode"

	"toolhost/internal/lexicon"
)

// Names in notes and questions. A project's notes name the same things over and over — a
// service and its successor (checkout, checkout-v2), a customer and its regional branch (Wayne
// Foods, Wayne Foods Europe) — and a note about the longer name is about another subject, however
// alike its words. Two uses:
//
//   - ranking: a note that names only a longer (or shorter) form of a name in the question is
//     about a look-alike and loses SignalNames' weight;
//   - ordering: of two notes about the same name, a newer one that restates the older with
//     changed values, or says it corrects it, ranks above it (SignalNewer), also where the store
//     kept both because it could not prove the second a version of the first.

// nameRun is one name as its lower-cased parts: the words of a run of capitalised words
// ("Wayne Foods Europe" → wayne foods europe) or the parts of a hyphenated identifier
// ("catalog-v2" → catalog v2).
type nameRun []string

// nameRuns lists the names of a note. A capitalised common word opening the note ("Deploy",
// "Owner", "Correction") is no name; a run ends at punctuation.
func nameRuns(text string) []nameRun {
	var out []nameRun
	var cur nameRun
	end := func() {
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	for i, f := range strings.Fields(text) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		stop := w != "" && !strings.HasSuffix(f, w) // punctuation after it ends a run
		switch {
		case w == "":
			end()
		case hyphenName(w):
			end()
			out = append(out, strings.Split(strings.ToLower(w), "-"))
		case capitalWord(w) && (i > 0 || !lexicon.Common(strings.ToLower(w)) || !stop && nextCapital(text)):
			cur = append(cur, strings.ToLower(w))
		default:
			end()
		}
		if stop {
			end()
		}
	}
	end()
	return out
}

// nextCapital reports whether the text's second word is capitalised: a common word opening a
// note starts a name when another capitalised word follows ("Anna Bianchi left ...").
func nextCapital(text string) bool {
	f := strings.Fields(text)
	return len(f) > 1 && capitalWord(strings.TrimFunc(f[1], func(r rune) bool { return !unicode.IsLetter(r) }))
}

// hyphenName reports an identifier made of hyphenated words (billing-api, pg-main-04), not an
// address, path or flag.
func hyphenName(w string) bool {
	return strings.Contains(w, "-") && !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "@/:.=_")
}

// capitalWord reports a word of letters that starts with a capital (Globex, US, Kovač).
func capitalWord(w string) bool {
	for i, r := range w {
		if i == 0 && !unicode.IsUpper(r) || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// queryPart is one part of a question's words: a word, or a part of a hyphenated identifier.
type queryPart struct {
	word    string
	joined  bool // hyphenated to the part before it
	capital bool
}

// queryParts splits a question into parts for name matching.
func queryParts(query string) []queryPart {
	var out []queryPart
	for _, f := range strings.Fields(query) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w == "" {
			continue
		}
		if hyphenName(w) {
			for i, p := range strings.Split(w, "-") {
				out = append(out, queryPart{word: strings.ToLower(p), joined: i > 0})
			}
			continue
		}
		out = append(out, queryPart{word: strings.ToLower(w), capital: capitalWord(w)})
	}
	return out
}

// nameMatches finds in a question the names of a note (runs) that the note names in a longer
// form ("checkout" for the note's "checkout-v2", "Wayne Foods" for "Wayne Foods Europe"): the
// question's words of each, joined by spaces. (A note that names a shorter form than the
// question, "Blue Sun" for Blue Sun Europe, was measured too: no change on the tuning set,
// distractors 0.66 → 0.63 on the held-out set.)
func nameMatches(q []queryPart, runs []nameRun) (longer, own []string) {
	for _, run := range runs {
		for i := range q {
			if q[i].word != run[0] || q[i].joined {
				continue
			}
			j := 1
			for j < len(run) && i+j < len(q) && q[i+j].word == run[j] {
				j++
			}
			switch {
			case j < len(run):
				longer = append(longer, strings.Join(run[:j], " "))
			case i+j == len(q) || !q[i+j].joined && !(q[i+j].capital && q[i+j-1].capital):
				own = append(own, strings.Join(run, " "))
			}
		}
	}
	return longer, own
}

// standalone reports whether a note's parts hold name (space-separated words) as a whole: not
// hyphenated to more, not followed by another capitalised word. With first, only as the note's
// subject, its first words ("checkout talks to ...", "The checkout ..."): a plain word elsewhere
// ("iOS push certificates") is no name.
func standalone(parts []queryPart, name string, first bool) bool {
	ws := strings.Fields(name)
	for i := 0; i+len(ws) <= len(parts); i++ {
		if first && i > 0 && (i > 1 || parts[0].word != "the") {
			return false
		}
		if parts[i].joined {
			continue
		}
		j := 0
		for j < len(ws) && parts[i+j].word == ws[j] && (j == 0 || parts[i+j].joined == parts[i+1].joined) {
			j++
		}
		if j < len(ws) {
			continue
		}
		if k := i + j; k < len(parts) && (parts[k].joined || parts[k].capital && parts[k-1].capital) {
			continue
		}
		return true
	}
	return false
}

// lookAlikes marks the candidates that name only a longer form of a name of the question
// ("checkout-v2", "Wayne Foods Europe" for a question about checkout or Wayne Foods) when
// another candidate names the question's own: a question that shortens a name ("Tamara" for
// Tamara Nowak) marks nothing.
func lookAlikes(query string, cands []*candidate) {
	otherSubjects(query, cands)
	q := queryParts(query)
	type seen struct {
		parts  []queryPart
		longer []string
	}
	notes := make([]seen, len(cands))
	own := map[string]bool{} // names of the question some note names as a whole
	var other []string
	for i, c := range cands {
		if c.rec == nil {
			continue
		}
		longer, named := nameMatches(q, nameRuns(c.rec.Content))
		notes[i] = seen{parts: queryParts(c.rec.Content), longer: longer}
		other = append(other, longer...)
		for _, n := range named {
			own[n] = true
		}
	}
	if len(other) == 0 {
		return
	}
	for _, name := range other {
		if own[name] {
			continue
		}
		for i := range cands {
			if notes[i].parts != nil && standalone(notes[i].parts, name, true) {
				own[name] = true
				break
			}
		}
	}
	for i, c := range cands {
		for _, name := range notes[i].longer {
			if own[name] && !standalone(notes[i].parts, name, false) {
				c.other = true
			}
		}
	}
}

// typedNames are the names of two or more capitalised words that a question types in full
// ("Vikram Costa", "Blue Yonder Airlines") and that some candidates hold and others not: they
// count as identifiers for the exact signal, so that "what is Vikram Costa's GitHub handle?"
// prefers his note to Vikram Pereira's. A question's opening capital is no part of a name.
func typedNames(query string, cands []*candidate) []string {
	var runs [][]string
	var cur []string
	for i, f := range strings.Fields(query) {
		core := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		w := strings.TrimSuffix(strings.TrimSuffix(core, "'s"), "’s")
		if capitalWord(w) && i > 0 && len(w) > 1 {
			cur = append(cur, strings.ToLower(w))
		} else {
			runs, cur = append(runs, cur), nil
		}
		if core != "" && (w != core || !strings.HasSuffix(f, core)) {
			runs, cur = append(runs, cur), nil // punctuation or a possessive ends a name
		}
	}
	runs = append(runs, cur)
	var out []string
	for _, run := range runs {
		if len(run) < 2 {
			continue
		}
		name, held := strings.Join(run, " "), 0
		for _, c := range cands {
			if strings.Contains(strings.ToLower(c.rec.Content), name) {
				held++
			}
		}
		if held > 0 && held < len(cands) {
			out = append(out, name)
		}
	}
	return out
}

// otherSubjects marks the candidates about another named thing than the question's: when the
// question names an identifier (pdf-renderer) that some candidates hold, a candidate that holds
// none of the question's identifiers and opens with another one ("support-desk: p99 latency
// under 500 ms") answers for something else, however alike its words.
func otherSubjects(query string, cands []*candidate) {
	var names []string
	for _, tok := range tokens(query) {
		if w := strings.ToLower(tok); hyphenName(w) {
			names = append(names, w)
		}
	}
	if len(names) == 0 {
		return
	}
	holds := func(c *candidate) bool {
		lower := strings.ToLower(c.rec.Content)
		return slices.ContainsFunc(names, func(n string) bool { return strings.Contains(lower, n) })
	}
	if !slices.ContainsFunc(cands, func(c *candidate) bool { return c.rec != nil && holds(c) }) {
		return
	}
	for _, c := range cands {
		if c.rec == nil || holds(c) {
			continue
		}
		for _, tok := range tokens(c.rec.Content) {
			if w := strings.ToLower(tok); hyphenName(w) {
				c.other = true
				break
			}
		}
	}
}

// lookAlike reports whether one of two notes names a longer form of a name of the other
// (checkout and checkout-v2): then they are about two subjects.
func lookAlike(a, b []nameRun) bool {
	for _, x := range a {
		for _, y := range b {
			if n := min(len(x), len(y)); len(x) != len(y) && slices.Equal(x[:n], y[:n]) {
				return true
			}
		}
	}
	return false
}

// restates reports whether newer says it corrects what older states about the same subject:
// it names older's subject first (its first name is one of older's, and neither names a longer
// form of a name of the other), it has a correction cue ("now", "moved", "left", "(was ...)"),
// and it takes up an attribute or a value of older ("port", "seats", the old contact's name, the
// old number).
func restates(older, newer string, ra, rb []nameRun) bool {
	if lookAlike(ra, rb) || !sameLabel(older, newer) {
		return false
	}
	a, b := factTokens(older), factTokens(newer)
	if len(a) == 0 || len(b) == 0 || len(a) > maxFactTokens || len(b) > maxFactTokens {
		return false
	}
	if len(rb) == 0 || !slices.ContainsFunc(ra, func(r nameRun) bool { return slices.Equal(r, rb[0]) }) {
		return false
	}
	// A cue word (not "new": "the new 2FA flow" corrects nothing) or "(was ...)"; the phrases
	// that make a correction at store time ("as of this week ...") are too loose here, where no
	// similarity floor holds the pair back: "as of this week the alert fires above 10%" would
	// pass for a correction of "gives up after 3 retries and alerts".
	lower := strings.ToLower(newer)
	cue := strings.Contains(lower, "(was ") || strings.Contains(lower, "no longer")
	for _, t := range b {
		cue = cue || correctionCue[t.key] && t.key != "new"
	}
	if !cue {
		return false
	}
	names := map[string]bool{}
	for _, run := range ra {
		names[strings.Join(run, "-")] = true
		for _, p := range run {
			names[p] = true
		}
	}
	have := map[string]bool{}
	for _, t := range b {
		have[stem(t.key)] = true
	}
	for _, n := range numbersIn(newer) {
		have[n] = true
	}
	for _, t := range a {
		k := t.key
		if names[k] || smallWord(k) || correctionCue[k] || englishStop[k] || verbWord(k) || len(k) < 2 || relational[k] {
			continue
		}
		if have[stem(k)] {
			return true
		}
	}
	for _, n := range numbersIn(older) {
		if have[n] {
			return true
		}
	}
	return false
}

// relational are words that say how much, how often or where of anything: no attribute of
// their own.
var relational = map[string]bool{
	"every": true, "each": true, "not": true, "no": true, "per": true, "only": true, "most": true, "least": true,
	"more": true, "less": true, "behind": true, "above": true, "below": true, "between": true, "through": true,
	"via": true, "within": true, "without": true, "during": true, "until": true, "since": true,
	"up": true, "down": true, "out": true, "off": true, "around": true, "approximately": true, "roughly": true,
}

// numbersIn are the values of two or more digits of a text ("localhost:3009" → 3009), not the
// digits of a name (pg-replica-10, ops-db-8); a time of day is one value (09:30).
func numbersIn(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if hyphenName(w) {
			continue
		}
		if strings.Contains(w, ":") && dateLike(w) {
			out = append(out, w) // a time is one value: 00:45 and 05:00 share no number
			continue
		}
		for _, n := range strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsDigit(r) }) {
			if len(n) >= 2 {
				out = append(out, n)
			}
		}
	}
	return out
}
