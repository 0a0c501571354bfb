package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ApplyHunks applies a file's hunks in order to content. Each hunk is
// placed by its context and removed lines: exactly first, then ignoring
// trailing whitespace, then all surrounding whitespace, then Unicode
// punctuation. A unified diff's line numbers only break ties (nearest
// wins); envelope anchors must be found in order before the hunk. Context
// lines keep the file's own text. BOM, line endings and the final newline
// are preserved unless a "\ No newline at end of file" marker says
// otherwise. A hunk that cannot be placed yields a *PatchError with the
// nearest match.
func ApplyHunks(content []byte, hunks []Hunk) ([]byte, error) {
	out, _, err := applyHunks(content, hunks)
	return out, err
}

// applyHunks is ApplyHunks that also reports how added lines were written in the file's style
// where a hunk was placed ignoring Unicode punctuation (see styleMap).
func applyHunks(content []byte, hunks []Hunk) ([]byte, []string, error) {
	var adapted []string
	d := parseDocument(content)
	cursor, delta := 0, 0
	for hi, h := range hunks {
		var oldSide, newSide []string
		var oldNoNL, newNoNL bool
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
		fail := func(reason string, want []string) error {
			if h.Unprefixed > 0 {
				// Read as context it did not fit; it may have been meant
				// as an added line.
				return &PatchError{Line: h.Unprefixed, Err: ErrBadPatch,
					Reason: "a change line starts with ' ', '-' or '+', got " + quoteLine(h.UnprefixedText)}
			}
			pe := &PatchError{Hunk: hi + 1, Hunks: len(hunks), Err: ErrNotFound, Reason: reason}
			if len(want) > 0 {
				pe.Nearest = findNearest(strings.Join(d.lines, "\n"), strings.Join(want, "\n"), fmt.Sprintf("hunk %d", hi+1))
			}
			return pe
		}
		from := cursor
		for _, a := range h.Anchors {
			i := findAnchor(d.lines, a, from)
			if i < 0 {
				i = findAnchor(d.lines, a, 0)
			}
			if i < 0 {
				return nil, nil, fail(fmt.Sprintf("anchor %q not found", a), []string{a})
			}
			from = i + 1
		}
		hint := -1
		if h.Numbered {
			hint = max(h.OldStart-1+delta, 0)
			if len(oldSide) == 0 {
				hint = h.OldStart + delta // a pure insertion goes after line OldStart
			}
		}
		var at, level int
		var matchedFile []string
		switch {
		case len(oldSide) == 0:
			switch {
			case hint >= 0:
				at = min(max(hint, from), len(d.lines))
			case len(h.Anchors) > 0 && !h.EOF:
				at = from
			default:
				at = len(d.lines)
			}
		default:
			at, level = locate(d.lines, oldSide, from, hint, h.EOF)
			if at < 0 && from > 0 {
				at, level = locate(d.lines, oldSide, 0, hint, h.EOF)
			}
			if at < 0 {
				what := "its context and removed lines were not found"
				if h.EOF {
					what = "its lines were not found at the end of the file (*** End of File)"
				}
				return nil, nil, fail(what, oldSide)
			}
			matchedFile = d.lines[at : at+len(oldSide)]
		}
		// Build the replacement, keeping the file's text for context lines
		// and giving added lines the file's indentation where the hunk's
		// old lines were placed ignoring it, and its punctuation where they
		// were placed ignoring that.
		added := reindentAdded(oldSide, matchedFile, h.Lines)
		if level == punctLevel {
			st := learnStyle(strings.Join(oldSide, "\n"), strings.Join(matchedFile, "\n"))
			text, notes := st.apply(strings.Join(added, "\n"))
			if lines := strings.Split(text, "\n"); len(added) > 0 && len(lines) == len(added) {
				added = lines
				for _, n := range notes {
					if !slices.Contains(adapted, n) {
						adapted = append(adapted, n)
					}
				}
			}
		}
		repl := make([]string, 0, len(newSide))
		oi, ai := 0, 0
		for _, l := range h.Lines {
			switch l.Kind {
			case ' ':
				repl = append(repl, matchedFile[oi])
				oi++
			case '-':
				oi++
			case '+':
				repl = append(repl, added[ai])
				ai++
			}
		}
		end := at + len(oldSide)
		touchesEnd := end == len(d.lines)
		d.splice(at, end, repl)
		if touchesEnd && (oldNoNL || newNoNL) {
			d.finalNL = !newNoNL || len(newSide) == 0
			d.fixTerminators()
		}
		cursor = at + len(repl)
		delta += len(repl) - len(oldSide)
	}
	return d.bytes(), adapted, nil
}

// reindentAdded returns the text of the hunk's added lines, re-indented
// like the file when the old lines matched only with other indentation
// (spaces for tabs, say), as replace_string does: otherwise a hunk placed
// tolerantly would write lines indented unlike their neighbours.
func reindentAdded(oldSide, matched []string, lines []HunkLine) []string {
	var added []string
	for _, l := range lines {
		if l.Kind == '+' {
			added = append(added, l.Text)
		}
	}
	differs := false
	hunkInd, fileInd := map[string]bool{}, map[string]bool{}
	for i := range min(len(oldSide), len(matched)) {
		if strings.TrimSpace(oldSide[i]) == "" {
			continue
		}
		hunkInd[leadingWS(oldSide[i])], fileInd[leadingWS(matched[i])] = true, true
		differs = differs || leadingWS(oldSide[i]) != leadingWS(matched[i])
	}
	if !differs || len(added) == 0 {
		return added
	}
	out := strings.Split(reindent(strings.Join(oldSide, "\n"), strings.Join(matched, "\n"), strings.Join(added, "\n"), true), "\n")
	if len(out) != len(added) {
		return added
	}
	for i, l := range added {
		// An added line already indented like the file, where the old
		// lines drifted, is kept as written.
		if ind := leadingWS(l); !hunkInd[ind] && fileInd[ind] {
			out[i] = l
		}
	}
	return out
}

// punctLevel is the index in lineLevels of the level that ignores Unicode punctuation.
const punctLevel = 3

// lineLevels are the tolerances tried, in order, to place a hunk.
var lineLevels = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t") },
	strings.TrimSpace,
	func(s string) string { return normalize(strings.TrimSpace(s), levelPunct, false).s },
}

// locate finds want in lines at or after from, at the first tolerance
// level that matches; among matches it takes the one nearest hint (the
// first one when hint < 0). With eof only a match ending at the last line
// counts. It also returns the index in lineLevels of the level that
// matched.
func locate(lines, want []string, from, hint int, eof bool) (int, int) {
	if len(want) > len(lines) {
		return -1, 0
	}
	for level, norm := range lineLevels {
		w := make([]string, len(want))
		for i, s := range want {
			w[i] = norm(s)
		}
		best := -1
		check := func(p int) bool {
			for i := range w {
				if norm(lines[p+i]) != w[i] {
					return false
				}
			}
			return true
		}
		if eof {
			if p := len(lines) - len(w); p >= from && check(p) {
				return p, level
			}
			continue
		}
		for p := from; p+len(w) <= len(lines); p++ {
			if !check(p) {
				continue
			}
			if hint < 0 {
				return p, level
			}
			if best < 0 || abs(p-hint) < abs(best-hint) {
				best = p
			}
			if p > hint {
				break // later matches are only further away
			}
		}
		if best >= 0 {
			return best, level
		}
	}
	return -1, 0
}

func findAnchor(lines []string, anchor string, from int) int {
	for _, norm := range lineLevels[:2] {
		a := norm(anchor)
		for i := from; i < len(lines); i++ {
			if norm(lines[i]) == a {
				return i
			}
		}
	}
	a := lineLevels[3](anchor)
	for i := from; i < len(lines); i++ {
		if strings.Contains(lineLevels[3](lines[i]), a) {
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
		data, adapted, err := applyHunks(old, f.Hunks)
		if err != nil {
			var pe *PatchError
			if errors.As(err, &pe) {
				pe.Path = rel
			}
			return nil, err
		}
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
			plan.Changes = append(plan.Changes, Change{Op: OpMove, Path: rel, NewPath: dst, Old: old, New: data, Adapted: adapted})
			continue
		}
		plan.Changes = append(plan.Changes, Change{Op: OpUpdate, Path: rel, Old: old, New: data, Adapted: adapted})
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
