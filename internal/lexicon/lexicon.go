package lexicon

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
)

// Config says where the OS-packaged data is. Empty fields mean the Debian locations; "off"
// disables a source.
type Config struct {
	WordNetDir string
	DictDir    string
}

// Lexicon answers word questions from the compiled-in data and the OS packages it finds. It is
// safe for concurrent use; everything is read on first use.
type Lexicon struct {
	wn      wordNet
	dictDir string
	mu      sync.Mutex
	dicts   map[string]*dictState // by source language
}

type dictState struct {
	once sync.Once
	d    *dictionary         // lang → English
	inv  map[string][]string // from the English → lang dictionary, inverted
}

// Languages are the languages Translate knows, with the FreeDict pairs read for each.
var Languages = map[string][]string{
	"de": {"deu-eng"},
	"fr": {"fra-eng", "eng-fra"},
	"es": {"spa-eng", "eng-spa"},
}

// New returns a Lexicon reading the OS packages where cfg says.
func New(cfg Config) *Lexicon {
	l := &Lexicon{dicts: map[string]*dictState{}}
	switch cfg.WordNetDir {
	case "":
		l.wn.dir = DefaultWordNetDir
	case "off":
	default:
		l.wn.dir = cfg.WordNetDir
	}
	switch cfg.DictDir {
	case "":
		l.dictDir = DefaultDictDir
	case "off":
	default:
		l.dictDir = cfg.DictDir
	}
	return l
}

// Source describes one data source for toolhost doctor.
type Source struct {
	Name    string `json:"name"`
	Package string `json:"package,omitempty"` // the Debian package that provides it
	Path    string `json:"path,omitempty"`
	Found   bool   `json:"found"`
	Licence string `json:"licence"`
	Use     string `json:"use"`
}

// Sources lists the data sources and whether each is there. It only looks at files.
func (l *Lexicon) Sources() []Source {
	exists := func(p string) bool {
		if p == "" {
			return false
		}
		_, err := os.Stat(p)
		return err == nil
	}
	out := []Source{
		{Name: "snowball-english", Found: true, Licence: "BSD-3-Clause / MIT (compiled in)", Use: "stems"},
		{Name: "glove-6b-100d", Found: len(gloveBlob) > 0, Licence: "PDDL via MIT package (compiled in)", Use: "word vectors"},
		{Name: "wordnet", Package: "wordnet-base", Path: l.wn.dir, Found: l.wn.dir != "" && exists(filepath.Join(l.wn.dir, "index.noun")),
			Licence: "WordNet 3.0 licence (read at run time)", Use: "synonyms"},
	}
	for _, lang := range []string{"de", "fr", "es"} {
		for _, pair := range Languages[lang] {
			p := ""
			if l.dictDir != "" {
				p = dictFile(l.dictDir, pair)
			}
			out = append(out, Source{Name: "freedict-" + pair, Package: "dict-freedict-" + pair, Path: p,
				Found: exists(p + ".index"), Licence: "GPL (read at run time, never compiled in)", Use: "translation " + lang + "→en"})
		}
	}
	return out
}

// Synonyms returns WordNet synonyms of a lower-case English word (its first senses), or nil
// without WordNet.
func (l *Lexicon) Synonyms(word string) []string {
	if l.wn.dir == "" {
		return nil
	}
	return l.wn.synonyms(word)
}

func (l *Lexicon) dict(lang string) *dictState {
	l.mu.Lock()
	ds := l.dicts[lang]
	if ds == nil {
		ds = &dictState{}
		l.dicts[lang] = ds
	}
	l.mu.Unlock()
	ds.once.Do(func() {
		if l.dictDir == "" {
			return
		}
		pairs := Languages[lang]
		if len(pairs) == 0 {
			return
		}
		ds.d, _ = openDictionary(dictFile(l.dictDir, pairs[0]))
		if len(pairs) > 1 {
			ds.inv = invert(dictFile(l.dictDir, pairs[1]))
		}
	})
	return ds
}

// invert reads a whole (small) English → lang dictionary and maps each lang word to the
// English headwords it translates.
func invert(path string) map[string][]string {
	d, err := openDictionary(path)
	if err != nil {
		return nil
	}
	inv := map[string][]string{}
	for i, key := range d.keys {
		if strings.ContainsAny(key, "0123456789") {
			continue
		}
		for _, l := range d.locs[i] {
			raw, err := d.dz.read(int64(l.off), int(l.n))
			if err != nil {
				continue
			}
			for _, t := range translations(string(raw)) {
				if strings.Contains(t, " ") {
					continue
				}
				t = Fold(t)
				if len(inv[t]) < 4 && !contains(inv[t], key) {
					inv[t] = append(inv[t], key)
				}
			}
		}
	}
	return inv
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// maxTranslations caps the English words one foreign word becomes.
const maxTranslations = 6

// Translate returns English words for a lower-case word of lang ("de", "fr", "es"), from the
// FreeDict dictionaries: the word itself, else a form without its inflection ending, else (for
// German compounds) the translations of its parts. Nil when nothing is found or the
// dictionaries are not installed.
func (l *Lexicon) Translate(lang, word string) []string {
	ds := l.dict(lang)
	if ds.d == nil && ds.inv == nil {
		return nil
	}
	key := Fold(word)
	for _, form := range lookupForms(lang, key) {
		if out := ds.lookup(form); len(out) > 0 {
			return out
		}
	}
	if lang == "de" && utf8.RuneCountInString(key) >= 8 {
		// Compounds: Produktionsdatenbank = Produktion(s) + Datenbank. The longest known tail
		// wins; the head is translated too when it is known.
		r := []rune(key)
		for i := 3; i <= len(r)-4; i++ {
			tail := ds.lookupAny(lookupForms(lang, string(r[i:])))
			if len(tail) == 0 {
				continue
			}
			head := string(r[:i])
			out := ds.lookupAny(lookupForms(lang, strings.TrimSuffix(head, "s")))
			if len(out) == 0 {
				out = ds.lookupAny(lookupForms(lang, head))
			}
			return append(out[:min(len(out), 2)], tail...)
		}
	}
	return nil
}

func (ds *dictState) lookupAny(forms []string) []string {
	for _, f := range forms {
		if out := ds.lookup(f); len(out) > 0 {
			return out
		}
	}
	return nil
}

// lookup translates one folded form.
func (ds *dictState) lookup(key string) []string {
	var out []string
	add := func(w string) {
		if len(out) < maxTranslations && w != "" && !contains(out, w) {
			out = append(out, w)
		}
	}
	if ds.d != nil {
		// The first two renderings of each sense: a word's senses matter more than the
		// synonyms within one.
		for _, def := range ds.d.definitions(key) {
			ts := translations(def)
			for _, t := range ts[:min(len(ts), 2)] {
				for _, w := range strings.Fields(t) {
					if w != "a" && w != "an" && w != "the" && w != "sth" && w != "sb" && w != "something" && w != "somebody" {
						add(strings.Trim(w, ".!?\"'"))
					}
				}
			}
		}
	}
	for _, w := range ds.inv[key] {
		add(w)
	}
	return out
}

// lookupForms are the forms a folded word is looked up under, the word first.
func lookupForms(lang, key string) []string {
	out := []string{key}
	var sufs []string
	switch lang {
	case "de":
		sufs = []string{"en", "n", "e", "es", "s", "er", "em"}
	case "fr":
		sufs = []string{"s", "x", "es"}
	case "es":
		sufs = []string{"s", "es"}
	}
	for _, s := range sufs {
		if b, ok := strings.CutSuffix(key, s); ok && utf8.RuneCountInString(b) >= 3 {
			out = append(out, b)
		}
	}
	return out
}
