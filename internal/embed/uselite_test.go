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
