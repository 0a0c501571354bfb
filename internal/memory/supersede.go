package memory

import (
	"slices"
	"strings"

	"toolhost/internal/lexicon"
	"unicode"
	"unicode/utf8"
)

// Supersession. A fact changes: the API server moves from port 8080 to 9090, the on-call engineer
// is Bob now, the release slips to June 15. The new memory reads like the old one with a value
// changed, which an embedder scores as near-identical (0.96 for the ports with USE-Lite) or only
// loosely similar (0.70 for Alice and Bob), so similarity alone can neither refuse it as a
// duplicate nor tell it from a different fact. The words can: the two texts share most of their
// words, and every difference is a value (a number, date, path, identifier or name) or a
// negation. Such a memory is stored as the newer version of the older one, which drops out of
// search results but stays reachable by id. A text that differs in ordinary words ("staging"
// and "production" database, "API" and "metrics" server) states another fact and is not a
// version of the first.

// ChangeKind names what differs between a memory and the one it supersedes.
type ChangeKind string

// Change kinds, in the order they are reported when a change has several.
const (
	ChangeDate       ChangeKind = "date"
	ChangePath       ChangeKind = "path"
	ChangeNumber     ChangeKind = "number"
	ChangeIdentifier ChangeKind = "identifier"
	ChangeName       ChangeKind = "name"
	ChangeNegation   ChangeKind = "negation"
	ChangeRevert     ChangeKind = "revert" // the text of an earlier version, stated again
	ChangeUpdate     ChangeKind = "update" // an explicit update_memory
)

// verdict is how two similar texts relate.
type verdict int

const (
	// verdictDifferent: another fact, or a rewording that changes more than values.
	verdictDifferent verdict = iota
	// verdictSame: the same statement (case, punctuation, small words and inflections aside).
	verdictSame
	// verdictUpdate: the same statement with values changed: a newer version.
	verdictUpdate
)

// FactChange describes an update: its kind and the changed words on each side.
type FactChange struct {
	Kind ChangeKind `json:"kind"`
	Old  string     `json:"old,omitempty"`
	New  string     `json:"new,omitempty"`
}

// Limits of the comparison: longer texts are documents, not facts, and are not versioned.
const (
	maxFactTokens  = 120
	maxFactRegions = 1
)

// compareFacts decides whether next restates, updates or differs from prev.
func compareFacts(prev, next string) (verdict, FactChange) {
	a, b := factTokens(prev), factTokens(next)
	if len(a) == 0 || len(b) == 0 || len(a) > maxFactTokens || len(b) > maxFactTokens {
		return verdictDifferent, FactChange{}
	}
	regions, shared := diffTokens(a, b)
	if len(regions) == 0 {
		return verdictSame, FactChange{}
	}
	var change FactChange
	changed := 0
	for _, r := range regions {
		if regionTrivial(r) {
			continue
		}
		changed++
		kind, ok := regionKind(r)
		if !ok || label(r, kind) || subject(r, a, kind) {
			return verdictDifferent, FactChange{}
		}
		if change.Kind == "" || kindRank(kind) < kindRank(change.Kind) {
			change.Kind = kind
		}
		change.Old = joinWords(change.Old, r.old)
		change.New = joinWords(change.New, r.new)
	}
	if changed == 0 {
		return verdictSame, FactChange{}
	}
	// The statement must be recognisably the same: most words in common, at least two of them,
	// and one place that changed. Values changed in two places ("server 1 is at 10.0.0.1",
	// "server 2 is at 10.0.0.2") are more often two facts of a list than one fact updated.
	if shared < 2 || 2*shared < max(len(a), len(b)) || changed > maxFactRegions {
		return verdictDifferent, FactChange{}
	}
	return verdictUpdate, change
}

// corrects reports whether next corrects prev though their words differ beyond one value: it is
// about the same subject (every name and identifier that prev states before its verb appears
// in next, and next names no other subject) and says it corrects something ("correction:",
// "actually", "now", "moved to", "no longer", "(was ...)"), with a similarity of at least
// correctionFloor. A near duplicate without such words is another fact (production and
// staging): stored beside it, never refused.
func corrects(prev, next string, sim float32) bool {
	a, b := factTokens(prev), factTokens(next)
	if len(a) == 0 || len(b) == 0 || len(a) > maxFactTokens || len(b) > maxFactTokens {
		return false
	}
	have := map[string]bool{}
	for _, t := range b {
		have[t.key] = true
	}
	subj, subjNext := subjectEntities(a), subjectEntities(b)
	if len(subj) == 0 {
		return false
	}
	for _, e := range subj {
		if !have[e] {
			return false
		}
	}
	mine := map[string]bool{}
	for _, e := range subj {
		mine[e] = true
	}
	for i, t := range b {
		if i == 0 || !slices.Contains(subjNext, t.key) || mine[t.key] || valueIn(t.key, a) {
			continue
		}
		// A name that extends prev's subject ("Stark Freight Asia" after "Stark Freight") makes
		// it another subject; a new name elsewhere is the new value ("X left; the lead is Y").
		if k, ok := valueKind(t); ok && (k == ChangeName || k == ChangeIdentifier) && mine[b[i-1].key] {
			return false
		}
	}
	if sim < correctionFloor || !sameAttribute(a, b, mine) || !sameLabel(prev, next) {
		return false
	}
	for _, t := range b {
		if correctionCue[t.key] {
			return true
		}
	}
	return strings.Contains(strings.ToLower(next), "(was ")
}

// sameAttribute reports whether next says something about what prev says of its subject: a
// word of prev other than the subject's and the small words (the attribute, "port", "seats",
// "latency", or the old value, "Omar García") comes back in next. A note about the same
// service that says something else ("payouts-v2 is on port 7633 now" after "payouts-v2 needs
// 2048 MiB RAM") is another fact of that subject, not a correction.
//
// The subject is the first run of prev's subject words: in "For anything about Acme, talk to
// Omar García" Acme is whom the fact is about and Omar García its value.
func sameAttribute(a, b []token, subj map[string]bool) bool {
	have := map[string]bool{}
	for _, t := range b {
		have[stem(t.key)] = true
	}
	run := map[string]bool{}
	for i, t := range a {
		if subj[t.key] {
			for _, u := range a[i:] {
				if !subj[u.key] {
					break
				}
				run[u.key] = true
			}
			break
		}
	}
	for _, t := range a {
		if run[t.key] || smallWord(t.key) || correctionCue[t.key] || englishStop[t.key] || verbWord(t.key) || len(t.key) < 2 {
			continue
		}
		if have[stem(t.key)] {
			return true
		}
	}
	return false
}

// sameLabel reports whether two notes that each open with a label ("mailer: new 2FA behind
// ...", "scheduler: new refund behind ...") label the same subject: two labels with no word in
// common are two subjects.
func sameLabel(prev, next string) bool {
	a, b := noteLabel(prev), noteLabel(next)
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, w := range a {
		if slices.Contains(b, w) {
			return true
		}
	}
	return false
}

// noteLabel is the words before a colon within a note's first three words, small words left
// out, or nil. A label that only says the note corrects or updates ("Correction:", "Update:")
// labels no subject.
func noteLabel(text string) []string {
	out := noteLabelWords(text)
	if !slices.ContainsFunc(out, func(w string) bool { return !correctionCue[w] }) {
		return nil
	}
	return out
}

func noteLabelWords(text string) []string {
	var out []string
	for i, f := range strings.Fields(text) {
		if i == 3 || strings.Contains(f, "://") {
			return nil
		}
		w := strings.ToLower(strings.TrimRight(f, ":"))
		if !smallWord(w) {
			out = append(out, w)
		}
		if strings.HasSuffix(f, ":") {
			return out
		}
	}
	return nil
}

// correctionFloor is the similarity from which a text that says it corrects is taken as a
// correction of a memory about the same subject.
const correctionFloor = 0.55

// correctionCue are the words with which people write a correction.
var correctionCue = map[string]bool{
	"correction": true, "corrected": true, "update": true, "updated": true, "actually": true, "now": true,
	"moved": true, "changed": true, "instead": true, "longer": true, "left": true, "raised": true,
	"lowered": true, "upgraded": true, "downgraded": true, "relaxed": true, "tightened": true, "switched": true,
	"replaced": true, "renamed": true, "new": true,
}

// subjectEntities are the words of a fact before its verb, small words and correction cues left
// out ("ledger", "billing retro", "our contact at Acme" → contact, acme); for a fact without a
// verb word, its names and identifiers.
func subjectEntities(ts []token) []string {
	var out, names []string
	verb := false
	for _, t := range ts {
		if verbWord(t.key) && len(out) > 0 {
			verb = true
			break
		}
		if smallWord(t.key) || correctionCue[t.key] || commonCapital(t) {
			continue
		}
		out = append(out, t.key)
		if k, ok := valueKind(t); ok && (k == ChangeName || k == ChangeIdentifier) {
			names = append(names, t.key)
		}
	}
	if !verb {
		names = names[:0]
		for _, t := range ts {
			if strings.ContainsAny(t.key, "@") || strings.Contains(t.key, "://") || commonCapital(t) {
				continue // an address is a value, not whom the fact is about
			}
			if k, ok := valueKind(t); ok && (k == ChangeName || k == ChangeIdentifier) && !correctionCue[t.key] {
				names = append(names, t.key)
			}
		}
		return names
	}
	return out
}

// commonCapital reports a capital at the start of a note on a common English word ("Owner of
// billing-api: ..."), which is no name.
func commonCapital(t token) bool {
	return t.pos == 0 && capital(t.text) && !identifier(t.text) && lexicon.Common(t.key)
}

// valueIn reports whether key is a word of ts.
func valueIn(key string, ts []token) bool {
	for _, t := range ts {
		if t.key == key {
			return true
		}
	}
	return false
}

// valuesDiffer reports whether next states a value (number, date, path, identifier, name)
// that prev does not, or the other way round: two such texts carry different information
// however similar an embedder finds them ("server 1 is at 10.0.0.1", "server 2 is at 10.0.0.2").
func valuesDiffer(prev, next string) bool {
	a, b := factTokens(prev), factTokens(next)
	if len(a) > maxFactTokens || len(b) > maxFactTokens {
		return false
	}
	regions, _ := diffTokens(a, b)
	for _, r := range regions {
		for _, side := range [][]token{r.old, r.new} {
			for _, t := range side {
				if _, ok := valueKind(t); ok {
					return true
				}
			}
		}
	}
	return false
}

func kindRank(k ChangeKind) int {
	for i, c := range []ChangeKind{ChangeDate, ChangePath, ChangeNumber, ChangeIdentifier, ChangeName, ChangeNegation} {
		if c == k {
			return i
		}
	}
	return 99
}

func joinWords(acc string, ws []token) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, w.text)
	}
	s := strings.Join(parts, " ")
	if s == "" {
		s = "∅"
	}
	if acc == "" {
		return s
	}
	return acc + ", " + s
}

// token is one word of a fact, with its position (0 is the first word).
type token struct {
	text string // as written, punctuation around it trimmed
	key  string // lower-cased, for comparison
	pos  int
}

// factTokens splits text into words, keeping the punctuation inside them (paths, versions,
// dates, identifiers, contractions) and dropping the punctuation around them.
func factTokens(text string) []token {
	var out []token
	for _, f := range strings.Fields(text) {
		w := strings.TrimFunc(f, func(r rune) bool {
			return unicode.IsPunct(r) && !strings.ContainsRune("/~$%#@", r) || unicode.IsSymbol(r) && r != '$'
		})
		if w == "" {
			continue
		}
		out = append(out, token{text: w, key: strings.ToLower(w), pos: len(out)})
	}
	return out
}

// region is one stretch where the texts differ: old words replaced by new ones (either may be
// empty).
type region struct{ old, new []token }

// diffTokens aligns a and b on their longest common subsequence of words and returns the
// stretches that differ and the number of words in common.
func diffTokens(a, b []token) ([]region, int) {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if sameWord(a[i], b[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []region
	var cur region
	flush := func() {
		if len(cur.old)+len(cur.new) > 0 {
			out = append(out, cur)
		}
		cur = region{}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && sameWord(a[i], b[j]):
			flush()
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			cur.new = append(cur.new, b[j])
			j++
		default:
			cur.old = append(cur.old, a[i])
			i++
		}
	}
	flush()
	return out, lcs[0][0]
}

func sameWord(x, y token) bool { return x.key == y.key }

// regionTrivial reports a difference that changes no fact: small words only, or the same words
// inflected otherwise ("listens" / "is listening").
func regionTrivial(r region) bool {
	var o, n []string
	for _, t := range r.old {
		if !smallWord(t.key) {
			o = append(o, stem(t.key))
		}
	}
	for _, t := range r.new {
		if !smallWord(t.key) {
			n = append(n, stem(t.key))
		}
	}
	if len(o) != len(n) {
		return false
	}
	for i := range o {
		if o[i] != n[i] {
			return false
		}
	}
	return true
}

// regionKind classifies a difference made only of values (and small words): the kind of its
// strongest value. ok is false when an ordinary word differs, which makes it another fact.
func regionKind(r region) (ChangeKind, bool) {
	if kind, ok := negationKind(r); ok {
		return kind, true
	}
	var kind ChangeKind
	for _, side := range [][]token{r.old, r.new} {
		for _, t := range side {
			k, isValue := valueKind(t)
			switch {
			case isValue:
				if kind == "" || kindRank(k) < kindRank(kind) {
					kind = k
				}
			case !smallWord(t.key):
				return "", false
			}
		}
	}
	return kind, kind != ""
}

// label reports a number that names what the fact is about rather than its value: "Note 3
// about the budget", "Server 2 is at ...", "Step 4: ..." number the items of a list, and two of
// them are two facts.
func label(r region, kind ChangeKind) bool {
	if kind != ChangeNumber {
		return false
	}
	for _, side := range [][]token{r.old, r.new} {
		if len(side) > 0 && side[0].pos > 1 {
			return false
		}
	}
	return true
}

// subject reports a changed name or identifier that says whom the fact is about rather than
// what it says: one that comes before the fact's verb ("Our contact at Acme is Jane" and "Our
// contact at Globex is Jane", "billing-api listens on 8080" and "ledger listens on 8080"). Two
// such texts are facts about two subjects, never versions of one. A change after the verb
// ("... is Jane" → "... is Bob") is a new value of the same fact.
func subject(r region, a []token, _ ChangeKind) bool {
	named := false
	for _, side := range [][]token{r.old, r.new} {
		for _, t := range side {
			if entityToken(t) {
				named = true
			}
		}
	}
	if !named {
		return false
	}
	// Where the change starts in the old text (an insertion: about where it goes).
	pos := 0
	if len(r.old) > 0 {
		pos = r.old[0].pos
	} else if len(r.new) > 0 {
		pos = r.new[0].pos
	}
	for i, t := range a {
		if t.pos >= pos {
			break
		}
		if subjectVerb(a, i) {
			return false // the change comes after the verb: a value
		}
	}
	return true
}

// subjectVerb reports whether a[i] is the verb that ends the fact's subject. A note may open
// with an imperative ("Set the region with AWS_REGION", "Ask Nadia about ...": what follows is
// its object, a value) but not with a verb in the third person, which there is a noun ("Calls
// from audit-log to its dependencies time out ..." is about audit-log); and a word that is
// also a noun ("call", "run", "set") is a verb only after a pronoun ("we call", "they run"):
// "Sync call with Soylent Farms" names its subject after "call".
func subjectVerb(a []token, i int) bool {
	w := a[i].key
	switch {
	case !verbWord(w):
		return false
	case i == 0:
		return imperative[w]
	case nounVerb[w]:
		return pronoun[a[i-1].key]
	}
	return true
}

// imperative are the verbs of verbWord a note opens with as an instruction.
var imperative = map[string]bool{"set": true, "pass": true, "call": true, "deploy": true, "ask": true, "ping": true,
	"use": true, "run": true, "go": true}

// nounVerb are the verbs of verbWord that project notes also use as nouns.
var nounVerb = map[string]bool{"call": true, "calls": true, "run": true, "runs": true, "set": true, "pass": true,
	"deploy": true, "ask": true, "ping": true, "use": true, "go": true}

var pronoun = map[string]bool{"we": true, "i": true, "you": true, "they": true, "it": true, "he": true, "she": true,
	"to": true, "always": true, "never": true, "also": true, "still": true, "now": true}

// entityToken reports a word that names something: a proper name or an identifier with
// letters (billing-api-v2, pg-main-04, AWS_REGION), not a bare number or version.
func entityToken(t token) bool {
	if !strings.ContainsFunc(t.text, unicode.IsLetter) || monthOrDay(t.key) {
		return false
	}
	return properName(t) || identifier(t.text)
}

// verbWord lists the verbs and separators that end a fact's subject in project notes.
func verbWord(w string) bool {
	switch w {
	case "is", "are", "was", "were", "uses", "use", "runs", "run", "listens", "lives", "owns", "owned", "has",
		"have", "reads", "calls", "talks", "returns", "sends", "consumes", "needs", "goes", "go", "points",
		"expires", "renews", "leads", "knows", "prefers", "works", "moved", "depends", "caches", "gives",
		"means", "holds", "stays", "must", "should", "will", "set", "pass", "call", "deploy", "ask", "ping", "=", "->":
		return true
	}
	return strings.HasSuffix(w, ":")
}

// negationKind recognises a negation added or removed ("not", "never", "no", "n't") and a word
// swapped for its negated form ("enabled" / "disabled").
func negationKind(r region) (ChangeKind, bool) {
	content := func(ts []token) []string {
		var out []string
		for _, t := range ts {
			if !smallWord(t.key) || negator(t.key) || opposites[t.key] != "" {
				out = append(out, t.key)
			}
		}
		return out
	}
	o, n := content(r.old), content(r.new)
	onlyNegators := func(ws []string) bool {
		for _, w := range ws {
			if !negator(w) {
				return false
			}
		}
		return len(ws) > 0
	}
	switch {
	case len(o) == 0 && onlyNegators(n), len(n) == 0 && onlyNegators(o):
		return ChangeNegation, true
	case len(o) == 1 && len(n) == 1 && (negatedForm(o[0], n[0]) || negatedForm(n[0], o[0])):
		return ChangeNegation, true
	}
	// "can" / "can't", "is" / "isn't": a contraction of the same word.
	if len(o) == 1 && len(n) == 1 && (strings.TrimSuffix(n[0], "n't") == o[0] || strings.TrimSuffix(o[0], "n't") == n[0]) && o[0] != n[0] {
		return ChangeNegation, true
	}
	return "", false
}

func negator(w string) bool {
	switch w {
	case "not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "without", "cannot", "can't", "won't", "don't",
		"doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "shouldn't", "mustn't", "hasn't", "haven't":
		return true
	}
	return false
}

// negatedForm reports whether neg is w with a negating prefix (unsafe, inactive, non-blocking,
// impossible, illegal, irregular, disallowed) or w's opposite in a short list of the settings
// facts are about (enabled and disabled, on and off, allowed and denied...).
func negatedForm(w, neg string) bool {
	if neg == w {
		return false
	}
	for _, p := range []string{"dis", "un", "in", "non-", "non", "im", "il", "ir"} {
		if strings.TrimPrefix(neg, p) == w {
			return true
		}
	}
	return opposites[w] == neg || opposites[neg] == w
}

var opposites = map[string]string{
	"enabled": "disabled", "enable": "disable", "enables": "disables", "on": "off", "true": "false",
	"yes": "no", "allowed": "denied", "allow": "deny", "allows": "denies", "required": "optional",
	"open": "closed", "public": "private", "always": "never", "read-only": "writable",
	"mandatory": "optional", "supported": "unsupported", "permitted": "forbidden",
}

// valueKind says whether a word is a value rather than an ordinary word, and which kind.
func valueKind(t token) (ChangeKind, bool) {
	w, k := t.text, t.key
	switch {
	case monthOrDay(k) || dateLike(w):
		return ChangeDate, true
	case strings.ContainsAny(w, `/\`) || strings.HasPrefix(w, "~") || fileName(w):
		return ChangePath, true
	case strings.ContainsFunc(w, unicode.IsDigit) || numberWords[k]:
		return ChangeNumber, true
	case identifier(w):
		return ChangeIdentifier, true
	case properName(t):
		return ChangeName, true
	}
	return "", false
}

// numberWords are numbers written out ("every four weeks" → "every two weeks" is a changed
// number, not another fact).
var numberWords = map[string]bool{
	"zero": true, "one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "twenty": true, "thirty": true,
	"hundred": true, "thousand": true, "once": true, "twice": true, "half": true, "dozen": true,
}

var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"mondays": true, "tuesdays": true, "wednesdays": true, "thursdays": true, "fridays": true, "saturdays": true, "sundays": true,
	"weekend": true, "weekends": true, "weekday": true, "weekdays": true, "today": true, "tomorrow": true, "yesterday": true, "tonight": true, "weekly": true, "daily": true, "monthly": true, "nightly": true,
}

func monthOrDay(k string) bool { return months[k] }

// dateLike matches 2024-05-01, 05/01, 10:30 and similar digit groups with date or time
// separators.
func dateLike(w string) bool {
	digits, seps := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case r == '-' || r == '/' || r == ':':
			seps++
		default:
			return false
		}
	}
	return digits >= 3 && seps >= 1 && !strings.HasPrefix(w, "-")
}

// fileName matches name.ext with a short alphabetic extension (config.toml, main.go).
func fileName(w string) bool {
	i := strings.LastIndexByte(w, '.')
	if i <= 0 || i == len(w)-1 || len(w)-i-1 > 5 {
		return false
	}
	for _, r := range w[i+1:] {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// identifier matches code-like words: snake_case, camelCase, dotted.names, kebab-case words,
// ALLCAPS of four letters or more, and names with a sigil ($HOME, @team, #channel).
func identifier(w string) bool {
	if strings.ContainsAny(w, "_.$@#") {
		return true
	}
	if strings.Contains(w, "-") && !strings.HasPrefix(w, "-") {
		return true
	}
	upper, lower := 0, 0
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			upper++
			if i > 0 && lower > 0 {
				return true // camelCase hump
			}
		case unicode.IsLower(r):
			lower++
		}
	}
	return lower == 0 && upper >= 2
}

// properName matches a capitalised word that is not a small word (Alice, PostgreSQL, Berlin).
// A capital at the start of the text proves nothing, so a first word counts only when it is not
// a common word either.
func properName(t token) bool {
	r, _ := utf8.DecodeRuneInString(t.text)
	if !unicode.IsUpper(r) || smallWord(t.key) {
		return false
	}
	return t.pos > 0 || !commonFirst[t.key]
}

// commonFirst are capitalised first words that are ordinary words, not names.
var commonFirst = map[string]bool{
	"use": true, "run": true, "always": true, "never": true, "remember": true, "note": true, "please": true,
	"deploys": true, "deployments": true, "tests": true, "builds": true, "users": true, "we": true, "our": true,
}

// stem strips a few English inflections so "listens", "listening" and "listened" compare equal.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// smallWord lists the small words whose change alone does not change a fact.
func smallWord(w string) bool {
	switch w {
	case "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had",
		"do", "does", "did", "to", "of", "in", "on", "at", "by", "for", "with", "from", "as", "and", "or",
		"but", "that", "this", "these", "those", "it", "its", "it's", "there", "here", "now", "still", "also",
		"currently", "then", "so", "just", "will", "would", "should", "can", "could", "may", "might", "must",
		"shall", "we", "our", "i", "my", "you", "your", "they", "their", "he", "she", "his", "her", "which",
		"who", "what", "when", "where", "than", "into", "onto", "over", "under", "about", "after", "before":
		return true
	}
	return false
}
