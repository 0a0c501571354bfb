package embed

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// needBuiltin skips tests of the built-in model in a build without its weights.
func needBuiltin(t testing.TB) {
	t.Helper()
	if !BuiltinAvailable() {
		t.Skip("built with -tags nouselite")
	}
}

func TestEmbedTokensCutsLongText(t *testing.T) {
	needBuiltin(t)
	u := NewUSELite()
	tok, err := u.tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
	}{
		{"prose", strings.Repeat("The deployment to eu-west-1 failed because the migration timed out. ", 2000)},
		{"one letter", strings.Repeat("x", 50000)},
		{"no spaces", strings.Repeat("internationalization", 3000)},
		{"short", "hello world"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := tok.encode(tt.text)
			cut := embedTokens(tok, tt.text)
			n := min(len(full), useMaxTokens)
			if len(cut) < n {
				t.Fatalf("embedTokens kept %d tokens, want at least %d", len(cut), n)
			}
			if diff := cmp.Diff(full[:n], cut[:n]); diff != "" {
				t.Errorf("first %d tokens differ after the cut (-full +cut):\n%s", n, diff)
			}
		})
	}
}

// FuzzTokenize checks that any input tokenizes without panicking into ids of the vocabulary,
// and that Embed's cut of long texts keeps the first window of tokens.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", " ", "hello world", "naïve café", "日本語", "🎉🚀", "a\x00b", "\xff", "  double  "} {
		f.Add(s)
	}
	u := NewUSELite()
	f.Fuzz(func(t *testing.T, s string) {
		needBuiltin(t)
		ids := u.Tokenize(s)
		for _, id := range ids {
			if id < 0 || id >= useVocab {
				t.Fatalf("Tokenize(%q) produced id %d outside the vocabulary", s, id)
			}
		}
		if s != "" && len(ids) == 0 && strings.TrimSpace(s) != "" {
			t.Fatalf("Tokenize(%q) = no tokens", s)
		}
	})
}
