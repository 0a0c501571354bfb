package edit

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Nearest describes the part of a file most similar to a text that did not
// match, so the model can copy the real text into its next call.
type Nearest struct {
	StartLine, EndLine int // 1-based, inclusive
	Text               string
	// Similarity is 1 - (edit distance / length), in [0, 1].
	Similarity float64
	// Diff is a line diff from the searched text ('-') to the file's
	// lines ('+').
	Diff string
}

// maxNearestWork bounds the cheap scoring pass (window count × lines).
const maxNearestWork = 4_000_000

// FindNearest returns the window of the file's lines most similar to want,
// or nil when the file or want is empty. It scores every window of
// len(want lines) lines cheaply, then ranks the best few by edit distance
// (go-diff, with a timeout).
func FindNearest(s, want string) *Nearest {
	return findNearest(s, want, "old_string")
}

// findNearest is FindNearest with the diff's label for want.
func findNearest(s, want, label string) *Nearest {
	fileLines := splitLines(s)
	wantLines := splitLines(want)
	if len(fileLines) == 0 || len(wantLines) == 0 {
		return nil
	}
	k := min(len(wantLines), len(fileLines))
	fk := make([]string, len(fileLines))
	for i, l := range fileLines {
		fk[i] = lineKey(l)
	}
	wk := make([]string, len(wantLines))
	for i, l := range wantLines {
		wk[i] = lineKey(l)
	}
	stride := 1
	windows := len(fileLines) - k + 1
	for windows*(k/stride) > maxNearestWork {
		stride++
	}
	type cand struct {
		start int
		score float64
	}
	// One line of old_string is often part of a file line (its start, a
	// call in the middle): score it by how much of it the line contains.
	var wantGrams map[string]bool
	if k == 1 {
		wantGrams = trigrams(wk[0])
		if windows*len(wantGrams) > maxNearestWork {
			wantGrams = nil // a huge file: whole-line similarity only
		}
	}
	cands := make([]cand, 0, windows)
	for w := range windows {
		var sc float64
		for i := 0; i < k; i += stride {
			sc += lineSim(fk[w+i], wk[i])
		}
		if wantGrams != nil {
			sc = max(sc, containment(wantGrams, fk[w]))
		}
		cands = append(cands, cand{w, sc})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	best, bestEq := -1.0, -1
	var out *Nearest
	for _, c := range cands[:min(5, len(cands))] {
		// Lines equal to the model's come first: a window that aligns most of them is the
		// place, even when a shifted window is closer character by character.
		eq := 0
		for i := range k {
			if fk[c.start+i] == wk[i] {
				eq++
			}
		}
		text := strings.Join(fileLines[c.start:c.start+k], "\n")
		// Similarity ignores what the ladder ignores (indentation, punctuation, alignment):
		// a copy with tabs for spaces and one changed line is near, not far.
		ref := strings.Join(wk[:k], "\n")
		d := dmp.DiffMain(ref, strings.Join(fk[c.start:c.start+k], "\n"), false)
		// File text before the start or after the end of want, within the
		// first and last line, is not a difference: want may begin or end
		// mid-line.
		inner, cut := trimEndInserts(d)
		n := max(utf8.RuneCountInString(ref), utf8.RuneCountInString(strings.Join(fk[c.start:c.start+k], "\n"))-cut, 1)
		sim := 1 - float64(dmp.DiffLevenshtein(inner))/float64(n)
		if eq > bestEq || eq == bestEq && sim > best {
			best, bestEq = sim, eq
			out = &Nearest{StartLine: c.start + 1, EndLine: c.start + k, Text: text, Similarity: sim}
		}
	}
	header := "file " + lineSpan(out.StartLine, out.EndLine)
	out.Diff = UnifiedDiff(label, header, []byte(strings.Join(wantLines, "\n")+"\n"), []byte(out.Text+"\n"), 2)
	return out
}

// lineKey is a line reduced to what a careless copy usually preserves.
func lineKey(l string) string {
	return lineKeyAt(strings.TrimSpace(l), levelSpaces)
}

// lineSim is a cheap similarity in [0, 1]: the share of the longer line
// covered by the common prefix and suffix.
func lineSim(a, b string) float64 {
	if a == b {
		return 1
	}
	n := max(len(a), len(b))
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	return float64(p+q) / float64(n)
}

// trimEndInserts drops insertions (file text) at the very start and end of
// a diff that stay within one line, and returns how many runes it dropped.
func trimEndInserts(d []diffmatchpatch.Diff) ([]diffmatchpatch.Diff, int) {
	cut := 0
	if len(d) > 1 && d[0].Type == diffmatchpatch.DiffInsert && !strings.Contains(d[0].Text, "\n") {
		cut += utf8.RuneCountInString(d[0].Text)
		d = d[1:]
	}
	if l := len(d) - 1; l > 0 && d[l].Type == diffmatchpatch.DiffInsert && !strings.Contains(d[l].Text, "\n") {
		cut += utf8.RuneCountInString(d[l].Text)
		d = d[:l]
	}
	return d, cut
}

// trigrams is the set of 3-byte substrings of s.
func trigrams(s string) map[string]bool {
	m := make(map[string]bool, len(s))
	for i := 0; i+3 <= len(s); i++ {
		m[s[i:i+3]] = true
	}
	return m
}

// containment is the share of want's trigrams found in line, a cheap
// measure of how much of want the line holds anywhere in it.
func containment(want map[string]bool, line string) float64 {
	if len(want) == 0 || len(line) < 3 {
		return 0
	}
	found := 0
	for g := range want {
		if strings.Contains(line, g) {
			found++
		}
	}
	return float64(found) / float64(len(want))
}
