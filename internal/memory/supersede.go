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
	if citesOther(a, b) {
		return verdictDifferent, FactChange{} // two tickets, two incidents: two items
	}
	var change FactChange
	changed := 0
	var counted []region
	for _, r := range regions {
		if regionTrivial(r) {
			continue
		}
		if !slices.ContainsFunc(counted, func(o region) bool { return echoes(r, o) }) {
			changed++ // a value that repeats one changed before (a contact's address) is no second change
		}
		counted = append(counted, r)
		kind, ok := regionKind(r)
		if !ok || label(r, kind) || subject(r, a, b) || twoValues(r) || dated(r, a) || dated(r.swap(), b) {
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

// echoes reports whether r changes what o changed, spelled into another value: the address of
// a contact whose name changed ("Pavel Zielinski, zielinski@acme.example" → "Pavel Nielsen,
// nielsen@acme.example").
func echoes(r, o region) bool {
	side := func(x, y []token) bool {
		for _, t := range y {
			if len(t.key) < 3 || !strings.ContainsFunc(t.key, unicode.IsLetter) {
				continue
			}
			for _, u := range x {
				if u.key != t.key && (strings.Contains(u.key, "@") || strings.Contains(u.key, "://")) && strings.Contains(u.key, t.key) {
					return true
				}
			}
		}
		return false
	}
	return side(r.old, o.old) && side(r.new, o.new)
}

// corrects reports whether next corrects prev though their words differ beyond one value: it is
// about the same subject (prev's subject, see subjectEntities, appears in next word for word,
// next names no longer form of it, and a label next opens with names it) and says it corrects
// something ("correction:", "actually", "now", "moved to", "no longer", "handed over", "as of",
// "(was ...)"), with a similarity of at least correctionFloor. A near duplicate without such
// words is another fact (production and staging): stored beside it, never refused.
func corrects(prev, next string, sim float32) bool {
	a, b := factTokens(prev), factTokens(next)
	if len(a) == 0 || len(b) == 0 || len(a) > maxFactTokens || len(b) > maxFactTokens {
		return false
	}
	a, b = plainFirst(a, b), plainFirst(b, a)
	have := map[string]bool{}
	for _, t := range b {
		have[t.key] = true
	}
	subj, subjNext := subjectEntities(a), subjectEntities(b)
	if len(subj) == 0 || citesOther(a, b) {
		return false
	}
	if !holdsRuns(a, b, subj) {
		return false
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
		if k, ok := valueKind(t); ok && (k == ChangeName || k == ChangeIdentifier) && mine[b[i-1].key] && !b[i-1].sep {
			return false
		}
	}
	if sim < correctionFloor || !sameAttribute(a, b, mine) || !sameLabel(prev, next) || lookAlike(namedRuns(prev), namedRuns(next)) {
		return false
	}
	// A note that opens with a label is about what the label names ("returns: new checkout
	// behind ..." is about returns, not checkout).
	if l := noteLabel(next); l != nil && !slices.ContainsFunc(a, func(t token) bool {
		return (mine[t.key] || subjectName(t)) && slices.Contains(l, t.key)
	}) {
		return false
	}
	return hasCue(next, b, true) || notOld(a, b)
}

// plainFirst lower-cases the capital of ts's first word when other writes that word in lower
// case ("Teal cotton throw weighs 970 g" beside "teal cotton throw no longer on D9-4"): there
// it only starts the sentence, and names nothing.
func plainFirst(ts, other []token) []token {
	f := ts[0]
	if !capital(f.text) || f.opens || f.text == strings.ToUpper(f.text) ||
		!slices.ContainsFunc(other, func(t token) bool { return t.text == f.key }) {
		return ts
	}
	ts = slices.Clone(ts)
	ts[0].text = f.key
	return ts
}

// hasCue reports whether a note says it corrects something: a cue word, or a phrase ("no
// longer", "(was ...)", "as of ..."). withNew counts "new" ("new maintainer for ..."), which
// also names a thing that is new ("the new 2FA flow").
func hasCue(text string, ts []token, withNew bool) bool {
	for _, t := range ts {
		if correctionCue[t.key] && (withNew || t.key != "new") {
			return true
		}
	}
	lower := strings.ToLower(text)
	for _, p := range cuePhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// notOld reports whether next says what it replaces with "not" and a word of prev ("Toronto,
// not Melbourne", "09:30 CET, not 09:00").
func notOld(a, b []token) bool {
	for i, t := range b[:max(len(b)-1, 0)] {
		if t.key == "not" && i > 0 && b[i-1].stop && valueIn(b[i+1].key, a) && !smallWord(b[i+1].key) {
			return true
		}
	}
	return false
}

// cuePhrases say a note corrects something where none of their words alone does.
var cuePhrases = []string{"(was ", "as of ", "no longer", "from now on", "turns out", "took over", "taking over"}

// namedRuns are a note's names (nameRuns) without the units and technical acronyms at their
// end ("MiB RAM" names nothing, "Acme US" stays Acme US).
func namedRuns(text string) []nameRun {
	var out []nameRun
	for _, r := range nameRuns(text) {
		for len(r) > 0 && unitAcronym[r[len(r)-1]] {
			r = r[:len(r)-1]
		}
		if len(r) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// holdsRuns reports whether b holds each run of subject words of a, in a's order and unbroken:
// "Ingrid Wagner" is not in "Ingrid Fischer handed ... to Helena Wagner".
func holdsRuns(a, b []token, subj []string) bool {
	in := func(k string) bool { return slices.Contains(subj, k) }
	for i := 0; i < len(a); {
		if !in(a[i].key) {
			i++
			continue
		}
		j := i
		for j < len(a) && in(a[j].key) {
			j++
		}
		if !slices.ContainsFunc(b, func(t token) bool {
			k := t.pos
			if k+j-i > len(b) {
				return false
			}
			for x := range j - i {
				if b[k+x].key != a[i+x].key {
					return false
				}
			}
			return true
		}) {
			return false
		}
		i = j
	}
	return true
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
		for _, n := range numbersIn(t.key) {
			have[n] = true
		}
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
	attribute := false // a word of prev that says what of the subject it states
	for i, t := range a {
		if run[t.key] || smallWord(t.key) || correctionCue[t.key] || englishStop[t.key] || verbWord(t.key) || len(t.key) < 2 ||
			relational[t.key] || announce[t.key] || qualifierWord[t.key] || negator(t.key) || yearWord(t.key) {
			continue // a year says when, as a qualifier says which: no attribute
		}
		if _, value := valueKind(t); (!value || unitAcronym[t.key]) && !subj[t.key] {
			attribute = true
		}
		if isDigits(t.key) && have[t.key] && !sameUnit(a, i, b) {
			continue // 360 days is not 360 min
		}
		if have[stem(t.key)] {
			return true
		}
		for _, n := range numbersIn(t.key) {
			if have[n] {
				return true // the old value again: "localhost:8011" → "... instead of 8011"
			}
		}
	}
	// A note that is its subject and a value ("REPORTING_WH: Medium", "acme-scratch is in
	// ap-southeast-1") has no attribute to repeat: what corrects it says only a new value, of
	// the same shape, and names no attribute of its own either.
	return !attribute && !attributeIn(b, subj) && shapesMeet(a, b, subj)
}

// attributeIn reports whether ts has a word that says what of its subject it states: not a
// value, the subject, a small word, a cue or a verb.
func attributeIn(ts []token, subj map[string]bool) bool {
	for _, t := range ts {
		if subj[t.key] || smallWord(t.key) || correctionCue[t.key] || englishStop[t.key] || verbWord(t.key) || len(t.key) < 2 ||
			relational[t.key] || announce[t.key] || qualifierWord[t.key] || pronoun[t.key] || scheduleWord[t.key] {
			continue
		}
		if _, value := valueKind(t); !value || unitAcronym[t.key] {
			return true // a word, or what a value measures (SLA, RAM)
		}
	}
	return false
}

// valueShape is the form of a value: a version (v2.1, Go 1.21), a decimal (0.92), a whole
// number, a time of day, a name, an identifier.
type valueShape uint8

const (
	shapeNone valueShape = iota
	shapeVersion
	shapeDecimal
	shapeInteger
	shapeTime
	shapeName
	shapeIdentifier
)

func shapeOf(ts []token, i int) valueShape {
	t := ts[i]
	k, ok := valueKind(t)
	switch {
	case !ok || correctionCue[t.key] || announce[t.key] || commonCapital(t):
		return shapeNone
	case strings.Contains(t.key, ":") && dateLike(t.key):
		return shapeTime
	case k == ChangeNumber && isDigits(strings.TrimRight(t.key, "%")):
		return shapeInteger
	case k == ChangeNumber && (strings.HasPrefix(t.key, "v") || strings.Count(t.key, ".") > 1 || i > 0 && properName(ts[i-1])):
		return shapeVersion
	case k == ChangeNumber:
		return shapeDecimal
	case k == ChangeName:
		return shapeName
	case k == ChangeIdentifier || k == ChangePath:
		return shapeIdentifier
	}
	return shapeNone
}

// shapesMeet reports whether a and b state a value of one shape besides their subject.
func shapesMeet(a, b []token, subj map[string]bool) bool {
	have := map[valueShape]bool{}
	for i, t := range a {
		if !subj[t.key] {
			have[shapeOf(a, i)] = true
		}
	}
	for i, t := range b {
		if sh := shapeOf(b, i); sh != shapeNone && !subj[t.key] && have[sh] {
			return true
		}
	}
	return false
}

// qualifierWord are the words that say which copy of a thing a note is about (prod or staging,
// EU or US), not what it says of it: no attribute two notes can share.
var qualifierWord = map[string]bool{"prod": true, "production": true, "staging": true, "stage": true, "dev": true,
	"development": true, "test": true, "qa": true, "local": true, "internal": true, "public": true, "external": true,
	"eu": true, "us": true, "uk": true, "emea": true, "apac": true, "primary": true, "replica": true}

// sameUnit reports whether the number a[i] comes with the same unit in b as in a, or without one
// on either side ("8146," and "from 8146 to").
func sameUnit(a []token, i int, b []token) bool {
	unit := func(ts []token, j int) string {
		if ts[j].stop || j+1 >= len(ts) || smallWord(ts[j+1].key) || relational[ts[j+1].key] {
			return ""
		}
		return stem(ts[j+1].key)
	}
	ua := unit(a, i)
	for j, t := range b {
		if t.key == a[i].key {
			if ub := unit(b, j); ua == "" || ub == "" || ua == ub {
				return true
			}
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
const correctionFloor = 0.45

// correctionCue are the words with which people write a correction.
var correctionCue = map[string]bool{
	"correction": true, "corrected": true, "update": true, "updated": true, "actually": true, "now": true,
	"moved": true, "changed": true, "instead": true, "left": true, "raised": true,
	"lowered": true, "upgraded": true, "downgraded": true, "relaxed": true, "tightened": true, "switched": true,
	"replaced": true, "renamed": true, "new": true, "bumped": true, "handed": true, "released": true, "took": true,
	"replacing": true, "scratch": true, "oops": true, "sorry": true, "relocated": true, "downsized": true,
	"upsized": true, "rolled": true,
}

// orderCue are cues the newer ordering also takes ("typo above: ...", "upped ... to"), which
// the store does not: a version hides the older note, an order only puts the newer first.
// As store cues they made 4 more wrong versions on the blind6 set.
var orderCue = map[string]bool{"typo": true, "upped": true, "increased": true, "decreased": true,
	"reduced": true, "migrated": true}

// subjectEntities are whom a fact is about: of the words before its verb or separator, its
// names and identifiers ("our contact at Acme is ..." → acme), or else the words after the
// preposition of an attribute ("sprint length on sre: ..." → sre), or else the words themselves,
// small words and correction cues left out. For a fact with neither verb nor separator: its
// names and identifiers, or else the words before its first value ("fulfilment demo every
// Tuesday" → fulfilment, demo).
func subjectEntities(ts []token) []string {
	var phrase []token
	end := false
	for i, t := range ts {
		if verbWord(t.key) && len(phrase) > 0 {
			end = true
			break
		}
		if !smallWord(t.key) && !correctionCue[t.key] && !announce[t.key] && !commonCapital(t) {
			phrase = append(phrase, t)
		} else if t.key == "of" || attributePrep[t.key] {
			phrase = append(phrase, t) // kept to find the attribute's object; dropped below
		}
		if subjectEnd(ts, i) {
			end = true
			break
		}
		if t.sep {
			phrase = phrase[:0] // a label that sets a context ("local dev: ..."): the subject follows
		}
	}
	if !end {
		return looseSubject(ts)
	}
	var names, after []string
	prep, weak := false, false
	for _, t := range phrase {
		switch {
		case t.key == "of" || attributePrep[t.key]:
			after, prep = after[:0], true
		case subjectName(t):
			names = append(names, t.key)
			after = append(after, t.key)
			weak = t.pos == 0 && !t.opens && !identifier(t.text) // a capital that only opens the note ("Latency budget of ...")
		default:
			after = append(after, t.key)
		}
	}
	if len(names) == 1 && weak && prep && len(after) > 0 {
		return after
	}
	if len(names) > 0 {
		return names
	}
	return after
}

// looseSubject is the subject of a fact without a verb or separator: its names and identifiers
// (not an address: that is a value), or else its words before the first value.
func looseSubject(ts []token) []string {
	var names, lead []string
	leading := true
	for _, t := range ts {
		if _, ok := valueKind(t); ok && !subjectName(t) || relational[t.key] {
			leading = false
		}
		if subjectName(t) && !strings.ContainsAny(t.key, "@") && !strings.Contains(t.key, "://") && !correctionCue[t.key] {
			names = append(names, t.key)
		}
		if leading && !smallWord(t.key) && !correctionCue[t.key] && !commonCapital(t) {
			lead = append(lead, t.key)
		}
	}
	if len(names) > 0 {
		return names
	}
	return lead
}

// subjectName reports a word that names a subject: a proper name or an identifier with letters
// (billing-api, pg-main-04), not a date, a capital that opens the note on a common word, or an
// acronym of a common word or unit (GB, RAM, HTTP, API).
func subjectName(t token) bool {
	if !entityToken(t) || commonCapital(t) || wordCompound(t.key) {
		return false
	}
	if k, ok := valueKind(t); ok && k == ChangeDate {
		return false
	}
	return !unitAcronym[t.key]
}

// wordCompound reports a hyphenated word of the language, not a name: a verb with its particle
// ("mix-up", "sign-off") or a prefix ("re-weighed", "re-IP'd", "co-owner").
func wordCompound(w string) bool {
	parts := strings.Split(w, "-")
	if len(parts) != 2 || strings.IndexFunc(w, func(r rune) bool { return !strings.ContainsRune("-'’", r) && !unicode.IsLetter(r) }) >= 0 {
		return false
	}
	return particles[parts[1]] || prefixes[parts[0]]
}

var (
	particles = map[string]bool{"up": true, "off": true, "in": true, "out": true, "on": true, "over": true,
		"down": true, "back": true, "by": true, "through": true}
	prefixes = map[string]bool{"re": true, "pre": true, "co": true, "non": true, "un": true, "self": true,
		"ex": true, "sub": true, "semi": true, "multi": true, "anti": true, "post": true, "mid": true, "de": true}
)

// unitAcronym are the acronyms of units and technical terms, which name no subject.
var unitAcronym = map[string]bool{"gb": true, "mb": true, "kb": true, "tb": true, "gib": true, "mib": true, "kib": true,
	"ram": true, "cpu": true, "gpu": true, "http": true, "https": true, "api": true, "url": true, "sla": true, "slo": true,
	"ssh": true, "dns": true, "tls": true, "ssl": true, "sql": true, "db": true, "vpn": true, "ip": true, "fyi": true,
	"ms": true, "p99": true, "p95": true, "p50": true, "rps": true, "qps": true, "oom": true, "ttl": true, "sdk": true}

// attributePrep are the prepositions between an attribute and its subject in a note's label
// ("memory on stg-db-6:", "main contact at Litware:", "retry policy for billing:").
var attributePrep = map[string]bool{"on": true, "at": true, "for": true, "about": true, "in": true}

// subjectEnd reports whether ts[i] ends a fact's subject with a separator ("runtime of
// billing-api: Node 20"): when the words up to it name something, or end an attribute's
// label ("sprint length on sre:"). A separator after a label that only announces ("Update:",
// "FYI:") or sets a context ("local dev: ...") ends no subject.
func subjectEnd(ts []token, i int) bool {
	if !ts[i].sep || correctionCue[ts[i].key] || announce[ts[i].key] {
		return false
	}
	for j := 0; j <= i; j++ {
		if subjectName(ts[j]) || j < i && (ts[j].key == "of" || attributePrep[ts[j].key]) {
			return true
		}
		if k, _ := valueKind(ts[j]); j > 0 && (k == ChangeDate || yearWord(ts[j].key)) {
			return true // an event's label: "Mix-up 19 Mar 2025: ..."
		}
	}
	return false
}

// announce are the words of a label that only announces a note.
var announce = map[string]bool{"fyi": true, "note": true, "heads-up": true, "reminder": true, "ps": true, "psa": true,
	"todo": true, "nb": true, "btw": true, "that": true}

// commonCapital reports a capital at the start of a note on a common English word ("Owner of
// billing-api: ..."), which is no name.
func commonCapital(t token) bool {
	return t.pos == 0 && !t.opens && capital(t.text) && !identifier(t.text) && lexicon.Common(t.key)
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
	// sep: a separator follows the word ("runtime of billing-api: Node 20", "billing-api —
	// HTTP on 8080", "owner -> Anna"): what comes after it is said of what comes before.
	sep bool
	// stop: punctuation follows the word (a comma, a full stop, a bracket).
	stop bool
	// open: punctuation comes before the word ("(billing)", "<ana@acme.example>").
	open bool
	// code: a code that ends a name ("North 8A", "Bay 12C"), which makes it part of the name.
	code bool
	// opens: the first word, capitalised, opens a name ("Ivo Aydin works ...", "Black Mesa
	// Energy sends ..."), though it may be a common word too.
	opens bool
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
			if separators[f] && len(out) > 0 {
				out[len(out)-1].sep = true
			}
			continue
		}
		before, after, _ := strings.Cut(f, w)
		if k, v, ok := strings.Cut(w, "="); ok && k != "" && v != "" && !strings.Contains(w, "://") {
			// key=value, as terse notes write it ("retries=4"): the key, then its value.
			out = append(out, token{text: k, key: strings.ToLower(k), pos: len(out), sep: true, open: before != ""})
			w, before = v, ""
		}
		out = append(out, token{text: w, key: strings.ToLower(w), pos: len(out), sep: strings.HasPrefix(after, ":"),
			stop: after != "", open: before != ""})
	}
	for i := 1; i < len(out); i++ {
		out[i].code = nameCode(out[i].text) && capitalWord(out[i-1].text) && !out[i-1].stop && !months[out[i-1].key]
	}
	if len(out) > 1 {
		f, n := out[0], out[1]
		out[0].opens = capital(f.text) && !f.stop && capitalWord(n.text) && !months[n.key] && !smallWord(n.key) &&
			!imperative[f.key] && !verbWord(f.key) && !correctionCue[f.key] && !announce[f.key] && !smallWord(f.key)
	}
	return out
}

// separators are the words written between a subject and what is said of it.
var separators = map[string]bool{"—": true, "–": true, "-": true, "->": true, "→": true, "=": true, ":": true, "=>": true}

// region is one stretch where the texts differ: old words replaced by new ones (either may be
// empty).
type region struct {
	old, new  []token
	at, atNew int // where it starts in the old and in the new text
}

// swap is the region seen from the new text.
func (r region) swap() region { return region{old: r.new, new: r.old, at: r.atNew, atNew: r.at} }

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
			if len(cur.old)+len(cur.new) == 0 {
				cur.at, cur.atNew = i, j
			}
			cur.new = append(cur.new, b[j])
			j++
		default:
			if len(cur.old)+len(cur.new) == 0 {
				cur.at, cur.atNew = i, j
			}
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
			case !smallWord(t.key) && !scheduleWord[t.key]:
				return "", false
			}
		}
	}
	return kind, kind != ""
}

// scheduleWord are the words that say how often with a day or a number ("every other
// Thursday", "once a month", "every six weeks"): part of the value they come with.
var scheduleWord = map[string]bool{"every": true, "each": true, "other": true, "second": true, "third": true,
	"alternate": true, "day": true, "days": true, "week": true, "weeks": true, "month": true, "months": true,
	"year": true, "years": true, "hour": true, "hours": true, "minute": true, "minutes": true, "fortnight": true}

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
// what it says: one that comes before the fact's verb or separator, in either text ("Our
// contact at Acme is Jane" and "Our contact at Globex is Jane", "billing-api listens on 8080"
// and "ledger listens on 8080", "Acme: ..." and "Acme Asia: ..."). Two such texts are facts
// about two subjects, never versions of one. A change after the verb ("... is Jane" → "... is
// Bob") is a new value of the same fact, unless the verb's subject is a pronoun and a value
// follows the change unchanged: in "We have a call with Acme every Monday" and "We moved
// billing-api to Go 1.23 last sprint" the name is what the fact is about, and the day or the
// version is what it says. "Ask Ana about Looker" and "Ask Bo about Looker" name two people
// who know it, not one who changed.
func subject(r region, a, b []token) bool {
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
	va, vb := subjectEnds(a, r.at), subjectEnds(b, r.atNew)
	if va < 0 || vb < 0 || qualifier(r, a) {
		return true
	}
	if va == 0 && consult[a[0].key] && aboutAfter(a, r.at+len(r.old)) {
		return true // "ask Ana about Looker", "ask Bo about Looker": two people who know it
	}
	if !pronounSubject(a, va) {
		return false
	}
	for _, t := range a[r.at+len(r.old):] {
		if _, ok := valueKind(t); ok && !smallWord(t.key) {
			return true
		}
	}
	return false
}

// dated reports a changed value in the words before the separator or verb that ends a note's
// subject: a year or a date ("Black Friday Pinterest 2025: £100/day" and "... 2026: £90/day",
// "Mix-up 19 Mar 2025: ...") says which campaign, event or period the fact is about, and a path,
// a host, an identifier or a name before a separator which thing ("/project/costa: 155 TB
// quota", "quota on /project/iyer = 100TB", "ip of dtn01 = 10.20.4.14"). A value after it ("the
// contract ends in 2025", "audit deadline: 2025-03-01") is the fact's value.
func dated(r region, a []token) bool {
	// A day is a date where a month stands beside it ("13 Jul", "Jul 13").
	day := func(i int) bool {
		return isDigits(a[i].key) && len(a[i].key) <= 2 &&
			(i+1 < len(a) && months[a[i+1].key] || i > 0 && months[a[i-1].key])
	}
	d, date := -1, false
	for j, t := range r.old {
		k, ok := valueKind(t)
		if date = k == ChangeDate || yearWord(t.key) || day(r.at+j); date ||
			ok && k != ChangeNumber && k != ChangeName || ok && strings.ContainsFunc(t.text, unicode.IsLetter) {
			d = r.at + j
			break
		}
	}
	if d < 0 {
		return false
	}
	for _, t := range a[:d] {
		if t.sep || verbWord(t.key) {
			return false
		}
	}
	// The value's own token may carry the separator ("2025:", "/project/costa:").
	for _, t := range a[d:] {
		if t.sep {
			return true
		}
		if verbWord(t.key) {
			return date
		}
	}
	return false
}

// yearWord reports a year (1900 to 2099).
func yearWord(w string) bool {
	return len(w) == 4 && isDigits(w) && (w[:2] == "19" || w[:2] == "20")
}

// qualifier reports a changed name that qualifies the word after it, which stays ("6 pods in
// the EU cluster" and "... the US cluster"): it names which thing, as a subject does.
func qualifier(r region, a []token) bool {
	end := r.at + len(r.old)
	if len(r.old) == 0 || end >= len(a) || r.old[len(r.old)-1].stop || !subjectName(r.old[len(r.old)-1]) {
		return false
	}
	next := a[end]
	_, value := valueKind(next)
	return !next.open && !value && !smallWord(next.key) && !relational[next.key] && !scheduleWord[next.key] && !verbWord(next.key)
}

// twoValues reports a stretch that changes a name and, after it, a day or how often ("a call
// with Fabrikam once a month" and "... with Contoso every second Tuesday"): two changes that
// the alignment ran together, which make another fact, as two stretches would.
func twoValues(r region) bool {
	for _, side := range [][]token{r.old, r.new} {
		named := false
		for _, t := range side {
			if k, _ := valueKind(t); named && (k == ChangeDate || scheduleWord[t.key] || numberWords[t.key]) {
				return true
			}
			named = named || subjectName(t)
		}
	}
	return false
}

// subjectEnds is the index of the verb or separator that ends the subject of ts before index
// end, or -1.
func subjectEnds(ts []token, end int) int {
	for i := range ts[:end] {
		if subjectVerb(ts, i) || subjectEnd(ts, i) {
			return i
		}
	}
	return -1
}

// pronounSubject reports whether the verb at ts[v] has only a pronoun for its subject ("we
// moved", "I call").
func pronounSubject(ts []token, v int) bool {
	if v == 0 || !subjectVerb(ts, v) || !pronoun[ts[v-1].key] {
		return false
	}
	for _, t := range ts[:v] {
		if !smallWord(t.key) && !pronoun[t.key] {
			return false
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
		// "we call", "billing-api runs on", "questions about billing go to"
		return pronoun[a[i-1].key] || subjectName(a[i-1]) || w == "go" && i+1 < len(a) && a[i+1].key == "to"
	}
	return true
}

// imperative are the verbs of verbWord a note opens with as an instruction.
var imperative = map[string]bool{"set": true, "pass": true, "call": true, "deploy": true, "ask": true, "ping": true,
	"use": true, "run": true, "go": true}

// aboutAfter reports whether "about" follows ts[i:] after the rest of a name at most.
func aboutAfter(ts []token, i int) bool {
	for ; i < len(ts); i++ {
		if ts[i].key == "about" {
			return i+1 < len(ts)
		}
		if !properName(ts[i]) {
			return false
		}
	}
	return false
}

// consult are the imperatives that name whom to ask about something.
var consult = map[string]bool{"ask": true, "ping": true}

// nounVerb are the verbs of verbWord that project notes also use as nouns.
var nounVerb = map[string]bool{"call": true, "calls": true, "run": true, "runs": true, "set": true, "pass": true,
	"deploy": true, "ask": true, "ping": true, "use": true, "go": true}

var pronoun = map[string]bool{"we": true, "i": true, "you": true, "they": true, "it": true, "he": true, "she": true,
	"to": true, "always": true, "never": true, "also": true, "still": true, "now": true}

// entityToken reports a word that names something: a proper name or an identifier with
// letters (billing-api-v2, pg-main-04, AWS_REGION), not a bare number or version.
func entityToken(t token) bool {
	if t.code {
		return true
	}
	if !strings.ContainsFunc(t.text, unicode.IsLetter) || monthOrDay(t.key) {
		return false
	}
	return properName(t) || identifier(t.text)
}

// nameCode matches the code that ends a place's or a thing's name: digits, then one or two
// capitals ("8A", "9B", "12C"), not a size ("16G", "2TB"; a bare B is a bay more often than
// bytes).
func nameCode(w string) bool {
	d := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) })
	if d < 1 || d > 3 || len(w)-d > 2 {
		return false
	}
	for _, r := range w[d:] {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return !sizeUnit[w[d:]]
}

var sizeUnit = map[string]bool{"G": true, "M": true, "K": true, "T": true, "GB": true, "MB": true, "KB": true, "TB": true}

// refID matches the identifier of a ticket, an incident or an issue (INC0088745, JIRA-1234,
// #4521): a note that cites one is about that item, and a note citing another is about
// another item, however alike their words.
func refID(w string) bool {
	if len(w) > 2 && w[0] == '#' && isDigits(w[1:]) {
		return true
	}
	letters := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsUpper(r) })
	if letters < 2 {
		return false
	}
	rest := strings.TrimPrefix(w[letters:], "-")
	return isDigits(rest) && (len(rest) >= 4 || len(w[letters:]) > len(rest) && len(rest) >= 2)
}

// citesOther reports whether a and b each cite items (refID) and none in common.
func citesOther(a, b []token) bool {
	var ra, rb []string
	for _, t := range a {
		if refID(t.text) {
			ra = append(ra, t.key)
		}
	}
	for _, t := range b {
		if refID(t.text) {
			rb = append(rb, t.key)
		}
	}
	return len(ra) > 0 && len(rb) > 0 && !slices.ContainsFunc(ra, func(k string) bool { return slices.Contains(rb, k) })
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
	case t.code:
		return ChangeName, true
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
	"quarter": true, "quarterly": true, "biweekly": true, "fortnightly": true, "yearly": true, "annually": true, "hourly": true,
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
