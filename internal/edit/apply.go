package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
)

// ApplyHunks applies a file's hunks in order to content. Each hunk is placed by its context and
// removed lines: exactly first, then ignoring trailing whitespace, indentation, Unicode
// punctuation and missing blank lines, then with a context line the model left out or got
// slightly wrong. A hunk is looked for in the file as the hunks before it left it, then in the
// file as it was (hunks written each against the original may overlap). A place is taken only
// when it is the one place the hunk matches, or when its unified line numbers or envelope
// anchor name it; context lines keep the file's bytes, and added lines are written in the
// file's style. BOM, line endings and the final newline are preserved unless a "\ No newline
// at end of file" marker says otherwise. A hunk that cannot be placed yields a *PatchError
// with the nearest match.
func ApplyHunks(content []byte, hunks []Hunk) ([]byte, error) {
	out, _, err := applyHunks(string(content), hunks, nil)
	return []byte(out), err
}

// cell is a line of a file being patched: one of the file's lines (orig >= 0) or one a hunk
// added, and whether a hunk removed it.
type cell struct {
	text string
	eol  string
	orig int
	gone bool
}

// hunkPass is one way of looking for a hunk, from strict to tolerant.
type hunkPass struct {
	lv               level
	gaps, skip, fuzz bool
}

var hunkPasses = []hunkPass{
	{lv: levelLineEndings}, {lv: levelTrailing}, {lv: levelIndent}, {lv: levelPunct}, {lv: levelSpaces},
	{lv: levelTrailing, gaps: true}, {lv: levelIndent, gaps: true}, {lv: levelPunct, gaps: true}, {lv: levelSpaces, gaps: true},
	{lv: levelSpaces, gaps: true, skip: true},
	{lv: levelSpaces, gaps: true, skip: true, fuzz: true},
}

// applyHunks is ApplyHunks on a file's text; it also reports how added lines were adapted.
func applyHunks(s string, hunks []Hunk, cv *codec) (string, []string, error) {
	return applyHunksAt(s, hunks, cv, nil)
}

// applyHunksAt is applyHunks that also tells placed, for each hunk, the lines (1-based, in the
// file as it was) it was placed at, and the first of them that differs from the hunk's text (0
// when none does).
func applyHunksAt(s string, hunks []Hunk, cv *codec, placed func(hunk, first, last, differs int)) (string, []string, error) {
	d := parseDocument([]byte(s))
	cells := make([]cell, len(d.lines))
	for i, l := range d.lines {
		cells[i] = cell{text: l, eol: d.eols[i], orig: i}
	}
	finalNL := d.finalNL
	var adapted []string
	cursor, delta := 0, 0
	for hi, h := range hunks {
		oldSide, newSide, oldNoNL, newNoNL := hunkSides(h)
		var kinds []byte
		for _, l := range h.Lines {
			if l.Kind != '+' {
				kinds = append(kinds, l.Kind)
			}
		}
		cur := currentView(cells)
		pe := func(err error) error {
			var p *PatchError
			if errors.As(err, &p) {
				p.Hunk, p.Hunks = hi+1, len(hunks)
			}
			return err
		}
		var place *hunkPlace
		if len(oldSide) == 0 {
			place = placeInsertion(cells, cur, h, cursor, delta)
		} else {
			p, err := findHunk(cells, cur, h, oldSide, kinds, cursor, delta, cv)
			if errors.Is(err, ErrNotFound) {
				// The hunk's lines read another way: without read_file's line numbers, with
				// JSON escapes read as characters.
				if h2, ok := hunkVariant(h); ok {
					o2, _, _, _ := hunkSides(h2)
					if p2, err2 := findHunk(cells, cur, h2, o2, kinds, cursor, delta, cv); err2 == nil {
						h, p, err = h2, p2, nil
						oldSide, newSide, _, _ = hunkSides(h)
					}
				}
			}
			if err != nil {
				if h.Unprefixed > 0 {
					// Read as context it did not fit; it may have been meant as an added line.
					return "", nil, &PatchError{Line: h.Unprefixed, Err: ErrBadPatch,
						Reason: "a change line starts with ' ', '-' or '+', got " + quoteLine(h.UnprefixedText)}
				}
				return "", nil, pe(err)
			}
			place = p
			if placed != nil {
				lineOf := func(k int) int {
					if c := cells[place.v.idx[k]]; c.orig >= 0 {
						return c.orig + 1
					}
					return k + 1
				}
				differs := 0
				for i, k := range place.m.pair {
					if k >= 0 && place.v.lines[k] != oldSide[i] {
						differs = lineOf(k)
						break
					}
				}
				placed(hi+1, lineOf(place.m.start), lineOf(place.m.end-1), differs)
			}
		}
		notes, err := place.apply(&cells, h, oldSide, newSide)
		if err != nil {
			return "", nil, pe(err)
		}
		for _, n := range notes {
			if !slices.Contains(adapted, n) {
				adapted = append(adapted, n)
			}
		}
		if place.touchesEnd && (oldNoNL || newNoNL) {
			finalNL = !newNoNL || len(newSide) == 0
		}
		after := place.cursorAfter(cells)
		switch {
		case cursor < 0:
		case after < cursor:
			// The hunks are not in file order: "after the hunk before it" says nothing, and
			// no later hunk is placed by it.
			after = -1
		}
		cursor = after
		delta += len(newSide) - len(oldSide)
	}
	out := &document{bom: d.bom, eol: d.eol, finalNL: finalNL}
	prevEOL := ""
	for _, c := range cells {
		if c.gone {
			continue
		}
		eol := c.eol
		if c.orig < 0 {
			eol = prevEOL
			if eol == "" {
				eol = d.eol
			}
		}
		out.lines = append(out.lines, c.text)
		out.eols = append(out.eols, eol)
		if eol != "" {
			prevEOL = eol
		}
	}
	out.fixTerminators()
	return string(out.bytes()), adapted, nil
}

// view is a list of cells seen one way: the file as the hunks so far left it, or as it was.
type view struct {
	idx   []int // cell index of each line
	lines []string
}

func currentView(cells []cell) view {
	v := view{idx: make([]int, 0, len(cells)), lines: make([]string, 0, len(cells))}
	for i, c := range cells {
		if !c.gone {
			v.idx = append(v.idx, i)
			v.lines = append(v.lines, c.text)
		}
	}
	return v
}

func originalView(cells []cell) view {
	v := view{idx: make([]int, 0, len(cells)), lines: make([]string, 0, len(cells))}
	for i, c := range cells {
		if c.orig >= 0 {
			v.idx = append(v.idx, i)
			v.lines = append(v.lines, c.text)
		}
	}
	return v
}

// hunkPlace is where a hunk goes.
type hunkPlace struct {
	v        view
	original bool // v is the original view
	m        blockMatch
	lv       level
	// views, when set, are read_file's view of v's lines, which the hunk matched.
	views []viewLine
	// insertAt is, for a hunk without old lines, the view line new lines go before.
	insertAt   int
	insertion  bool
	touchesEnd bool
	// lastCell is the cell index of the last line the hunk wrote or kept, after it applied.
	lastCell int
}

// placeInsertion places a hunk that only adds lines: after its unified line number, after its
// envelope anchor, or at the end.
func placeInsertion(cells []cell, cur view, h Hunk, cursor, delta int) *hunkPlace {
	from := max(cursor, 0)
	for _, a := range h.Anchors {
		if i := findAnchor(cur.lines, a, from); i >= 0 {
			from = i + 1
		} else if i := findAnchor(cur.lines, a, 0); i >= 0 {
			from = i + 1
		}
	}
	at := len(cur.lines)
	switch {
	case h.Numbered:
		at = min(max(h.OldStart+delta, from), len(cur.lines))
	case len(h.Anchors) > 0 && !h.EOF:
		at = from
	}
	return &hunkPlace{v: cur, insertion: true, insertAt: at, touchesEnd: at == len(cur.lines)}
}

// findHunk finds the one place a hunk's old lines fit: each pass (exact first, looser after)
// over the file as it is, then as it was before earlier hunks changed it; with U+FFFD in the
// old lines, also over read_file's view of the lines.
func findHunk(cells []cell, cur view, h Hunk, oldSide []string, kinds []byte, cursor, delta int, cv *codec) (*hunkPlace, error) {
	s := newHunkSearch(cells, cur, cv)
	context := func(i int) bool { return i >= 0 && i < len(kinds) && kinds[i] == ' ' }
	nviews := 1
	if s.changed {
		nviews = 2
	}
	useViews := []bool{false}
	if cv != nil && strings.ContainsRune(strings.Join(oldSide, ""), utf8.RuneError) {
		useViews = append(useViews, true)
	}
	for _, useView := range useViews {
		for _, p := range hunkPasses {
			q := blockQuery{old: oldSide, lv: p.lv, gaps: p.gaps}
			if p.skip {
				q.skippable = func(i int) bool { return context(i-1) && context(i) }
				q.maxSkip = 2
			}
			if p.fuzz && len(oldSide) >= 3 {
				q.fuzzy = context
				q.maxFuzz = 1
			}
			for vi := range nviews {
				v := cur
				if vi == 1 {
					v = s.original()
				}
				fk, vls, ok := s.keys(vi, v, useView)
				if !ok {
					continue
				}
				lines := fk.lines
				ms := findBlock(fk, q)
				if h.EOF {
					ms = endingAt(ms, len(lines))
				}
				if len(ms) == 0 {
					continue
				}
				hint := -1
				if h.Numbered {
					hint = h.OldStart - 1
					if vi == 0 {
						hint += delta
					}
				}
				m, err := chooseHunk(ms, v, h, hint, cursor, vi == 0, cells)
				if err != nil {
					return nil, err
				}
				return &hunkPlace{v: v, original: vi == 1, m: m, lv: p.lv, views: vls, touchesEnd: m.end == len(lines)}, nil
			}
		}
	}
	return nil, hunkNotFound(s.original(), h, oldSide)
}

// hunkSearch is what findHunk builds once and reuses across its passes: the file as it was,
// and the keys of each view's lines.
type hunkSearch struct {
	cells    []cell
	cur      view
	cv       *codec
	changed  bool                 // earlier hunks changed the file
	origView *view                // the file as it was, built the first time it is needed
	keysOf   map[[2]int]*fileKeys // (view, read_file view or not) -> its lines' keys
	viewsOf  map[int][]viewLine
}

func newHunkSearch(cells []cell, cur view, cv *codec) *hunkSearch {
	s := &hunkSearch{cells: cells, cur: cur, cv: cv, keysOf: map[[2]int]*fileKeys{}, viewsOf: map[int][]viewLine{}}
	for i := range cells {
		if cells[i].gone || cells[i].orig < 0 {
			s.changed = true
			break
		}
	}
	return s
}

// original is the file as it was, when earlier hunks changed it (most hunks match the file as
// it is, exactly, and never need it).
func (s *hunkSearch) original() view {
	if !s.changed {
		return s.cur
	}
	if s.origView == nil {
		v := originalView(s.cells)
		s.origView = &v
	}
	return *s.origView
}

// keys returns the keys of view vi's lines (v), or of read_file's view of them (useView, with
// those views); ok is false when the lines have no such view.
func (s *hunkSearch) keys(vi int, v view, useView bool) (fk *fileKeys, vls []viewLine, ok bool) {
	key := [2]int{vi, 0}
	if useView {
		key[1] = 1
		if _, ok := s.viewsOf[vi]; !ok {
			s.viewsOf[vi] = s.cv.views(v.lines)
		}
		if vls = s.viewsOf[vi]; vls == nil {
			return nil, nil, false
		}
	}
	fk, ok = s.keysOf[key]
	if !ok {
		lines := v.lines
		if useView {
			lines = make([]string, len(vls))
			for i, x := range vls {
				lines[i] = x.text
			}
		}
		fk = newFileKeys(lines)
		s.keysOf[key] = fk
	}
	return fk, vls, true
}

// endingAt keeps the matches that end at line n (the end of the file).
func endingAt(ms []blockMatch, n int) []blockMatch {
	kept := ms[:0]
	for _, m := range ms {
		if m.end == n {
			kept = append(kept, m)
		}
	}
	return kept
}

// hunkNotFound says why a hunk fits nowhere, with the nearest text in the file as the model
// read it.
func hunkNotFound(orig view, h Hunk, oldSide []string) error {
	what := "its context and removed lines were not found"
	if h.EOF {
		what = "its lines were not found at the end of the file (*** End of File)"
	}
	for _, a := range h.Anchors {
		if findAnchor(orig.lines, a, 0) < 0 {
			what += fmt.Sprintf(", nor its anchor %s", quoteLine(a))
		}
	}
	pe := &PatchError{Err: ErrNotFound, Reason: what}
	pe.Nearest = findNearest(strings.Join(orig.lines, "\n"), strings.Join(oldSide, "\n"), "hunk")
	if n := pe.Nearest; n != nil {
		oi, fi := firstDivergence(oldSide, orig.lines, n.StartLine-1)
		if oi >= 0 && fi >= 0 && fi < len(orig.lines) {
			pe.Diverge = &Divergence{Line: fi + 1, Want: oldSide[oi], Have: orig.lines[fi]}
		}
	}
	return pe
}

// chooseHunk picks among the places a hunk matches: the only one; the first after its envelope
// anchor; the one its line numbers name (within 3 lines, nearer than any other); for a hunk
// without line numbers, the only one after the hunk before it. Anything else is ambiguous.
func chooseHunk(ms []blockMatch, v view, h Hunk, hint, cursor int, current bool, cells []cell) (blockMatch, error) {
	if len(ms) == 1 {
		return ms[0], nil
	}
	if len(h.Anchors) > 0 {
		from := 0
		if current {
			from = max(cursor, 0)
		}
		found := true
		for _, a := range h.Anchors {
			i := findAnchor(v.lines, a, from)
			if i < 0 {
				i = findAnchor(v.lines, a, 0)
			}
			if i < 0 {
				found = false
				break
			}
			from = i + 1
		}
		if found {
			for _, m := range ms {
				if m.start >= from {
					return m, nil
				}
			}
		}
	}
	starts := make([]int, len(ms))
	for i, m := range ms {
		starts[i] = m.start + 1
	}
	if hint >= 0 {
		if p, ok := pickByHint(starts, hint+1); ok {
			return ms[p], nil
		}
	} else if current && cursor > 0 { // (cursor < 0: hunks out of order)
		var after []int
		for i, m := range ms {
			if m.start >= cursor {
				after = append(after, i)
			}
		}
		if len(after) == 1 {
			return ms[after[0]], nil
		}
	}
	lines := make([]int, len(ms))
	for i, m := range ms {
		lines[i] = m.start + 1
		if c := cells[v.idx[m.start]]; c.orig >= 0 {
			lines[i] = c.orig + 1
		}
	}
	why := "its lines occur in more than one place"
	if hint >= 0 {
		why += ", and its line numbers do not name one of them"
	}
	return blockMatch{}, &PatchError{Err: ErrAmbiguous, Lines: lines,
		Reason: fmt.Sprintf("%s: they match %s equally well", why, FormatLines(lines))}
}

// apply writes the hunk into the cells: the lines it adds (after the cells they follow) and the
// lines it removes (marked gone).
func (p *hunkPlace) apply(cells *[]cell, h Hunk, oldSide, newSide []string) ([]string, error) {
	cs := *cells
	var adds []addedLine
	var notes []string
	keepLast := -1 // cell index of the last line of the region the hunk keeps
	if p.insertion {
		after := -1
		if p.insertAt > 0 {
			after = p.v.idx[p.insertAt-1]
		} else if len(p.v.idx) > 0 {
			after = p.v.idx[0] - 1
		}
		for _, t := range newSide {
			adds = append(adds, addedLine{after, t})
		}
		keepLast = after
	} else {
		var err error
		if adds, keepLast, notes, err = p.rewrite(cs, h, oldSide, newSide); err != nil {
			return nil, err
		}
	}
	*cells, p.lastCell = p.insertAdded(cs, adds, keepLast)
	return notes, nil
}

// addedLine is a line a hunk adds, and the cell index it goes after (-1 for the start of the
// file).
type addedLine struct {
	after int
	text  string
}

// hunkOps turns a hunk's lines into the model's change (kept, removed and added lines), and
// says for each removed line whether its change adds lines.
func hunkOps(h Hunk, nOld int) ([]lineOp, []bool) {
	var ops []lineOp
	ai, bi := 0, 0
	plusNear := make([]bool, nOld)
	blockStart := -1
	hasPlus := false
	closeBlock := func(end int) {
		for i := blockStart; i >= 0 && i < end; i++ {
			plusNear[i] = hasPlus
		}
		blockStart, hasPlus = -1, false
	}
	for _, l := range h.Lines {
		switch l.Kind {
		case '+':
			ops = append(ops, lineOp{'+', ai, bi})
			bi++
			hasPlus = true
			if blockStart < 0 {
				blockStart = ai
			}
		case '-':
			ops = append(ops, lineOp{'-', ai, bi})
			if blockStart < 0 {
				blockStart = ai
			}
			ai++
		default:
			closeBlock(ai)
			ops = append(ops, lineOp{' ', ai, bi})
			ai++
			bi++
		}
	}
	closeBlock(ai)
	return ops, plusNear
}

// rewrite merges the hunk into its matched region: the region's lines the result does not keep
// are marked gone, and the lines to add are returned with the cell index of the last kept
// line.
func (p *hunkPlace) rewrite(cs []cell, h Hunk, oldSide, newSide []string) ([]addedLine, int, []string, error) {
	ops, plusNear := hunkOps(h, len(oldSide))
	e := regionEdit{lines: p.v.lines, m: p.m, old: oldSide, new: newSide, ops: ops, lv: p.lv, view: p.views}
	res := mergeRegion(e)
	if res.fffd > 0 {
		return nil, 0, nil, &PatchError{Err: ErrNotFound, Reason: fmt.Sprintf("its added line %d holds U+FFFD (\\uFFFD) where the file has characters read_file could not show, so what it stands for is unknown", res.fffd),
			next: "write the characters themselves in the added lines (read the file with encoding hex to see its bytes), then send the whole patch again"}
	}
	kept := map[int]bool{}
	for _, o := range res.lines {
		if o.file >= 0 {
			kept[o.file] = true
		}
	}
	// Region lines the result does not keep are removed. In the original view, a line an
	// earlier hunk already removed may only be removed again, not replaced.
	for i, k := range p.m.pair {
		if k < 0 || kept[k] || i >= len(plusNear) {
			continue
		}
		if c := &cs[p.v.idx[k]]; c.gone && plusNear[i] {
			return nil, 0, nil, &PatchError{Err: ErrConflict,
				Reason: fmt.Sprintf("it changes line %d, which an earlier hunk of the patch already changed", c.orig+1),
				next:   "put the changes to the same lines in one hunk, then send the whole patch again"}
		}
	}
	for k := p.m.start; k < p.m.end; k++ {
		if !kept[k] {
			cs[p.v.idx[k]].gone = true
		}
	}
	var adds []addedLine
	keepLast := -1
	for _, o := range res.lines {
		if o.file >= 0 {
			keepLast = p.v.idx[o.file]
			continue
		}
		after := -1
		if o.after >= 0 {
			after = p.v.idx[o.after]
		} else if len(p.v.idx) > 0 {
			after = p.v.idx[0] - 1
		}
		adds = append(adds, addedLine{after, o.text})
	}
	return adds, keepLast, res.adapted, nil
}

// insertAdded inserts each added line after its cell: right after it in the current view; in
// the original view after what earlier hunks added there, which comes first. Groups go in from
// the end, so the cell indexes of the ones before stay valid. It returns the cells and the
// index of the last line the hunk wrote or kept (keepLast before the insertion).
func (p *hunkPlace) insertAdded(cs []cell, adds []addedLine, keepLast int) ([]cell, int) {
	type group struct {
		at    int // cell index the group is inserted at
		cells []cell
	}
	var groups []group
	for i := 0; i < len(adds); {
		j := i
		var g group
		for j < len(adds) && adds[j].after == adds[i].after {
			g.cells = append(g.cells, cell{text: adds[j].text, orig: -1})
			j++
		}
		at := adds[i].after + 1
		if p.original {
			for at < len(cs) && cs[at].orig < 0 {
				at++
			}
		}
		g.at = at
		groups = append(groups, g)
		i = j
	}
	lastCell := keepLast
	shift := 0
	for _, g := range groups {
		if g.at <= keepLast {
			shift += len(g.cells)
		}
	}
	if keepLast >= 0 {
		lastCell = keepLast + shift
	}
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		cs = slices.Insert(cs, g.at, g.cells...)
	}
	if n := len(groups); n > 0 {
		// The last group's last line, where it landed once the groups before it went in.
		before := 0
		for _, g := range groups[:n-1] {
			before += len(g.cells)
		}
		end := groups[n-1].at + before + len(groups[n-1].cells) - 1
		lastCell = max(lastCell, end)
	}
	return cs, lastCell
}

// cursorAfter is the line of the current view after the hunk: where the next hunk without line
// numbers or anchors is looked for first.
func (p *hunkPlace) cursorAfter(cells []cell) int {
	n := 0
	for i := 0; i <= p.lastCell && i < len(cells); i++ {
		if !cells[i].gone {
			n++
		}
	}
	return n
}

// findAnchor returns the first line at or after from that an envelope "@@ anchor" names: the
// line itself (ignoring whitespace and punctuation), else a line that contains it.
func findAnchor(lines []string, anchor string, from int) int {
	a := normalize(strings.TrimSpace(anchor), levelPunct, false).s
	if a == "" {
		return -1
	}
	for i := from; i < len(lines); i++ {
		if normalize(strings.TrimSpace(lines[i]), levelPunct, false).s == a {
			return i
		}
	}
	for i := from; i < len(lines); i++ {
		if strings.Contains(normalize(lines[i], levelPunct, false).s, a) {
			return i
		}
	}
	return -1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// addedContent is the text of a file created by a patch.
func addedContent(f FilePatch) []byte {
	var b strings.Builder
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == '-' {
				continue
			}
			b.WriteString(l.Text)
			if !l.NoNewline {
				b.WriteByte('\n')
			}
		}
	}
	return []byte(b.String())
}

// PlanPatch computes, without writing, the Plan that applies p to the
// files under root: every hunk is placed and every precondition checked
// (files to add must not exist, files to change must), so a returned
// error means nothing would be written.
func PlanPatch(ctx context.Context, root *os.Root, p *Patch, opt Options) (*Plan, error) {
	ld := loader{root, opt}
	seen := map[string]bool{}
	plan := &Plan{}
	claim := func(f FilePatch, rel string) error {
		if seen[rel] {
			return &PatchError{Path: rel, Line: f.Line, Err: ErrBadPatch, Reason: "the file appears twice in the patch; put all its changes in one section"}
		}
		seen[rel] = true
		return nil
	}
	for _, f := range p.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rel, err := cleanRel(f.Path)
		if err != nil {
			return nil, &PatchError{Path: f.Path, Line: f.Line, Err: err, Reason: strings.TrimPrefix(err.Error(), ErrInvalidPath.Error()+": ")}
		}
		if err := claim(f, rel); err != nil {
			return nil, err
		}
		old, exists, err := ld.load(rel)
		if err != nil {
			var se *StaleError
			if errors.As(err, &se) && se.current != nil && (f.Op == OpUpdate || f.Op == OpMove) {
				se.Detail = stalePatchDetail(se.current, f.Hunks)
			}
			return nil, err
		}
		switch f.Op {
		case OpAdd:
			if exists {
				return nil, &PatchError{Path: rel, Err: ErrExists, Reason: "the file to add already exists; update it instead"}
			}
			plan.Changes = append(plan.Changes, Change{Op: OpAdd, Path: rel, New: addedContent(f)})
			continue
		}
		if !exists {
			return nil, &PatchError{Path: rel, Err: ErrMissing, Reason: "the file does not exist; check the path or add it as a new file"}
		}
		if f.Op == OpDelete {
			plan.Changes = append(plan.Changes, Change{Op: OpDelete, Path: rel, Old: old})
			continue
		}
		var adapted []string
		data, cv, err := editEncoded(rel, old, func(text string, cv *codec) (string, error) {
			out, notes, err := applyHunks(text, f.Hunks, cv)
			adapted = notes
			return out, err
		})
		if err != nil {
			var pe *PatchError
			if errors.As(err, &pe) {
				pe.Path = rel
			}
			return nil, err
		}
		adapted = append(adapted, cv.keptNote()...)
		if f.Op == OpMove {
			dst, err := cleanRel(f.NewPath)
			if err != nil {
				return nil, &PatchError{Path: f.NewPath, Line: f.Line, Err: err, Reason: strings.TrimPrefix(err.Error(), ErrInvalidPath.Error()+": ")}
			}
			if err := claim(f, dst); err != nil {
				return nil, err
			}
			if _, err := root.Lstat(dst); err == nil {
				return nil, &PatchError{Path: dst, Err: ErrExists, Reason: "the move destination already exists"}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			plan.Changes = append(plan.Changes, Change{Op: OpMove, Path: rel, NewPath: dst, Old: old, New: data, Adapted: adapted, codec: cv})
			continue
		}
		plan.Changes = append(plan.Changes, Change{Op: OpUpdate, Path: rel, Old: old, New: data, Adapted: adapted, codec: cv})
	}
	return plan, nil
}

// ApplyPatch parses text (a unified diff or the Codex envelope), plans it
// and, unless opt.DryRun, commits it: all files or none.
func ApplyPatch(ctx context.Context, root *os.Root, text string, opt Options) (*Result, error) {
	p, err := ParsePatch(text)
	if err != nil {
		return nil, err
	}
	plan, err := PlanPatch(ctx, root, p, opt)
	if err != nil {
		return nil, err
	}
	return run(ctx, root, plan, opt)
}

// stalePatchDetail says where a file's hunks stand in a file that changed since it was read.
func stalePatchDetail(current []byte, hunks []Hunk) string {
	cv := detectCodec(current)
	var places []string
	d := parseDocument([]byte(cv.decode(current)))
	_, _, err := applyHunksAt(cv.decode(current), hunks, cv, func(hunk, first, last, differs int) {
		p := fmt.Sprintf("hunk %d at %s", hunk, lineSpan(first, last))
		if differs > 0 && differs <= len(d.lines) {
			p += fmt.Sprintf(", where line %d now reads %s", differs, quoteLine(d.lines[differs-1]))
		}
		places = append(places, p)
	})
	var pe *PatchError
	switch {
	case err == nil:
		return "the patch still applies (" + strings.Join(places, "; ") + "), but the file changed"
	case errors.As(err, &pe) && pe.Diverge != nil:
		return fmt.Sprintf("hunk %d no longer applies: it first differs from the file at line %d, which now reads %s", pe.Hunk, pe.Diverge.Line, quoteLine(pe.Diverge.Have))
	case errors.As(err, &pe) && len(pe.Lines) > 0:
		return fmt.Sprintf("hunk %d now matches several places (%s)", pe.Hunk, FormatLines(pe.Lines))
	}
	return "the patch no longer applies"
}

// hunkSides returns a hunk's old lines (context and removed) and new lines (context and added),
// and whether each side's last line has no line break.
func hunkSides(h Hunk) (oldSide, newSide []string, oldNoNL, newNoNL bool) {
	for _, l := range h.Lines {
		if l.Kind != '+' {
			oldSide = append(oldSide, l.Text)
			oldNoNL = l.NoNewline
		}
		if l.Kind != '-' {
			newSide = append(newSide, l.Text)
			newNoNL = l.NoNewline
		}
	}
	return oldSide, newSide, oldNoNL, newNoNL
}

// hunkVariant returns the hunk read without read_file's line-number prefixes (when every old
// line carries consecutive ones) and with JSON escapes left in its lines read as characters;
// false when neither changes it.
func hunkVariant(h Hunk) (Hunk, bool) {
	out := h
	out.Lines = append([]HunkLine(nil), h.Lines...)
	changed := false
	oldSide, _, _, _ := hunkSides(h)
	if _, _, ok := stripLineNumbers(strings.Join(oldSide, "\n")); ok {
		for i, l := range out.Lines {
			if m := lineNumberRe.FindString(l.Text); m != "" {
				out.Lines[i].Text = l.Text[len(m):]
			}
		}
		changed = true
	}
	escaped := false
	for _, l := range out.Lines {
		if l.Kind != '+' && strings.ContainsAny(l.Text, `\`) {
			if _, ok := decodeEscapes(l.Text); ok {
				escaped = true
				break
			}
		}
	}
	if escaped {
		for i, l := range out.Lines {
			if d, ok := decodeEscapes(l.Text); ok {
				out.Lines[i].Text = d
			}
		}
		changed = true
	}
	return out, changed
}
