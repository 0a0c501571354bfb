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
	cands := make([]cand, 0, windows)
	for w := range windows {
		var sc float64
		for i := 0; i < k; i += stride {
			sc += lineSim(fk[w+i], wk[i])
		}
		cands = append(cands, cand{w, sc})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	best := -1.0
	var out *Nearest
	for _, c := range cands[:min(5, len(cands))] {
		text := strings.Join(fileLines[c.start:c.start+k], "\n")
		ref := strings.Join(wantLines[:k], "\n")
		d := dmp.DiffMain(ref, text, false)
		n := max(utf8.RuneCountInString(ref), utf8.RuneCountInString(text), 1)
		sim := 1 - float64(dmp.DiffLevenshtein(d))/float64(n)
		if sim > best {
			best = sim
			out = &Nearest{StartLine: c.start + 1, EndLine: c.start + k, Text: text, Similarity: sim}
		}
	}
	header := "file " + lineSpan(out.StartLine, out.EndLine)
	out.Diff = UnifiedDiff(label, header, []byte(strings.Join(wantLines, "\n")+"\n"), []byte(out.Text+"\n"), 2)
	return out
}

// lineKey is a line reduced to what a careless copy usually preserves.
func lineKey(l string) string {
	l = strings.TrimSpace(l)
	for i := 0; i < len(l); i++ {
		if l[i] >= utf8.RuneSelf {
			return normalize(l, levelPunct, false).s
		}
	}
	return l
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
