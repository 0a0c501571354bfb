package edit_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"toolhost/internal/golden"
)

// The generator of the edit corpus. Each case starts from a source file in testdata/corpus/base
// and an edit a careful writer would make (a region of lines and what replaces it). It then
// writes the call the way a model gets it wrong in one of the ways public failure reports show
// (see docs/edits.md for the sources): indentation re-typed, trailing whitespace dropped,
// line-number prefixes copied from read_file, JSON escapes left in strings, ... The intended
// result is computed from the careful edit on the file as it is on disk, never from what the
// engine does, so the corpus measures the engine rather than describing it.
//
// TestEditCorpusFiles checks that testdata/corpus holds what this file generates;
// TOOLHOST_GOLDEN=update go test ./internal/edit -run TestEditCorpusFiles rewrites it.

// doc is a text file as lines, each with its own terminator, and how it is stored.
type doc struct {
	path  string
	lines []string
	eols  []string // "\n", "\r\n", or "" on a last line without one
	enc   string   // "" (UTF-8) or a corpusFile encoding
	bom   bool     // UTF-8 byte order mark
	raw   []byte   // when set, the file's bytes (lines are then only a view of them)
}

func parseDoc(path, text string) doc {
	d := doc{path: path}
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			d.lines = append(d.lines, text)
			d.eols = append(d.eols, "")
			break
		}
		l, e := text[:i], "\n"
		if strings.HasSuffix(l, "\r") {
			l, e = l[:len(l)-1], "\r\n"
		}
		d.lines = append(d.lines, l)
		d.eols = append(d.eols, e)
		text = text[i+1:]
	}
	return d
}

func (d doc) clone() doc {
	d.lines = slices.Clone(d.lines)
	d.eols = slices.Clone(d.eols)
	return d
}

func (d doc) text() string {
	var b strings.Builder
	if d.bom {
		b.WriteString("\uFEFF")
	}
	for i, l := range d.lines {
		b.WriteString(l)
		b.WriteString(d.eols[i])
	}
	return b.String()
}

func (d doc) file() corpusFile {
	if d.raw != nil {
		return corpusFile{Base64: base64.StdEncoding.EncodeToString(d.raw)}
	}
	f := textFile(d.text())
	f.Encoding = d.enc
	return f
}

// eol is the terminator new lines get: the more common one.
func (d doc) eol() string {
	crlf := 0
	for _, e := range d.eols {
		if e == "\r\n" {
			crlf++
		}
	}
	if crlf > 0 && 2*crlf >= len(d.eols) {
		return "\r\n"
	}
	return "\n"
}

func (d doc) crlf() doc {
	d = d.clone()
	for i, e := range d.eols {
		if e == "\n" {
			d.eols[i] = "\r\n"
		}
	}
	return d
}

func (d doc) noFinalNewline() doc {
	d = d.clone()
	d.eols[len(d.eols)-1] = ""
	return d
}

func (d doc) as(path string) doc { d = d.clone(); d.path = path; return d }

func (d doc) encoded(enc string) doc { d = d.clone(); d.enc = enc; return d }

// setLine changes line i (0-based) to s.
func (d doc) setLine(i int, s string) doc {
	d = d.clone()
	d.lines[i] = s
	return d
}

// find returns the 0-based index of the nth (1-based; 0 means "the only") line containing at.
func (d doc) find(at string, nth int) int {
	var hits []int
	for i, l := range d.lines {
		if strings.Contains(l, at) {
			hits = append(hits, i)
		}
	}
	switch {
	case nth == 0 && len(hits) == 1:
		return hits[0]
	case nth > 0 && nth <= len(hits):
		return hits[nth-1]
	}
	panic(fmt.Sprintf("%s: %q is on %d lines (nth %d)", d.path, at, len(hits), nth))
}

// rl is a line of an edit's replacement: a region line kept (k >= 0) or a new line.
type rl struct {
	k int
	s string
}

// K keeps region lines, L adds lines, R strings parts together.
func K(is ...int) []rl {
	out := make([]rl, len(is))
	for j, i := range is {
		out[j] = rl{k: i}
	}
	return out
}

func L(ss ...string) []rl {
	out := make([]rl, len(ss))
	for j, s := range ss {
		out[j] = rl{k: -1, s: s}
	}
	return out
}

func R(parts ...[]rl) []rl { return slices.Concat(parts...) }

// ed is the careful edit: n lines starting at the line holding at are replaced by repl.
type ed struct {
	at   string
	nth  int
	n    int
	repl []rl
}

func (e ed) start(d doc) int { return d.find(e.at, e.nth) }

// apply is the intended result of eds on d: kept lines keep the file's bytes, new lines take
// the line ending of the region line before them, and the file keeps its final-newline state.
func (d doc) apply(eds ...ed) doc {
	type placed struct {
		s int
		e ed
	}
	var ps []placed
	for _, e := range eds {
		ps = append(ps, placed{e.start(d), e})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].s > ps[j].s })
	for i := 1; i < len(ps); i++ {
		if ps[i].s+ps[i].e.n > ps[i-1].s {
			panic(fmt.Sprintf("%s: edits at %q and %q overlap", d.path, ps[i].e.at, ps[i-1].e.at))
		}
	}
	out := d.clone()
	final := d.eols[len(d.eols)-1] != ""
	for _, p := range ps {
		var lines, eols []string
		// A new line ends like the region line before it: in a file with a CRLF stretch, the
		// stretch's own ending.
		cur := d.eol()
		if p.e.n > 0 && d.eols[p.s] != "" {
			cur = d.eols[p.s]
		}
		for _, r := range p.e.repl {
			if r.k >= 0 {
				lines = append(lines, d.lines[p.s+r.k])
				eols = append(eols, d.eols[p.s+r.k])
				if d.eols[p.s+r.k] != "" {
					cur = d.eols[p.s+r.k]
				}
			} else {
				lines = append(lines, r.s)
				eols = append(eols, cur)
			}
		}
		out.lines = slices.Concat(out.lines[:p.s], lines, out.lines[p.s+p.e.n:])
		out.eols = slices.Concat(out.eols[:p.s], eols, out.eols[p.s+p.e.n:])
	}
	for i := range out.eols {
		if out.eols[i] == "" {
			out.eols[i] = d.eol()
		}
	}
	if !final && len(out.eols) > 0 {
		out.eols[len(out.eols)-1] = ""
	}
	return out
}

// view is how a model gets the file's text wrong when it copies it into a call.
type view struct {
	// line rewrites every line the model writes: copied from the file or its own.
	line func(string) string
	// copied rewrites only lines copied from the file.
	copied func(string) string
	// sep joins the lines ("\n" unless the model sends CRLF).
	sep string
	// whole rewrites the finished string (escaping).
	whole func(string) string
	// num prefixes copied lines with read_file's line numbers.
	num *numbering
	// dropBlank leaves out blank region lines the edit keeps.
	dropBlank bool
	// extraBlank adds an empty line after region line extraBlank-1 (0: none).
	extraBlank int
	// firstBare leaves the first copied line's indentation out (a copy that starts mid-line).
	firstBare bool
}

// numbering is read_file's "%*d\t" prefix: width digits, and what new_string carries.
type numbering struct {
	width int
	arrow bool   // "  12→" as some clients print, instead of a tab
	new   string // "none", "kept" (kept lines keep their numbers), "all"
}

func (v view) copy(s string) string {
	if v.copied != nil {
		s = v.copied(s)
	}
	if v.line != nil {
		s = v.line(s)
	}
	return s
}

func (v view) write(s string) string {
	if v.line != nil {
		s = v.line(s)
	}
	return s
}

func (v view) join(lines []string) string {
	sep := v.sep
	if sep == "" {
		sep = "\n"
	}
	s := strings.Join(lines, sep)
	if v.whole != nil {
		s = v.whole(s)
	}
	return s
}

func (n *numbering) prefix(line int) string {
	if n.arrow {
		return fmt.Sprintf("%*d→", n.width, line)
	}
	return fmt.Sprintf("%*d\t", n.width, line)
}

// oldNew returns old_string and new_string as the model sends them for e on d.
func (v view) oldNew(d doc, e ed) (string, string) {
	s := e.start(d)
	var old, nw []string
	blank := func(i int) bool { return v.dropBlank && strings.TrimSpace(d.lines[s+i]) == "" }
	for i := range e.n {
		if blank(i) {
			continue
		}
		l := v.copy(d.lines[s+i])
		if i == 0 && v.firstBare {
			l = strings.TrimLeft(l, " \t")
		}
		if v.num != nil {
			l = v.num.prefix(s+i+1) + l
		}
		old = append(old, l)
		if v.extraBlank == i+1 {
			old = append(old, "")
		}
	}
	next := s + 1
	for j, r := range e.repl {
		var l string
		if r.k >= 0 {
			if blank(r.k) {
				continue
			}
			l = v.copy(d.lines[s+r.k])
			if j == 0 && v.firstBare {
				l = strings.TrimLeft(l, " \t")
			}
			if v.num != nil && v.num.new != "none" {
				l = v.num.prefix(s+r.k+1) + l
			}
			next = s + r.k + 2
		} else {
			l = v.write(r.s)
			if j == 0 && v.firstBare {
				l = strings.TrimLeft(l, " \t")
			}
			if v.num != nil && v.num.new == "all" {
				l = v.num.prefix(next) + l
				next++
			}
		}
		nw = append(nw, l)
		if r.k >= 0 && v.extraBlank == r.k+1 {
			nw = append(nw, "")
		}
	}
	return v.join(old), v.join(nw)
}

// Indentation drift.

func leading(s string) (string, string) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i], s[i:]
}

func tabsTo(n int) func(string) string {
	return func(s string) string {
		ind, rest := leading(s)
		return strings.ReplaceAll(ind, "\t", strings.Repeat(" ", n)) + rest
	}
}

func spacesToTabs(unit int) func(string) string {
	return func(s string) string {
		ind, rest := leading(s)
		if strings.Contains(ind, "\t") {
			return s
		}
		return strings.Repeat("\t", len(ind)/unit) + strings.Repeat(" ", len(ind)%unit) + rest
	}
}

func rescale(from, to int) func(string) string {
	return func(s string) string {
		ind, rest := leading(s)
		if strings.Contains(ind, "\t") {
			return s
		}
		return strings.Repeat(" ", len(ind)/from*to+len(ind)%from) + rest
	}
}

// shift moves every line one level: a unit more, or (less) a unit fewer where there is one.
func shift(unit string, less bool) func(string) string {
	return func(s string) string {
		if strings.TrimSpace(s) == "" {
			return s
		}
		if less {
			return strings.TrimPrefix(s, unit)
		}
		return unit + s
	}
}

func flatten(s string) string { return strings.TrimLeft(s, " \t") }

func trimRight(s string) string { return strings.TrimRight(s, " \t") }

func addTrailing(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	return s + " "
}

// curlyQuotes is a model (or a word processor) turning ASCII quotes into typographic ones.
func curlyQuotes(s string) string {
	var b strings.Builder
	open := true
	for _, r := range s {
		switch r {
		case '"':
			if open {
				b.WriteRune('\u201c')
			} else {
				b.WriteRune('\u201d')
			}
			open = !open
		case '\'':
			b.WriteRune('\u2019')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainPunct is a model typing ASCII for the file's typographic punctuation.
func plainPunct(s string) string {
	return strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'", "\u2014", "-", "\u2013", "-", "\u2026", "...", "\u00a0", " ").Replace(s)
}

// jsonEscaped is a string escaped one time too many: what the model meant as a line break
// arrives as a backslash and an n.
func jsonEscaped(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}

func quotesEscaped(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }

// Patches.

// hunk is one hunk of a patch: the careful edit e, with the context a model writes around it.
type hunk struct {
	e ed
	// before and after are the context lines (-1: 3).
	before, after int
	// off is added to the header's line numbers (stale numbers).
	off int
	// anchor is the envelope's "@@ anchor" text.
	anchor string
	// skip leaves out the old-side line at this index, which must be context (-1: none).
	skip int
	// stale replaces old-side lines (by index) with the model's belief of them.
	stale map[int]string
	// on is the file the hunk is written against when it is not the part's (a hunk written
	// against an earlier hunk's result); its line numbers are then that file's.
	on *doc
}

func h(e ed) hunk { return hunk{e: e, before: -1, after: -1, skip: -1} }

type hline struct {
	kind byte
	text string
}

// lines returns the hunk's lines and where its old side starts (0-based).
func (hk hunk) lines(d doc, v view) ([]hline, int) {
	if hk.on != nil {
		d = *hk.on
	}
	s := hk.e.start(d)
	nb, na := hk.before, hk.after
	if nb < 0 {
		nb = 3
	}
	if na < 0 {
		na = 3
	}
	nb = min(nb, s)
	end := s + hk.e.n
	na = min(na, len(d.lines)-end)
	var out []hline
	for i := s - nb; i < s; i++ {
		out = append(out, hline{' ', v.copy(d.lines[i])})
	}
	r := 0
	var pending []string
	flush := func(upto int) {
		for ; r < upto; r++ {
			out = append(out, hline{'-', v.copy(d.lines[s+r])})
		}
		for _, p := range pending {
			out = append(out, hline{'+', v.write(p)})
		}
		pending = nil
	}
	for _, x := range hk.e.repl {
		if x.k < 0 {
			pending = append(pending, x.s)
			continue
		}
		flush(x.k)
		out = append(out, hline{' ', v.copy(d.lines[s+x.k])})
		r = x.k + 1
	}
	flush(hk.e.n)
	for i := end; i < end+na; i++ {
		out = append(out, hline{' ', v.copy(d.lines[i])})
	}
	oi := 0
	var kept []hline
	for j, l := range out {
		if l.kind != '+' {
			if t, ok := hk.stale[oi]; ok {
				out[j].text = t
			}
			if oi == hk.skip {
				if l.kind != ' ' {
					panic("skip of a changed line")
				}
				oi++
				continue
			}
			oi++
		}
		kept = append(kept, out[j])
	}
	if v.dropBlank {
		var nb []hline
		for _, l := range kept {
			if l.kind == ' ' && strings.TrimSpace(l.text) == "" {
				continue
			}
			nb = append(nb, l)
		}
		kept = nb
	}
	return kept, s - nb
}

// part is one file of a patch.
type part struct {
	d     doc
	hunks []hunk
	op    string // "" update, "add", "delete", "move"
	to    string // move destination
	add   string // content of an added file
}

func counts(ls []hline) (old, new int) {
	for _, l := range ls {
		if l.kind != '+' {
			old++
		}
		if l.kind != '-' {
			new++
		}
	}
	return old, new
}

// unified writes a unified diff: style "git" (diff --git and index lines), "plain" (diff -u
// with timestamps), "ab" (--- a/ +++ b/ only) or "bare" (hunk headers without numbers).
func unified(v view, style string, parts ...part) string {
	var b strings.Builder
	for _, p := range parts {
		a, bb := "a/"+p.d.path, "b/"+p.d.path
		switch style {
		case "git":
			fmt.Fprintf(&b, "diff --git a/%s b/%s\n", p.d.path, p.d.path)
			switch p.op {
			case "add":
				b.WriteString("new file mode 100644\n")
			case "delete":
				b.WriteString("deleted file mode 100644\n")
			}
			b.WriteString("index 3f2a9c1..8b1e0d4 100644\n")
		case "plain":
			a, bb = p.d.path+".orig\t2025-03-14 09:12:44.000000000 +0100", p.d.path+"\t2025-03-14 09:20:03.000000000 +0100"
		}
		switch p.op {
		case "add":
			a = "/dev/null"
			lines := strings.Split(strings.TrimSuffix(p.add, "\n"), "\n")
			fmt.Fprintf(&b, "--- %s\n+++ %s\n@@ -0,0 +1,%d @@\n", a, bb, len(lines))
			for _, l := range lines {
				b.WriteString("+" + l + "\n")
			}
			continue
		case "delete":
			fmt.Fprintf(&b, "--- %s\n+++ /dev/null\n@@ -1,%d +0,0 @@\n", a, len(p.d.lines))
			for _, l := range p.d.lines {
				b.WriteString("-" + l + "\n")
			}
			continue
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", a, bb)
		delta := 0
		for _, hk := range p.hunks {
			ls, s := hk.lines(p.d, v)
			o, n := counts(ls)
			switch {
			case style == "bare":
				b.WriteString("@@ @@\n")
			case hk.on != nil:
				// Written against the file as an earlier hunk left it: its numbers are that
				// file's on both sides.
				fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", s+1+hk.off, o, s+1+hk.off, n)
			default:
				fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", s+1+hk.off, o, s+1+hk.off+delta, n)
			}
			delta += n - o
			for _, l := range ls {
				b.WriteString(string(l.kind) + l.text + "\n")
			}
		}
	}
	return v.join(strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")) + "\n"
}

// envelope writes the Codex "*** Begin Patch" format.
func envelope(v view, parts ...part) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, p := range parts {
		switch p.op {
		case "add":
			fmt.Fprintf(&b, "*** Add File: %s\n", p.d.path)
			for _, l := range strings.Split(strings.TrimSuffix(p.add, "\n"), "\n") {
				b.WriteString("+" + l + "\n")
			}
			continue
		case "delete":
			fmt.Fprintf(&b, "*** Delete File: %s\n", p.d.path)
			continue
		}
		fmt.Fprintf(&b, "*** Update File: %s\n", p.d.path)
		if p.op == "move" {
			fmt.Fprintf(&b, "*** Move to: %s\n", p.to)
		}
		for _, hk := range p.hunks {
			ls, _ := hk.lines(p.d, v)
			if hk.anchor != "" {
				b.WriteString("@@ " + hk.anchor + "\n")
			} else {
				b.WriteString("@@\n")
			}
			for _, l := range ls {
				b.WriteString(string(l.kind) + l.text + "\n")
			}
		}
	}
	b.WriteString("*** End Patch")
	return v.join(strings.Split(b.String(), "\n")) + "\n"
}

// Calls.

func replaceCall(path, old, nw string) map[string]any {
	return map[string]any{"operation": "replace_string", "path": path, "old_string": old, "new_string": nw}
}

func multiCall(edits ...map[string]any) map[string]any {
	var es []any
	for _, e := range edits {
		es = append(es, e)
	}
	return map[string]any{"operation": "multi_replace_string", "edits": es}
}

func multiEdit(path, old, nw string) map[string]any {
	return map[string]any{"path": path, "old_string": old, "new_string": nw}
}

func patchCall(p string) map[string]any {
	return map[string]any{"operation": "apply_patch", "patch": p}
}

// with returns a copy of m with more keys.
func with(m map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(m)+len(kv)/2)
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// Cases.

type gen struct {
	base  map[string]doc
	cases []corpusCase
	ids   map[string]bool
}

// cs is a case being written: the files before, the call, and the files after (or the
// refusal).
type cs struct {
	class, id, note string
	files           []doc
	disk            []doc
	reads           []map[string]any
	call            map[string]any
	want            []doc
	gone            []string // files the edit removes
	refuse          *corpusRefusal
}

func (g *gen) add(c cs) {
	id := c.class + "/" + c.id
	if g.ids[id] {
		panic("duplicate case " + id)
	}
	g.ids[id] = true
	cc := corpusCase{ID: id, Class: c.class, Note: c.note, Files: map[string]corpusFile{}, Reads: c.reads, Call: c.call}
	for _, d := range c.files {
		cc.Files[d.path] = d.file()
	}
	if len(c.disk) > 0 {
		cc.Disk = map[string]corpusFile{}
		for _, d := range c.disk {
			cc.Disk[d.path] = d.file()
		}
	}
	switch {
	case c.refuse != nil:
		cc.Want.Refuse = c.refuse
	case len(c.want) == 0 && len(c.gone) == 0:
		panic(id + ": neither a result nor a refusal")
	default:
		cc.Want.Files = map[string]corpusFile{}
		for _, d := range c.want {
			cc.Want.Files[d.path] = d.file()
		}
		cc.Want.Deleted = c.gone
	}
	g.cases = append(g.cases, cc)
}

func copyFiles(m map[string]corpusFile) map[string]corpusFile {
	out := make(map[string]corpusFile, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func refuse(code string, mentions ...string) *corpusRefusal {
	return &corpusRefusal{Code: strings.Split(code, "|"), Mentions: mentions}
}

// lineRe matches a message naming line n (alone, or first in "lines n-m" or "lines n, m").
func lineRe(n int) string { return fmt.Sprintf(`\blines? %d\b`, n) }

// linesRe matches a message naming every one of the lines, in order.
func linesRe(ns ...int) string {
	var parts []string
	for _, n := range ns {
		parts = append(parts, fmt.Sprintf(`\b%d\b`, n))
	}
	return `\blines? ` + strings.Join(parts, `[^\n]*`)
}

func loadBase(t testing.TB) map[string]doc {
	t.Helper()
	entries, err := os.ReadDir(corpusBaseDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]doc{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(corpusBaseDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = parseDoc(e.Name(), string(b))
	}
	return out
}

// generateCorpus returns every case, by class.
func generateCorpus(t testing.TB) map[string][]corpusCase {
	g := &gen{base: loadBase(t), ids: map[string]bool{}}
	for _, f := range corpusClasses {
		f(g)
	}
	out := map[string][]corpusCase{}
	for _, c := range g.cases {
		out[c.Class] = append(out[c.Class], c)
	}
	return out
}

// encodeCorpus renders one class file.
func encodeCorpus(cases []corpusCase) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(cases); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// TestEditCorpusFiles checks that testdata/corpus holds what the generator writes, so the cases
// and their generator cannot drift apart: TOOLHOST_GOLDEN=update rewrites the files.
func TestEditCorpusFiles(t *testing.T) {
	byClass := generateCorpus(t)
	have, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	for _, p := range have {
		if _, ok := byClass[strings.TrimSuffix(filepath.Base(p), ".json")]; ok {
			continue
		}
		if golden.Update(t) {
			os.Remove(p)
			continue
		}
		t.Errorf("%s is no longer generated; remove it with TOOLHOST_GOLDEN=update go test ./internal/edit -run TestEditCorpusFiles", p)
	}
	for class, cases := range byClass {
		golden.Check(t, filepath.Join(corpusDir, class+".json"), encodeCorpus(cases))
	}
}
