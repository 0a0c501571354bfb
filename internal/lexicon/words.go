package lexicon

import (
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/spanish"
	"golang.org/x/text/unicode/norm"
)

// Stem returns the Snowball English stem of a lower-case word ("deployments" → "deploy").
// Words with digits or inner punctuation (versions, identifiers) are returned as they are.
// Stems are memoised: a search stems the same few thousand words again and again.
func Stem(word string) string {
	if !plain(word) {
		return word
	}
	if s, ok := stems.get(word); ok {
		return s
	}
	s := english.Stem(word, true)
	stems.put(word, s)
	return s
}

// memo is a bounded map shared by every caller; it is cleared whole when full (the words of
// project notes are few, so that is rare).
type memo[V any] struct {
	mu sync.RWMutex
	m  map[string]V
}

const memoSize = 1 << 16

func (c *memo[V]) get(k string) (V, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

func (c *memo[V]) put(k string, v V) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= memoSize {
		c.m = make(map[string]V, 1024)
	}
	c.m[k] = v
	c.mu.Unlock()
}

var stems memo[string]

// StemIn stems a word of lang ("en", "fr", "es"); German and unknown languages get a light
// suffix strip (see germanStem).
func StemIn(lang, word string) string {
	if !plain(word) {
		return word
	}
	switch lang {
	case "en":
		return english.Stem(word, true)
	case "fr":
		return french.Stem(word, true)
	case "es":
		return spanish.Stem(word, true)
	case "de":
		return germanStem(word)
	}
	return word
}

// germanStem strips the commonest German inflection endings, for dictionary look-ups only: no
// Snowball German stemmer exists as a Go module we can use (kljensen/snowball has none).
func germanStem(w string) string {
	for _, suf := range []string{"ungen", "en", "er", "es", "em", "n", "e", "s"} {
		if len([]rune(w)) > len([]rune(suf))+3 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

func plain(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

// Fold lower-cases s and removes accents ("Übersicht" → "ubersicht", "requête" → "requete"),
// for matching words whose writers did not type their accents.
func Fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		switch r {
		case 'ß':
			b.WriteString("ss")
			continue
		case 'œ':
			b.WriteString("oe")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Words splits text into lower-case runs of letters and digits ("billing-api" → "billing",
// "api").
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
