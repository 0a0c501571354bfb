package edit

import (
	"sort"
	"strings"
)

// The tolerant rungs of the ladder match the model's text line by line: each line reduced to a
// key that ignores what the rung ignores (line endings, trailing whitespace, indentation,
// Unicode punctuation), blank lines optionally skipped on either side, and for patches a
// context line the model left out or got slightly wrong. A match records which file line each
// of the model's lines stands for, so the writer (merge.go) can keep every byte the model did
// not mean to change.

// blockQuery is a block of the model's lines to find in the file.
type blockQuery struct {
	old []string // the model's lines, without terminators
	lv  level
	// gaps lets blank lines be missing on either side (a copy that lost or added one).
	gaps bool
	// partial lets the first line match the end of a file line and the last line its start,
	// as a substring does; complete says the model's text ended with a line break, so its last
	// line is a whole line.
	partial, complete bool
	// skippable reports whether a file line the model left out may sit before old[i]; at most
	// maxSkip such lines in all.
	skippable func(i int) bool
	maxSkip   int
	// fuzzy reports whether old[i] may differ from its file line (context of a patch); at
	// most maxFuzz such lines, each still similar to the file's.
	fuzzy   func(i int) bool
	maxFuzz int
}

// blockMatch is one place the block matches.
type blockMatch struct {
	start, end int // file lines [start, end)
	// pair[i] is the file line old[i] stands for, -1 for a blank line the file does not have.
	pair []int
	// startCol is the byte of the first file line where the match begins, endCol the byte of
	// the last where it ends.
	startCol, endCol int
	skips, fuzz      int
}

// fileKeys caches the keys of a file's lines at each level.
type fileKeys struct {
	lines []string
	keys  map[level][]string
}

func newFileKeys(lines []string) *fileKeys {
	return &fileKeys{lines: lines, keys: map[level][]string{}}
}

func (fk *fileKeys) at(lv level) []string {
	if ks, ok := fk.keys[lv]; ok {
		return ks
	}
	ks := make([]string, len(fk.lines))
	for i, l := range fk.lines {
		ks[i] = lineKeyAt(l, lv)
	}
	fk.keys[lv] = ks
	return ks
}

// lineKeyAt is one line's key at a level. ASCII lines without inner runs of whitespace, most
// lines of code, take a fast path.
func lineKeyAt(l string, lv level) string {
	switch lv {
	case levelLineEndings:
		return strings.TrimSuffix(l, "\r")
	case levelTrailing:
		return strings.TrimRight(l, " \t\r")
	case levelIndent:
		return strings.TrimLeft(strings.TrimRight(l, " \t\r"), " \t")
	}
	t := strings.TrimLeft(strings.TrimRight(l, " \t\r"), " \t")
	if isASCII(t) && (lv == levelPunct || !strings.Contains(t, "  ") && !strings.Contains(t, "\t")) {
		return t
	}
	return normalize(l, lv, false).s
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// findBlock returns every place q matches in the file, first line first. With gaps, blank
// lines that open or close the model's block anchor nothing and stand for no file line.
func findBlock(fk *fileKeys, q blockQuery) []blockMatch {
	n := len(q.old)
	lo, hi := 0, n-1
	if q.gaps {
		for lo < n && isBlank(q.old[lo]) {
			lo++
		}
		for hi > lo && isBlank(q.old[hi]) {
			hi--
		}
		if lo == n {
			return nil
		}
	}
	if lo > 0 || hi < n-1 {
		inner := q
		inner.old = q.old[lo : hi+1]
		inner.partial = false
		if q.skippable != nil {
			inner.skippable = func(i int) bool { return q.skippable(i + lo) }
		}
		if q.fuzzy != nil {
			inner.fuzzy = func(i int) bool { return q.fuzzy(i + lo) }
		}
		ms := findBlock(fk, inner)
		for j := range ms {
			pair := make([]int, n)
			for i := range pair {
				pair[i] = -1
			}
			copy(pair[lo:], ms[j].pair)
			ms[j].pair = pair
		}
		return ms
	}
	if n == 0 {
		return nil
	}
	keys := fk.at(q.lv)
	ok := make([]string, n)
	for i, l := range q.old {
		ok[i] = lineKeyAt(l, q.lv)
	}
	lines := fk.lines
	if n == 1 && q.partial {
		return findInLines(fk, q, ok[0])
	}
	// At the indentation rungs a first line that carries indentation is a whole line; without
	// any, the copy may have started after the file's indentation or mid-line.
	firstWhole := !q.partial || (q.lv >= levelIndent && leadingWS(q.old[0]) != "")
	var out []blockMatch
	fuzzyFirst := q.fuzzy != nil && q.maxFuzz > 0 && q.fuzzy(0)
	for j := range lines {
		m := blockMatch{start: j}
		switch {
		case keys[j] == ok[0]:
			m.startCol = q.startColWhole(lines[j])
		case !firstWhole && ok[0] != "" && strings.HasSuffix(keys[j], ok[0]):
			col, found := suffixCol(lines[j], ok[0], q.lv)
			if !found {
				continue
			}
			m.startCol = col
		case fuzzyFirst && similarLine(ok[0], keys[j]):
			m.fuzz = 1
		default:
			continue
		}
		m.pair = make([]int, n)
		m.pair[0] = j
		if !walkBlock(fk, keys, ok, q, &m, 1, j+1) {
			continue
		}
		out = append(out, m)
	}
	if q.lv >= levelIndent {
		kept := out[:0]
		for _, m := range out {
			if indentConsistent(q.old, lines, m) {
				kept = append(kept, m)
			}
		}
		out = kept
	}
	return out
}

// startColWhole is where a whole-line match of the first line begins: at the line's start, or
// after its indentation when the model's copy has none (it started after it).
func (q blockQuery) startColWhole(line string) int {
	if q.partial && q.lv >= levelIndent && leadingWS(q.old[0]) == "" {
		return len(leadingWS(line))
	}
	return 0
}

// walkBlock matches old[i:] from file line k onwards, completing m.
func walkBlock(fk *fileKeys, keys, ok []string, q blockQuery, m *blockMatch, i, k int) bool {
	n := len(q.old)
	lines := fk.lines
	last := k - 1
	for i < n {
		isLast := i == n-1
		if k < len(lines) && lineFits(keys[k], ok[i], isLast, q) {
			m.pair[i] = k
			last = k
			i++
			k++
			continue
		}
		if q.gaps && isBlank(q.old[i]) {
			m.pair[i] = -1
			i++
			continue
		}
		if k < len(lines) && q.gaps && isBlank(lines[k]) && i > 0 {
			k++
			continue
		}
		if q.skippable != nil && m.skips < q.maxSkip && q.skippable(i) {
			skipped := false
			for s := 1; s <= q.maxSkip-m.skips && k+s < len(lines); s++ {
				if lineFits(keys[k+s], ok[i], isLast, q) {
					m.skips += s
					k += s
					skipped = true
					break
				}
			}
			if skipped {
				continue
			}
		}
		if k < len(lines) && q.fuzzy != nil && m.fuzz < q.maxFuzz && q.fuzzy(i) && similarLine(ok[i], keys[k]) {
			m.fuzz++
			m.pair[i] = k
			last = k
			i++
			k++
			continue
		}
		return false
	}
	if last < m.start {
		return false
	}
	m.end = last + 1
	lastLine := lines[last]
	switch {
	case !q.partial || q.complete || keys[last] == ok[n-1]:
		m.endCol = len(lastLine)
	default:
		col, found := prefixCol(lastLine, ok[n-1], q.lv)
		if !found {
			return false
		}
		m.endCol = col
	}
	return true
}

// lineFits reports whether a model line (key o) stands for a file line (key f): equal keys, or
// for the last line of a partial match the start of the file line.
func lineFits(f, o string, isLast bool, q blockQuery) bool {
	if f == o {
		return true
	}
	return isLast && q.partial && !q.complete && o != "" && strings.HasPrefix(f, o)
}

// similarLine reports whether two keys are alike enough for a context line the model got
// slightly wrong (a value it already changed in its head, a reworded message): they share
// most of their three-letter pieces.
func similarLine(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if len(a) < 6 || len(b) < 6 {
		return false
	}
	ga, gb := trigrams(a), trigrams(b)
	common := 0
	for g := range ga {
		if gb[g] {
			common++
		}
	}
	return 2*float64(common)/float64(len(ga)+len(gb)) >= 0.4
}

// suffixCol returns the byte of line where a match of key (as a suffix of the line's key)
// begins.
func suffixCol(line, key string, lv level) (int, bool) {
	nt := normalize(line, lv, true)
	at := len(nt.s) - len(key)
	if at < 0 || nt.s[at:] != key {
		return 0, false
	}
	if at == len(nt.s) {
		return len(line), true
	}
	return int(nt.start[at]), true
}

// prefixCol returns the byte of line where a match of key (as a prefix of the line's key) ends.
func prefixCol(line, key string, lv level) (int, bool) {
	nt := normalize(line, lv, true)
	if !strings.HasPrefix(nt.s, key) {
		return 0, false
	}
	if key == "" {
		return 0, true
	}
	return int(nt.end[len(key)-1]), true
}

// findInLines finds a one-line text anywhere inside lines, as replace_string's substring does.
// Leading whitespace the model typed pins the match to the start of a line's content, and
// trailing whitespace to its end.
func findInLines(fk *fileKeys, q blockQuery, key string) []blockMatch {
	if key == "" {
		return nil
	}
	keys := fk.at(q.lv)
	o := q.old[0]
	needStart := q.lv >= levelIndent && leadingWS(o) != ""
	needEnd := q.lv >= levelTrailing && (strings.TrimRight(o, " \t") != o || q.complete)
	var out []blockMatch
	for j, k := range keys {
		if !strings.Contains(k, key) {
			continue
		}
		var nt normText
		mapped := false
		for _, p := range indexAll(k, key) {
			e := p + len(key)
			if needStart && p != 0 || needEnd && e != len(k) {
				continue
			}
			if !mapped {
				nt = normalize(fk.lines[j], q.lv, true)
				mapped = true
			}
			m := blockMatch{start: j, end: j + 1, pair: []int{j}, startCol: int(nt.start[p]), endCol: int(nt.end[e-1])}
			if p == 0 {
				m.startCol = q.startColWhole(fk.lines[j])
				if needStart {
					m.startCol = 0
				}
			}
			if e == len(k) && (needEnd || q.lv >= levelTrailing) {
				m.endCol = len(fk.lines[j])
			}
			out = append(out, m)
		}
	}
	return out
}

// tabWidth measures indentation for comparing the model's with the file's.
const tabWidth = 8

func indentWidth(ws string) int {
	w := 0
	for _, c := range ws {
		if c == '\t' {
			w += tabWidth - w%tabWidth
		} else {
			w++
		}
	}
	return w
}

// indentConsistent reports whether the model's indentation orders its lines as the file's does:
// lines indented alike in the copy are alike in the file, and deeper lines deeper. A copy in
// another unit, another scale or shifted by a level passes; a copy that nests differently (in
// Python, a different program) does not.
func indentConsistent(old, lines []string, m blockMatch) bool {
	type pw struct{ mw, fw int }
	var ps []pw
	for i, f := range m.pair {
		if f < 0 || isBlank(old[i]) || i == 0 && firstUnindented(old) {
			continue
		}
		ps = append(ps, pw{indentWidth(leadingWS(old[i])), indentWidth(leadingWS(lines[f]))})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].mw < ps[j].mw })
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1], ps[i]
		if a.mw == b.mw && a.fw != b.fw || a.mw < b.mw && a.fw >= b.fw {
			return false
		}
	}
	return true
}

// firstDivergence returns the first of the model's lines that differs from the file window
// starting at line from (0-based), as indexes into old and the file, comparing keys that
// ignore whitespace and punctuation first and the raw text after.
func firstDivergence(old, lines []string, from int) (oi, fi int) {
	for _, lv := range []level{levelPunct, levelLineEndings} {
		k := from
		for i, o := range old {
			if k >= len(lines) {
				return i, len(lines) - 1
			}
			if lineKeyAt(o, lv) != lineKeyAt(lines[k], lv) {
				return i, k
			}
			k++
		}
	}
	return -1, -1
}

// firstUnindented reports whether the first of several lines of a copy has no indentation: a
// copy that starts after the first line's indentation (or mid-line) says nothing about it.
func firstUnindented(old []string) bool {
	return len(old) > 1 && leadingWS(old[0]) == ""
}
