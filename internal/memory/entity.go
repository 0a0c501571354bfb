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
// "Owner", "Correction") is no name; a run ends at punctuation; a code after it (nameCode: the
// 1C of "South 1C") is part of it.
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
		case len(cur) > 0 && nameCode(w) && w == strings.TrimRight(f, ",.;:!?)"):
			cur = append(cur, strings.ToLower(w)) // the code that ends a place's name: South 1C
			end()
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
// address, path or flag, nor a word with an apostrophe ("re-IP'd").
func hyphenName(w string) bool {
	return strings.Contains(w, "-") && !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "@/:.=_'’")
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
	otherCopies(query, cands)
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

// typedNames are the names of two or more capitalised words (or of one and a code: "South 1C")
// that a question types in full ("Vikram Costa", "Blue Yonder Airlines") and that some
// candidates hold and others not: they
// count as identifiers for the exact signal, so that "what is Vikram Costa's GitHub handle?"
// prefers his note to Vikram Pereira's. A question's opening capital is no part of a name.
func typedNames(query string, cands []*candidate) []string {
	var runs [][]string
	var cur []string
	for i, f := range strings.Fields(query) {
		core := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		w := strings.TrimSuffix(strings.TrimSuffix(core, "'s"), "’s")
		if code := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); len(cur) > 0 && nameCode(code) {
			runs, cur = append(runs, append(cur, strings.ToLower(code))), nil // South 1C
			continue
		}
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
// question names an identifier (pdf-renderer), a place's code (the 7D of "South 7D") or a ticket
// (INC0088745) that some candidates hold, a candidate that holds none of them and names another
// of the same kind ("support-desk: p99 latency under 500 ms", "South 1C badge reader ...")
// answers for something else, however alike its words.
func otherSubjects(query string, cands []*candidate) {
	var names, codes []string
	var hyphens, places, tickets bool // the kinds of name the question has
	for _, tok := range tokens(query) {
		switch w := strings.ToLower(tok); {
		case hyphenName(w):
			names, hyphens = append(names, w), true
		case nameCode(tok):
			codes, places = append(codes, w), true
		case refID(tok):
			codes, tickets = append(codes, w), true
		}
	}
	if len(names)+len(codes) == 0 {
		return
	}
	holds := func(c *candidate) bool {
		lower := strings.ToLower(c.rec.Content)
		if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(lower, n) }) {
			return true
		}
		return len(codes) > 0 && slices.ContainsFunc(tokens(lower), func(t string) bool { return slices.Contains(codes, t) })
	}
	if !slices.ContainsFunc(cands, func(c *candidate) bool { return c.rec != nil && holds(c) }) {
		return
	}
	for _, c := range cands {
		if c.rec == nil || holds(c) {
			continue
		}
		for _, tok := range tokens(c.rec.Content) {
			if hyphens && hyphenName(strings.ToLower(tok)) || places && nameCode(tok) || tickets && refID(tok) {
				c.other = true
				break
			}
		}
	}
}

// copyWords name the copies of one thing that notes tell apart, each by its canonical word:
// its environment (production, staging, test) and, written in capitals, its region.
var copyWords = map[string]string{
	"prod": "production", "production": "production", "live": "production", "staging": "staging",
	"stage": "staging", "dev": "development", "development": "development", "test": "test", "qa": "qa",
	"EU": "eu", "US": "us", "UK": "uk", "EMEA": "emea", "APAC": "apac",
}

// copiesIn are the copies a text names (copyWords): an environment in any case, a region only
// in capitals ("us" is a pronoun).
func copiesIn(text string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range tokens(text) {
		c, ok := copyWords[tok]
		if !ok {
			c, ok = copyWords[strings.ToLower(tok)]
		}
		if ok {
			out[c] = true
		}
	}
	return out
}

// otherCopies marks the candidates about another copy of the thing a question asks about:
// when the question names a copy ("PACS test server?", "JupyterHub version in staging") that
// some candidates name, a candidate that names none of the question's copies and another one
// ("PACS live server: pacs-lv01:9547") answers for the other copy, however alike its words.
func otherCopies(query string, cands []*candidate) {
	want := copiesIn(query)
	if len(want) == 0 {
		return
	}
	named := make([]map[string]bool, len(cands))
	some := false
	for i, c := range cands {
		if c.rec == nil {
			continue
		}
		named[i] = copiesIn(c.rec.Content)
		for w := range want {
			some = some || named[i][w]
		}
	}
	if !some {
		return
	}
	for i, c := range cands {
		if c.rec == nil || len(named[i]) == 0 {
			continue
		}
		mine := false
		for w := range want {
			mine = mine || named[i][w]
		}
		if !mine {
			c.other = true
		}
	}
}

// lookAlike reports whether one of two notes names a longer form of a name of the other
// (checkout and checkout-v2) that the other does not name too: then they are about two
// subjects. "North 4A (North) wall ports ..." and "North 4A moved to VLAN 885" are about one.
func lookAlike(a, b []nameRun) bool {
	has := func(runs []nameRun, r nameRun) bool {
		return slices.ContainsFunc(runs, func(x nameRun) bool { return slices.Equal(x, r) })
	}
	for _, x := range a {
		for _, y := range b {
			n := min(len(x), len(y))
			if len(x) == len(y) || !slices.Equal(x[:n], y[:n]) {
				continue
			}
			if len(x) < len(y) && !has(a, y) || len(y) < len(x) && !has(b, x) {
				return true
			}
		}
	}
	return false
}

// sameSubject reports whether newer names older's subject first: its first name is one of
// older's; where neither names anything ("theatre scheduler live upgraded to 30.7.1" after
// "theatre scheduler live is on version 19.3.10"), the store's subject of both is the same. It
// returns the subject's words. a and b are the notes' tokens (factTokens), ra and rb their
// names (nameRuns).
func sameSubject(a, b []token, ra, rb []nameRun) ([]string, bool) {
	if len(ra) == 0 && len(rb) == 0 {
		if sa, sb := subjectEntities(a), subjectEntities(b); len(sb) > 0 && slices.Equal(sa, sb) {
			return sb, true
		}
	}
	if len(rb) == 0 || !slices.ContainsFunc(ra, func(r nameRun) bool { return slices.Equal(r, rb[0]) }) {
		run := plainSubject(b)
		return run, len(run) >= 2 && containsRun(a, run)
	}
	return append([]string{strings.Join(rb[0], "-")}, rb[0]...), true
}

// plainSubject is the lower-case name a note opens with, after a label, a cue or a date: "navy
// side plate set" of "typo above: navy side plate set is on I3-4", "blush wall hook" of "as of
// September the blush wall hook (single) retails at £48.50". A note about a thing named in
// plain words names its subject first; an older note that holds the same words in a row is
// about the same thing ("sku PS-3183 = navy side plate set, location B12-2").
func plainSubject(ts []token) []string {
	i := 0
	if j := slices.IndexFunc(ts, func(t token) bool { return t.sep }); j >= 0 && j < 3 {
		i = j + 1 // a label: "typo above:", "price rise:"
	}
	for i < len(ts) {
		k, value := valueKind(ts[i])
		if smallWord(ts[i].key) || correctionCue[ts[i].key] || announce[ts[i].key] || k == ChangeDate ||
			ts[i].key == "as" || ts[i].key == "of" {
			i++
			continue
		}
		if value {
			return nil
		}
		break
	}
	var run []string
	for ; i < len(ts); i++ {
		t := ts[i]
		if _, value := valueKind(t); value || t.text != t.key || smallWord(t.key) || verbWord(t.key) || correctionCue[t.key] {
			break
		}
		run = append(run, t.key)
		if t.sep || t.stop {
			i++
			break
		}
	}
	// An attribute of a named thing is no subject: "new ward manager on South 3B: ...".
	if i+1 < len(ts) && (attributePrep[ts[i].key] || ts[i].key == "of") && entityToken(ts[i+1]) {
		return nil
	}
	return run
}

// containsRun reports whether ts holds the words of run in a row.
func containsRun(ts []token, run []string) bool {
	for i := 0; i+len(run) <= len(ts); i++ {
		j := 0
		for j < len(run) && ts[i+j].key == run[j] {
			j++
		}
		if j == len(run) {
			return true
		}
	}
	return false
}

// restates reports whether newer says it corrects what older states about the same subject:
// it names older's subject first (sameSubject, and neither names a longer form of a name of
// the other), it has a correction cue ("now", "moved", "left", "(was ...)"), and it takes up an
// attribute or a value of older beyond the subject ("port", "seats", the old contact's name,
// the old number).
func restates(older, newer string, ra, rb []nameRun) bool {
	if lookAlike(ra, rb) || !sameLabel(older, newer) {
		return false
	}
	a, b := factTokens(older), factTokens(newer)
	if len(a) == 0 || len(b) == 0 || len(a) > maxFactTokens || len(b) > maxFactTokens {
		return false
	}
	subject, ok := sameSubject(a, b, ra, rb)
	if !ok || !orderingCue(newer, b) && !strings.Contains(strings.ToLower(newer), "(was ") {
		return false
	}
	names := map[string]bool{}
	for _, w := range subject {
		names[w] = true
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

// orderingCue reports a correction cue of the newer ordering in a note (text, tokens ts): a cue
// word (not "new": "the new 2FA flow" corrects nothing) or "no longer" ("longer" alone is none).
// The phrases that make a correction at store time ("as of this week ...") are too loose here,
// where no similarity floor holds the pair back: "as of this week the alert fires above 10%"
// would pass for a correction of "gives up after 3 retries and alerts".
func orderingCue(text string, ts []token) bool {
	for _, t := range ts {
		if (correctionCue[t.key] || orderCue[t.key]) && t.key != "new" {
			return true
		}
	}
	return strings.Contains(strings.ToLower(text), "no longer")
}

// relational are words that say how much, how often or where of anything: no attribute of
// their own.
var relational = map[string]bool{
	"every": true, "each": true, "not": true, "no": true, "per": true, "only": true, "most": true, "least": true,
	"more": true, "less": true, "behind": true, "above": true, "below": true, "between": true, "through": true,
	"via": true, "within": true, "without": true, "during": true, "until": true, "since": true,
	"up": true, "down": true, "out": true, "off": true, "around": true, "approximately": true, "roughly": true,
	"longer": true, "shorter": true, "earlier": true, "later": true,
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
