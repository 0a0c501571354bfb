package memory

import (
	"strings"
	"unicode"

	"toolhost/internal/lazyregexp"
	"toolhost/internal/lexicon"
)

// Answer types. A question says what kind of answer it wants — "who" a person, "when" a time,
// "how many" a number, "where" a place — in any of the languages search understands, and a
// note either holds such a value or not. Among the notes about one subject (a service has a
// port, an owner, a version and a log index) this picks the one of the right kind: "who is
// responsible for checkout?" is answered by the note with a name in it, whatever its words.
// It is the classic answer-typing step of question answering, with types read from surface
// patterns rather than a tagger.

type answerType uint8

const (
	answerNone answerType = iota
	answerPerson
	answerTime // a date, a time of day, a weekday, a frequency
	answerNumber
	answerPlace // a path, URL, host, channel, region or city
)

// questionStarts map a question's opening words (lower-case, accents kept) to the type of
// answer it wants; the longest match wins.
var questionStarts = map[string]answerType{
	// English
	"who": answerPerson, "whom": answerPerson, "whose": answerPerson, "who's": answerPerson,
	"when": answerTime, "what time": answerTime, "how often": answerTime, "which day": answerTime, "what day": answerTime,
	"how many": answerNumber, "how much": answerNumber, "how long": answerNumber, "how big": answerNumber,
	"how large": answerNumber, "how slow": answerNumber, "how fast": answerNumber, "which port": answerNumber,
	"what port": answerNumber, "which version": answerNumber, "what version": answerNumber,
	"where": answerPlace, "which host": answerPlace, "what host": answerPlace, "which file": answerPlace,
	"which url": answerPlace, "what url": answerPlace,
	// German
	"wer": answerPerson, "wem": answerPerson, "wen": answerPerson, "wessen": answerPerson,
	"wann": answerTime, "wie oft": answerTime, "um wie viel uhr": answerTime, "an welchem tag": answerTime,
	"wie viele": answerNumber, "wie viel": answerNumber, "wie lange": answerNumber, "wie groß": answerNumber,
	"auf welchem port": answerNumber, "welche version": answerNumber, "nach wie vielen": answerNumber,
	"wo": answerPlace, "woher": answerPlace, "wohin": answerPlace, "auf welchem host": answerPlace,
	"in welcher region": answerPlace, "unter welchem pfad": answerPlace,
	// French
	"qui": answerPerson, "à qui": answerPerson,
	"quand": answerTime, "à quelle heure": answerTime, "à quelle fréquence": answerTime, "quel jour": answerTime,
	"combien": answerNumber, "sur quel port": answerNumber, "quelle version": answerNumber, "au bout de combien": answerNumber,
	"où": answerPlace, "sur quel serveur": answerPlace, "dans quelle région": answerPlace,
	// Spanish
	"quién": answerPerson, "quiénes": answerPerson, "a quién": answerPerson,
	"cuándo": answerTime, "a qué hora": answerTime, "cada cuánto": answerTime, "qué día": answerTime,
	"cuánto": answerNumber, "cuántos": answerNumber, "cuántas": answerNumber, "cuánta": answerNumber,
	"en qué puerto": answerNumber, "qué versión": answerNumber, "después de cuántos": answerNumber,
	"dónde": answerPlace, "en qué región": answerPlace, "bajo qué ruta": answerPlace,
}

// questionType reads the answer type from the question's first words.
func questionType(query string) answerType {
	q := strings.ToLower(strings.TrimLeft(strings.TrimSpace(query), "¿¡\"'"))
	words := strings.FieldsFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '?' || r == ',' })
	for n := min(5, len(words)); n > 0; n-- {
		if t, ok := questionStarts[strings.Join(words[:n], " ")]; ok {
			return t
		}
	}
	return answerNone
}

// The patterns of noteTypes, compiled on first use, not at every start.
var (
	timeOfDay = lazyregexp.New(`\b\d{1,2}:\d{2}\b`)
	isoDate   = lazyregexp.New(`\b\d{4}-\d{2}-\d{2}\b`)
	frequency = lazyregexp.New(`(?i)\b(every|each|nightly|daily|weekly|monthly|hourly|weekdays?|mornings?|afternoons?|evenings?)\b`)
	number    = lazyregexp.New(`(^|[^\w.-])\d+([.,]\d+)?\s*(%|ms|s|min|h|gb|g|mi|mib|mb|k)?\b`)
	email     = lazyregexp.New(`\b[\w.+-]+@[\w-]+\.[\w.-]+\b`)
	place     = lazyregexp.New(`(://|(^|\s)[~.]?/[\w.-]+|\b[\w-]+/[\w./-]+|#[\w-]+|\b[a-z]+-[a-z]+-\d\b|\b[a-z]+(-[a-z]+)*-\d{2}\b)`)
)

// noteHas reports whether a note holds a value of kind t: search asks only for the kind its
// question wants, which spares it the other kinds' patterns on every candidate.
func noteHas(text string, t answerType) bool {
	switch t {
	case answerPerson:
		return email.MatchString(text) || personName(text)
	case answerTime:
		return timeOfDay.MatchString(text) || isoDate.MatchString(text) || frequency.MatchString(text) || hasDateWord(text)
	case answerNumber:
		return number.MatchString(text)
	case answerPlace:
		return place.MatchString(text)
	}
	return false
}

func hasDateWord(text string) bool {
	for _, w := range lexicon.Words(text) {
		if monthName[w] || months[w] {
			return true
		}
	}
	return false
}

// personName reports two capitalised words in a row, neither a month or weekday ("Anna
// García", "Jonas Costa"), also at the start of the note ("Amir Lindqvist from payments owns
// admin-portal"): a note opens with one capitalised word, not two, unless it names something.
func personName(text string) bool {
	ts := factTokens(text)
	for i := 0; i+1 < len(ts); i++ {
		a, b := ts[i], ts[i+1]
		if capital(a.text) && capital(b.text) && !months[a.key] && !months[b.key] && !smallWord(a.key) &&
			strings.IndexFunc(a.text+b.text, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
			return true
		}
	}
	return false
}

func capital(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}
