package lexicon

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// needOS skips a test of the OS-packaged data where it is not installed, and fails it under
// CI=true, where .ci/run installs wordnet-base and the dict-freedict packages.
func needOS(t *testing.T, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing under CI (apt-get install %s; .ci/run installs it): %v", path, pkg, err)
		}
		t.Skipf("%s not installed (apt-get install %s)", path, pkg)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Auf welchem Port läuft billing?", "de"},
		{"Wer ist unser Ansprechpartner bei Globex?", "de"},
		{"Wie viele Anfragen pro Minute erlaubt gateway?", "de"},
		{"Où sont les journaux de ledger ?", "fr"},
		{"Quelle version de Postgres utilise checkout ?", "fr"},
		{"Combien de requêtes par minute accepte gateway ?", "fr"},
		{"¿Cuántas peticiones por minuto permite gateway?", "es"},
		{"¿Dónde está la configuración de billing-api?", "es"},
		{"Qué significa el error ERR_TOKEN_EXPIRED", "es"},
		{"what port is billing on", "en"},
		{"who is the contact person at Initech?", "en"},
		{"--skip-seed", "en"},
		{"23P01", "en"},
		{"", "en"},
	}
	for _, tt := range tests {
		if got := Detect(tt.in); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStemAndFold(t *testing.T) {
	tests := []struct{ fn, in, want string }{
		{"stem", "deployments", "deploy"},
		{"stem", "listening", "listen"},
		{"stem", "billing-api", "billing-api"}, // identifiers stay whole
		{"stem", "v1.22", "v1.22"},
		{"fold", "Übersicht", "ubersicht"},
		{"fold", "requête", "requete"},
		{"fold", "Straße", "strasse"},
		{"fold", "configuración", "configuracion"},
	}
	for _, tt := range tests {
		var got string
		if tt.fn == "stem" {
			got = Stem(tt.in)
		} else {
			got = Fold(tt.in)
		}
		if got != tt.want {
			t.Errorf("%s(%q) = %q, want %q", tt.fn, tt.in, got, tt.want)
		}
	}
	if Stem("deployments") != Stem("deployment") {
		t.Error("memoised stems differ for one stem")
	}
}

func TestWordVectors(t *testing.T) {
	port, ship := Vector("port"), Vector("ship")
	if len(port) != VectorDim || Vector("zzqxj-not-a-word") != nil {
		t.Fatalf("Vector(port) has %d dims, want %d; unknown words give nil", len(port), VectorDim)
	}
	var n float32
	for _, x := range port {
		n += x * x
	}
	if n < 0.99 || n > 1.01 {
		t.Errorf("|Vector(port)|² = %v, want 1", n)
	}
	if related, unrelated := Dot(Vector("contract"), Vector("agreement")), Dot(Vector("contract"), Vector("banana")); related <= unrelated {
		t.Errorf("cos(contract, agreement) = %v not above cos(contract, banana) = %v", related, unrelated)
	}
	if SIFWeight("the") >= SIFWeight("postgres") {
		t.Errorf("SIF weight of the (%v) not below postgres (%v)", SIFWeight("the"), SIFWeight("postgres"))
	}
	if SentenceVector([]string{"zzqxj"}) != nil || SentenceVector([]string{"port", "ship"}) == nil {
		t.Error("SentenceVector: nil only when no word has a vector")
	}
	_ = ship
}

func TestWordNetSynonyms(t *testing.T) {
	needOS(t, filepath.Join(DefaultWordNetDir, "index.noun"), "wordnet-base")
	l := New(Config{})
	tests := []struct {
		word string
		has  string
	}{
		{"owner", "proprietor"},
		{"disk", "disc"},
		{"backup", "substitute"},
	}
	for _, tt := range tests {
		if got := l.Synonyms(tt.word); !slices.Contains(got, tt.has) {
			t.Errorf("Synonyms(%q) = %v, want %q among them", tt.word, got, tt.has)
		}
	}
	if got := l.Synonyms("zzqxj"); len(got) != 0 {
		t.Errorf("Synonyms(unknown) = %v", got)
	}
	// The first and the last lines of an index are found too (binary search edges).
	if got := l.wn.lookup("noun", "'hood"); got == "" {
		t.Error("lookup of the first noun found nothing")
	}
	if got := l.wn.lookup("noun", "zyrian"); got == "" {
		t.Error("lookup of the last noun found nothing")
	}
	off := New(Config{WordNetDir: "off"})
	if got := off.Synonyms("owner"); got != nil {
		t.Errorf("Synonyms with WordNet off = %v", got)
	}
}

func TestTranslate(t *testing.T) {
	needOS(t, filepath.Join(DefaultDictDir, "freedict-deu-eng.index"), "dict-freedict-deu-eng")
	needOS(t, filepath.Join(DefaultDictDir, "freedict-fra-eng.index"), "dict-freedict-fra-eng")
	needOS(t, filepath.Join(DefaultDictDir, "freedict-spa-eng.index"), "dict-freedict-spa-eng")
	l := New(Config{})
	tests := []struct {
		lang, word, has string
	}{
		{"de", "Vertrag", "contract"},
		{"de", "Festplatte", "disk"},
		{"de", "Lizenzen", "licenses"},             // an inflected form
		{"de", "Umgebungsvariable", "variable"},    // a compound
		{"de", "Produktionsdatenbank", "database"}, // a compound with a linking s
		{"fr", "contrat", "contract"},
		{"fr", "équipe", "team"},
		{"es", "puerto", "port"},
		{"es", "contrato", "contract"},
	}
	for _, tt := range tests {
		if got := l.Translate(tt.lang, tt.word); !slices.Contains(got, tt.has) {
			t.Errorf("Translate(%s, %q) = %v, want %q among them", tt.lang, tt.word, got, tt.has)
		}
	}
	if got := l.Translate("de", "zzqxjqqz"); got != nil {
		t.Errorf("Translate(unknown) = %v", got)
	}
	if got := New(Config{DictDir: "off"}).Translate("de", "Vertrag"); got != nil {
		t.Errorf("Translate with the dictionaries off = %v", got)
	}
}

func TestSources(t *testing.T) {
	missing := New(Config{WordNetDir: t.TempDir(), DictDir: t.TempDir()})
	for _, s := range missing.Sources() {
		if s.Package != "" && s.Found {
			t.Errorf("source %s found in an empty directory", s.Name)
		}
		if s.Package == "" && !s.Found {
			t.Errorf("compiled-in source %s not found", s.Name)
		}
		if s.Licence == "" || s.Use == "" {
			t.Errorf("source %+v lacks its licence or use", s)
		}
		if strings.Contains(s.Licence, "GPL") && s.Package == "" {
			t.Errorf("GPL data %s must come from an OS package, never compiled in", s.Name)
		}
	}
}
