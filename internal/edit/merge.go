package edit

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// The writer of tolerant matches. The model's old lines stand for file lines (a blockMatch);
// its new lines say what it changes. The region is rewritten so that:
//
//   - a line the model copied unchanged keeps the file's bytes (its indentation, trailing
//     whitespace, quotes, a blank line holding a tab);
//   - a file line the model's copy left out (a blank line, a skipped context line) stays, unless
//     the model deleted the lines around it;
//   - a line the model changed keeps the file's bytes where the model did not change it (a
//     character diff of the model's old and new line, mapped onto the file's line), and its
//     new parts are written in the file's style: its indentation and its punctuation;
//   - a new line takes the file's indentation for the model's.

// outLine is a line of a rewritten region: a file line kept as it is (file >= 0) or new text.
type outLine struct {
	text string
	file int
	// after is the file line processed just before a new line: it gives the new line its line
	// ending, so a CRLF stretch of a mixed file stays CRLF.
	after int
	// inserted marks text the model added (a blank line here absorbs a kept blank file line).
	inserted bool
}

// regionEdit is a match and the model's change to it.
type regionEdit struct {
	lines []string // the file's lines
	// view, when set, is how the model saw each file line (read_file's U+FFFD for bytes that
	// are not UTF-8); matching and character alignment use it, output the real line.
	view []viewLine
	m    blockMatch
	old  []string // the model's old lines, the first and last completed by the file's text
	new  []string // the model's new lines, completed likewise
	ops  []lineOp // the model's change: ' ' kept (ai, bi), '-' removed ai, '+' added bi
	lv   level
	// fromFile marks new lines whose indentation is already the file's (a first line that
	// begins with the file's text before the match).
	fromFile map[int]bool
}

// viewLine is a file line as read_file showed it, with, for each of its bytes, the bytes of the
// real line it stands for.
type viewLine struct {
	text       string
	start, end []int32
}

// mergeResult is the rewritten region and what was adapted to the file.
type mergeResult struct {
	lines   []outLine
	adapted []string
	// fffd is set when a line the model added holds U+FFFD where the file has bytes read_file
	// could not show: what it stands for cannot be known.
	fffd int // 1-based line of new_string; 0 when none
}

func (e *regionEdit) fileLine(k int) string {
	if e.view != nil {
		return e.view[k].text
	}
	return e.lines[k]
}

// mergeRegion rewrites the matched region: the model's change, walked op by op, with the file
// lines its copy left out put back in their places, then the blank lines that would double
// dropped.
func mergeRegion(e regionEdit) mergeResult {
	r := newRegionMerger(&e)
	for i := 0; i < len(e.ops); {
		op := e.ops[i]
		if op.kind == ' ' {
			r.kept(op.ai)
			i++
			continue
		}
		j := i
		var dels, ins []int
		for j < len(e.ops) && e.ops[j].kind != ' ' {
			if e.ops[j].kind == '-' {
				dels = append(dels, e.ops[j].ai)
			} else {
				ins = append(ins, e.ops[j].bi)
			}
			j++
		}
		i = j
		r.change(dels, ins)
	}
	r.dropDoubledBlanks()
	return r.res
}

// regionMerger is mergeRegion's state as it writes the region's lines.
type regionMerger struct {
	e   *regionEdit
	m   blockMatch
	res mergeResult
	ind *indentMap
	st  *styleMap
	// File lines the model's copy left out sit between two of its lines; each is kept after
	// the line before it, unless the model deleted (without replacing) a line next to it.
	gapsAfter  map[int][]int // old line → the file lines left out after it
	nextPaired map[int]int   // old line → the next old line paired with the file
	deleted    map[int]bool  // old lines removed by a change that adds nothing
	last       int           // the file line processed last
	// Blank lines stand for each other: a blank line of the file the copy left out, and one
	// the model wrote in the same place, are one blank line. gapBlanks counts the file's blank
	// lines just written, newBlanks the model's, each waiting for its twin.
	gapBlanks, newBlanks int
	droppable            map[int]bool // output lines: a left-out blank line next to a deleted line
}

func newRegionMerger(e *regionEdit) *regionMerger {
	m := e.m
	r := &regionMerger{e: e, m: m, gapsAfter: map[int][]int{}, nextPaired: map[int]int{},
		deleted: deletedOnly(e.ops), last: m.start - 1, droppable: map[int]bool{},
		ind: e.indentMap(), st: e.styleMap()}
	prevI, prevF := -1, m.start-1
	for i, f := range m.pair {
		if f < 0 {
			continue
		}
		if prevI >= 0 {
			for k := prevF + 1; k < f; k++ {
				r.gapsAfter[prevI] = append(r.gapsAfter[prevI], k)
			}
			r.nextPaired[prevI] = i
		}
		prevI, prevF = i, f
	}
	r.res.adapted = append(r.res.adapted, r.st.differences()...)
	if r.ind != nil {
		for ow, fw := range r.ind.exact {
			if ow != fw {
				// The copy's indentation is not the file's: what the model wrote is indented
				// like the file.
				r.res.adapted = append(r.res.adapted, "indentation")
				break
			}
		}
	}
	return r
}

// deletedOnly lists the old lines removed by a change that adds nothing.
func deletedOnly(ops []lineOp) map[int]bool {
	deleted := map[int]bool{}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		j, plus := i, false
		for j < len(ops) && ops[j].kind != ' ' {
			plus = plus || ops[j].kind == '+'
			j++
		}
		if !plus {
			for _, op := range ops[i:j] {
				deleted[op.ai] = true
			}
		}
		i = j
	}
	return deleted
}

func (r *regionMerger) emit(o outLine) {
	if o.file >= 0 {
		r.last = o.file
	} else {
		o.after = r.last
	}
	r.res.lines = append(r.res.lines, o)
}

// emitGaps writes the file lines the copy left out after old line i.
func (r *regionMerger) emitGaps(i int) {
	gs := r.gapsAfter[i]
	if len(gs) == 0 {
		return
	}
	nextToDeleted := r.deleted[i] || r.deleted[r.nextPaired[i]]
	for _, k := range gs {
		blank := isBlank(r.e.lines[k])
		if nextToDeleted && !blank {
			r.last = k
			continue
		}
		if blank && r.newBlanks > 0 {
			r.newBlanks--
			r.last = k
			continue // the model wrote this blank line itself
		}
		if nextToDeleted {
			r.droppable[len(r.res.lines)] = true
		}
		r.emit(outLine{file: k})
		if blank {
			r.gapBlanks++
		} else {
			r.gapBlanks = 0
		}
	}
}

func (r *regionMerger) noteAdapted(notes ...string) {
	for _, n := range notes {
		if n != "" && !slices.Contains(r.res.adapted, n) {
			r.res.adapted = append(r.res.adapted, n)
		}
	}
}

// emitNew writes a line the model wrote.
func (r *regionMerger) emitNew(text string) {
	if isBlank(text) {
		if r.gapBlanks > 0 {
			// The file has a blank line here the copy left out; the model's own blank
			// line stands for it.
			r.gapBlanks--
			return
		}
		r.newBlanks++
	} else {
		r.newBlanks = 0
	}
	r.gapBlanks = 0
	r.emit(outLine{text: text, file: -1, inserted: true})
}

// addNew writes the model's new line bi in the file's style.
func (r *regionMerger) addNew(bi int) {
	text, notes := r.e.adaptNew(bi, r.ind, r.st)
	r.noteAdapted(notes...)
	if r.e.view != nil && strings.ContainsRune(text, '\uFFFD') && r.res.fffd == 0 {
		r.res.fffd = bi + 1
	}
	r.emitNew(text)
}

// kept writes the file's line for the model's unchanged old line ai, then what follows it.
func (r *regionMerger) kept(ai int) {
	e := r.e
	if f := r.m.pair[ai]; f >= 0 {
		if fl, ol := strings.TrimLeft(e.fileLine(f), " \t"), strings.TrimLeft(e.old[ai], " \t"); fl != ol && strings.TrimRight(fl, " \t") == strings.TrimRight(ol, " \t") {
			r.noteAdapted("unchanged lines kept as in the file")
		}
		r.emit(outLine{file: f})
		r.gapBlanks, r.newBlanks = 0, 0
	}
	r.emitGaps(ai)
}

// change writes one change of the model (old lines dels become new lines ins): a line edited
// rather than replaced is merged into the file's line, the others removed or added.
func (r *regionMerger) change(dels, ins []int) {
	delPair, insPair := r.e.pairLines(dels, ins)
	dp, ip := 0, 0
	for dp < len(dels) || ip < len(ins) {
		switch {
		case dp < len(dels) && delPair[dp] < 0:
			if f := r.m.pair[dels[dp]]; f >= 0 {
				r.last = f
			}
			r.emitGaps(dels[dp])
			dp++
		case ip < len(ins) && insPair[ip] < 0:
			r.addNew(ins[ip])
			ip++
		default:
			d, n := dels[dp], ins[ip]
			f := r.m.pair[d]
			r.last = f
			text, notes, ok := r.e.mergeLine(d, n, f, r.ind, r.st)
			if !ok {
				r.addNew(n)
			} else {
				r.noteAdapted(notes...)
				r.emitNew(text)
			}
			r.emitGaps(d)
			dp++
			ip++
		}
	}
}

// dropDoubledBlanks: a blank line the copy left out, next to lines the model deleted, stays
// unless it would double a blank line (the separator before a deleted function goes with it).
func (r *regionMerger) dropDoubledBlanks() {
	if len(r.droppable) == 0 {
		return
	}
	e, m, lines := r.e, r.m, r.res.lines
	blankAt := func(i int) bool {
		switch {
		case i < 0:
			return m.start > 0 && isBlank(e.lines[m.start-1])
		case i >= len(lines):
			return m.end < len(e.lines) && isBlank(e.lines[m.end])
		case lines[i].file >= 0:
			return isBlank(e.lines[lines[i].file])
		}
		return isBlank(lines[i].text)
	}
	var kept []outLine
	for i, o := range lines {
		if r.droppable[i] && (blankAt(i-1) && !r.droppable[i-1] || blankAt(i+1)) {
			continue
		}
		kept = append(kept, o)
	}
	r.res.lines = kept
}

// pairLines pairs removed and added lines of one change, in order, where a line was edited
// rather than replaced: for each, the index of its partner or -1.
func (e *regionEdit) pairLines(dels, ins []int) ([]int, []int) {
	dp, ip := make([]int, len(dels)), make([]int, len(ins))
	for i := range dp {
		dp[i] = -1
	}
	for i := range ip {
		ip[i] = -1
	}
	if len(dels) == 0 || len(ins) == 0 {
		return dp, ip
	}
	sim := func(d, n int) float64 {
		if e.m.pair[dels[d]] < 0 {
			return 0
		}
		a, b := strings.TrimSpace(e.old[dels[d]]), strings.TrimSpace(e.new[ins[n]])
		if a == "" || b == "" {
			if a == b {
				return 1
			}
			return 0
		}
		return lineSim(a, b)
	}
	const minSim = 0.3
	// An order-keeping pairing that maximises similarity (a small dynamic programme: changes
	// are a few lines).
	D, I := len(dels), len(ins)
	best := make([][]float64, D+1)
	for d := range best {
		best[d] = make([]float64, I+1)
	}
	for d := D - 1; d >= 0; d-- {
		for n := I - 1; n >= 0; n-- {
			v := max(best[d+1][n], best[d][n+1])
			if s := sim(d, n); s >= minSim {
				v = max(v, s+best[d+1][n+1])
			}
			best[d][n] = v
		}
	}
	for d, n := 0, 0; d < D && n < I; {
		if s := sim(d, n); s >= minSim && best[d][n] == s+best[d+1][n+1] {
			dp[d], ip[n] = n, d
			d++
			n++
			continue
		}
		if best[d][n] == best[d+1][n] {
			d++
		} else {
			n++
		}
	}
	return dp, ip
}

// adaptNew writes one of the model's new lines in the file's style.
func (e *regionEdit) adaptNew(bi int, ind *indentMap, st *styleMap) (string, []string) {
	l := e.new[bi]
	var notes []string
	ws, body := splitIndent(l)
	if ind != nil && !e.fromFile[bi] && strings.TrimSpace(l) != "" {
		if m := ind.mapWS(ws); m != ws {
			ws = m
			notes = append(notes, "indentation")
		}
	}
	if st != nil {
		var conv []string
		body, conv = st.apply(body)
		notes = append(notes, conv...)
	}
	return ws + body, notes
}

func splitIndent(l string) (string, string) {
	ws := leadingWS(l)
	return ws, l[len(ws):]
}

func splitTrailing(l string) (string, string) {
	t := strings.TrimRight(l, " \t")
	return t, l[len(t):]
}

// mergeLine applies the model's edit of one line (old line oi to new line bi) to the file's line
// k: what the model kept keeps the file's bytes.
func (e *regionEdit) mergeLine(oi, bi, k int, ind *indentMap, st *styleMap) (string, []string, bool) {
	o, n := e.old[oi], e.new[bi]
	var notes []string
	lo, restO := splitIndent(o)
	ln, restN := splitIndent(n)
	co, to := splitTrailing(restO)
	cn, tn := splitTrailing(restN)
	fv := e.fileLine(k)
	lfv, restF := splitIndent(fv)
	cfv, tfv := splitTrailing(restF)
	// Byte offsets of the content in the view, and the view's map to the real line.
	cStart := len(lfv)
	var lead string
	if ln == lo || e.fromFile[bi] && oi == 0 && bi == 0 {
		lead = e.realSpan(k, 0, len(lfv))
	} else {
		lead = ln
		if ind != nil {
			lead = ind.mapWS(ln)
		}
		notes = append(notes, "indentation")
	}
	// A changed line ends as the model wrote it: trailing whitespace is kept only on lines the
	// model did not change.
	trail := tn
	if co == cn {
		if tn == to {
			trail = e.realSpan(k, cStart+len(cfv), cStart+len(cfv)+len(tfv))
		}
		return lead + e.realSpan(k, cStart, cStart+len(cfv)) + trail, notes, true
	}
	lv := min(e.lv, levelSpaces)
	no, nf := normalize(co, lv, true), normalize(cfv, lv, true)
	if no.s != nf.s {
		// The content does not align (a fuzzy context line, a rung that changed more):
		// write the model's line.
		return "", nil, false
	}
	w := &contentMerge{e: e, k: k, cStart: cStart, st: st, co: co, notes: notes}
	w.equal, w.inserts = charDiff(co, cn)
	w.segs, w.segOf = keySegments(no, nf, len(co))
	w.b.WriteString(lead)
	w.write()
	w.b.WriteString(trail)
	if out := w.b.String(); utf8.ValidString(n) && !utf8.ValidString(out) && utf8.ValidString(e.lines[k]) {
		return "", nil, false // a merge that split a character: write the model's line
	}
	return w.b.String(), w.notes, true
}

// lineInsert is text the model inserted into its old line at byte at.
type lineInsert struct {
	at   int
	text string
}

// charDiff compares the model's old and new content of a line: which old bytes it kept, and
// what it inserted where.
func charDiff(co, cn string) ([]bool, []lineInsert) {
	equal := make([]bool, len(co))
	var inserts []lineInsert
	pos, npos := 0, 0
	for _, d := range byteDiff(co, cn) {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for i := pos; i < pos+d.n; i++ {
				equal[i] = true
			}
			pos += d.n
			npos += d.n
		case diffmatchpatch.DiffDelete:
			pos += d.n
		case diffmatchpatch.DiffInsert:
			inserts = append(inserts, lineInsert{pos, cn[npos : npos+d.n]})
			npos += d.n
		}
	}
	return equal, inserts
}

// keySeg is a run of key bytes that come from one place on both sides: bytes [os, oe) of the
// model's old content and [fs, fe) of the file's.
type keySeg struct{ os, oe, fs, fe int }

// keySegments cuts the aligned keys of the model's old content (no) and the file's (nf) into
// segments, and gives each old byte its segment (-1: no key came from it).
func keySegments(no, nf normText, n int) ([]keySeg, []int) {
	segOf := make([]int, n)
	for i := range segOf {
		segOf[i] = -1
	}
	var segs []keySeg
	for i := 0; i < len(no.s); {
		os, oe, fs, fe := int(no.start[i]), int(no.end[i]), int(nf.start[i]), int(nf.end[i])
		j := i + 1
		for j < len(no.s) && (int(no.start[j]) < oe || int(nf.start[j]) < fe) {
			oe, fe = max(oe, int(no.end[j])), max(fe, int(nf.end[j]))
			j++
		}
		for b := os; b < oe; b++ {
			segOf[b] = len(segs)
		}
		segs = append(segs, keySeg{os, oe, fs, fe})
		i = j
	}
	return segs, segOf
}

// contentMerge writes a changed line's content: segments the model kept whole as the file's
// bytes, the rest as the model's, and its insertions in the file's style.
type contentMerge struct {
	e       *regionEdit
	k       int // the file line
	cStart  int // where its content starts in the view
	st      *styleMap
	co      string // the model's old content
	equal   []bool // old bytes the model kept
	inserts []lineInsert
	ii      int // inserts written
	segs    []keySeg
	segOf   []int
	b       strings.Builder
	notes   []string
}

func (w *contentMerge) write() {
	e, k, cStart := w.e, w.k, w.cStart
	fCursor := -1 // the file byte after the last file segment written
	for x := 0; x < len(w.co); {
		w.flushIns(x)
		if !w.equal[x] {
			if w.segOf[x] >= 0 {
				fCursor = -1 // a changed part lies between: the file bytes around it are not kept
			}
			x++
			continue
		}
		s := w.segOf[x]
		if s < 0 {
			// A character the rung ignores in the model's copy (a zero-width space): the
			// file's bytes stand for it.
			x++
			continue
		}
		sg := w.segs[s]
		if w.kept(sg) {
			if fCursor >= 0 && sg.fs > fCursor {
				// File bytes no key came from (a zero-width character) between two kept parts.
				w.b.WriteString(e.realSpan(k, cStart+fCursor, cStart+sg.fs))
			}
			w.b.WriteString(e.realSpan(k, cStart+sg.fs, cStart+sg.fe))
			fCursor = sg.fe
		} else {
			for y := sg.os; y < sg.oe; y++ {
				if w.equal[y] {
					w.b.WriteByte(w.co[y])
				}
			}
			fCursor = -1
		}
		x = sg.oe
	}
	w.flushIns(len(w.co))
}

// kept reports whether the model kept every byte of segment s.
func (w *contentMerge) kept(s keySeg) bool {
	for b := s.os; b < s.oe; b++ {
		if !w.equal[b] {
			return false
		}
	}
	return true
}

// flushIns writes the insertions at or before old byte at, in the file's style.
func (w *contentMerge) flushIns(at int) {
	for w.ii < len(w.inserts) && w.inserts[w.ii].at <= at {
		text := w.inserts[w.ii].text
		if w.st != nil {
			var conv []string
			text, conv = w.st.applyIn(w.b.String(), text)
			w.notes = append(w.notes, conv...)
		}
		w.b.WriteString(text)
		w.ii++
	}
}

// realSpan returns the real bytes of file line k for the view bytes [from, to).
func (e *regionEdit) realSpan(k, from, to int) string {
	if e.view == nil {
		return e.lines[k][from:to]
	}
	if from >= to {
		return ""
	}
	v := e.view[k]
	return e.lines[k][v.start[from]:v.end[to-1]]
}

// indentMap turns the model's indentation into the file's, learnt from the lines they share.
type indentMap struct {
	exact map[string]string
	pairs []indentPair // by model width
	mu    int          // the model's indent unit, in columns
	fu    string       // the file's indent unit
	// irregular says the model's copied lines follow no indent unit (widths 2 and 5): a new
	// line indented exactly like one of the file's matched lines was then written for the
	// file, not the copy.
	irregular bool
	fileWS    map[string]bool
}

type indentPair struct {
	mw int
	fw string
}

// indentMap is nil below the indentation rung, where the model's indentation is the file's.
func (e *regionEdit) indentMap() *indentMap {
	if e.lv < levelIndent {
		return nil
	}
	im := &indentMap{exact: map[string]string{}, fileWS: map[string]bool{}}
	seen := map[int]bool{}
	g := 0
	for i, f := range e.m.pair {
		if f < 0 || isBlank(e.old[i]) || i == 0 && (e.fromFile[0] || firstUnindented(e.old)) {
			continue
		}
		ow, fw := leadingWS(e.old[i]), leadingWS(e.lines[f])
		im.fileWS[fw] = true
		g = gcd(g, indentWidth(ow))
		if _, ok := im.exact[ow]; !ok {
			im.exact[ow] = fw
		}
		if w := indentWidth(ow); !seen[w] {
			seen[w] = true
			im.pairs = append(im.pairs, indentPair{w, fw})
		}
	}
	if len(im.pairs) == 0 {
		return nil
	}
	slices.SortFunc(im.pairs, func(a, b indentPair) int { return a.mw - b.mw })
	var widths []int
	for _, l := range append(slices.Clone(e.old), e.new...) {
		if !isBlank(l) {
			widths = append(widths, indentWidth(leadingWS(l)))
		}
	}
	im.mu = indentUnit(widths)
	im.fu = fileIndentUnit(e.lines)
	im.irregular = g == 1
	return im
}

// mapWS returns the file's indentation for the model's.
func (im *indentMap) mapWS(ws string) string {
	if f, ok := im.exact[ws]; ok {
		return f
	}
	if im.irregular && im.fileWS[ws] {
		return ws
	}
	w := indentWidth(ws)
	base := -1
	for i, p := range im.pairs {
		if p.mw <= w {
			base = i
		}
	}
	if base >= 0 {
		p := im.pairs[base]
		levels, rem := (w-p.mw)/im.mu, (w-p.mw)%im.mu
		return p.fw + strings.Repeat(im.fu, levels) + strings.Repeat(" ", rem)
	}
	p := im.pairs[0]
	out := p.fw
	for levels := (p.mw - w + im.mu - 1) / im.mu; levels > 0 && strings.HasSuffix(out, im.fu); levels-- {
		out = strings.TrimSuffix(out, im.fu)
	}
	return out
}

// indentUnit is the step between indentation widths: their greatest common divisor, or a
// typical 4 when the widths do not tell.
func indentUnit(widths []int) int {
	g := 0
	for _, w := range widths {
		g = gcd(g, w)
	}
	if g < 2 {
		ds := map[int]bool{}
		for _, a := range widths {
			for _, b := range widths {
				if b > a {
					ds[b-a] = true
				}
			}
		}
		g = 0
		for d := range ds {
			if d >= 2 && (g == 0 || d < g) {
				g = d
			}
		}
	}
	if g < 2 {
		return 4
	}
	return min(g, tabWidth)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// fileIndentUnit is the file's indentation step: a tab when most indented lines start with one,
// else the spaces every indentation is a multiple of.
func fileIndentUnit(lines []string) string {
	tabs, spaces := 0, 0
	g := 0
	for _, l := range lines {
		ws := leadingWS(l)
		if ws == "" || isBlank(l) {
			continue
		}
		if ws[0] == '\t' {
			tabs++
			continue
		}
		spaces++
		n := len(ws) - len(strings.TrimLeft(ws, " "))
		g = gcd(g, n)
	}
	if tabs >= spaces && tabs > 0 {
		return "\t"
	}
	if g < 2 {
		g = 4
	}
	return strings.Repeat(" ", min(g, 8))
}

// styleMap learns the file's punctuation from the lines the model copied (only at the
// punctuation rung, where it differs).
func (e *regionEdit) styleMap() *styleMap {
	if e.lv < levelPunct {
		return nil
	}
	var o, f []string
	for i, k := range e.m.pair {
		if k < 0 {
			continue
		}
		oc := strings.TrimSpace(e.old[i])
		fc := strings.TrimSpace(e.fileLine(k))
		if normalize(oc, levelPunct, false).s != normalize(fc, levelPunct, false).s {
			continue
		}
		o = append(o, oc)
		f = append(f, fc)
	}
	return learnStyle(strings.Join(o, "\n"), strings.Join(f, "\n"))
}

// byteOp is a run of n bytes of a byte-level diff.
type byteOp struct {
	Type diffmatchpatch.Operation
	n    int
}

// byteDiff diffs two strings character by character and reports runs in bytes. Text that is
// not UTF-8 is diffed byte by byte (go-diff would turn such bytes into U+FFFD and shift every
// offset after them).
func byteDiff(a, b string) []byteOp {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	if utf8.ValidString(a) && utf8.ValidString(b) {
		diffs := dmp.DiffMainRunes([]rune(a), []rune(b), false)
		out := make([]byteOp, 0, len(diffs))
		for _, d := range diffs {
			out = append(out, byteOp{d.Type, len(d.Text)})
		}
		return out
	}
	enc := func(s string) []rune {
		r := make([]rune, len(s))
		for i := 0; i < len(s); i++ {
			r[i] = rune(s[i]) + 0x100
		}
		return r
	}
	diffs := dmp.DiffMainRunes(enc(a), enc(b), false)
	out := make([]byteOp, 0, len(diffs))
	for _, d := range diffs {
		out = append(out, byteOp{d.Type, len([]rune(d.Text))})
	}
	return out
}
