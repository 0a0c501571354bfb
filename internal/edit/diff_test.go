package edit

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"equal", "a\n", "a\n", ""},
		{"change middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"add to empty", "", "x\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n"},
		{"remove final newline", "a\nb\n", "a\nb", "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"CRLF to LF shows", "a\r\n", "a\n", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+a\n"},
		{"two hunks", strings.Repeat("x\n", 3) + "a\n" + strings.Repeat("y\n", 10) + "b\n", strings.Repeat("x\n", 3) + "A\n" + strings.Repeat("y\n", 10) + "B\n",
			"--- a\n+++ b\n@@ -1,7 +1,7 @@\n x\n x\n x\n-a\n+A\n y\n y\n y\n@@ -12,4 +12,4 @@\n y\n y\n y\n-b\n+B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnifiedDiff("a", "b", []byte(tt.a), []byte(tt.b), 3); got != tt.want {
				t.Errorf("UnifiedDiff(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// TestUnifiedDiffRoundTrip applies each generated diff with the patch
// engine and expects the new text back, which checks both sides.
func TestUnifiedDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "", "  indented", "\tfunc()", "}"}
	gen := func(n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = words[rng.IntN(len(words))] + fmt.Sprint(rng.IntN(4))
		}
		return ls
	}
	for i := range 300 {
		a := gen(rng.IntN(40))
		b := append([]string(nil), a...)
		for range rng.IntN(5) + 1 {
			switch k := rng.IntN(3); {
			case k == 0 || len(b) == 0:
				p := rng.IntN(len(b) + 1)
				b = append(b[:p], append(gen(rng.IntN(3)+1), b[p:]...)...)
			case k == 1:
				p := rng.IntN(len(b))
				b = append(b[:p], b[p+1:]...)
			default:
				b[rng.IntN(len(b))] = "changed" + fmt.Sprint(i)
			}
		}
		as, bs := strings.Join(a, "\n"), strings.Join(b, "\n")
		if rng.IntN(2) == 0 && as != "" {
			as += "\n"
		}
		if rng.IntN(2) == 0 && bs != "" {
			bs += "\n"
		}
		d := UnifiedDiff("a/f", "b/f", []byte(as), []byte(bs), rng.IntN(4))
		if d == "" {
			if as != bs {
				t.Fatalf("case %d: empty diff for different texts", i)
			}
			continue
		}
		p, err := ParseUnified(d)
		if err != nil {
			t.Fatalf("case %d: ParseUnified(%q) = %v", i, d, err)
		}
		got, err := ApplyHunks([]byte(as), p.Files[0].Hunks)
		if err != nil {
			t.Fatalf("case %d: ApplyHunks(%q, %q) = %v", i, as, d, err)
		}
		if string(got) != bs {
			t.Fatalf("case %d: round trip of\n%s\non %q = %q, want %q", i, d, as, got, bs)
		}
	}
}
