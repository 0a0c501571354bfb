package edit

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffTimeout bounds go-diff's search; past it the diff is still correct,
// only less minimal, which is fine for showing an edit to a model.
const diffTimeout = 500 * time.Millisecond

// DefaultContext is the number of unchanged lines shown around each change.
const DefaultContext = 3

// lineOp is one line of an edit script: ' ' keeps a[ai], '-' deletes a[ai],
// '+' inserts b[bi].
type lineOp struct {
	kind   byte
	ai, bi int
}

// lineRune maps a line index to a rune that go-diff treats as one symbol,
// skipping the surrogate range so no index is lost in string conversion.
func lineRune(i int) rune {
	if i >= 0xD800 {
		i += 0x800
	}
	return rune(i)
}

// diffLines computes a line edit script from a to b using go-diff in line
// mode (lines hashed to runes) with a timeout.
func diffLines(a, b []string) []lineOp {
	ids := make(map[string]int, len(a)+len(b))
	enc := func(ls []string) []rune {
		r := make([]rune, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			r[i] = lineRune(id)
		}
		return r
	}
	ra, rb := enc(a), enc(b)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	diffs := dmp.DiffMainRunes(ra, rb, false)
	ops := make([]lineOp, 0, max(len(a), len(b)))
	ai, bi := 0, 0
	for _, d := range diffs {
		n := len([]rune(d.Text))
		for range n {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				ops = append(ops, lineOp{' ', ai, bi})
				ai++
				bi++
			case diffmatchpatch.DiffDelete:
				ops = append(ops, lineOp{'-', ai, bi})
				ai++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, lineOp{'+', ai, bi})
				bi++
			}
		}
	}
	return ops
}

// splitKeep splits s into lines that keep their terminators.
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// UnifiedDiff returns a unified diff (the format of `diff -u` and git) from
// a to b, labelled oldName and newName, with context unchanged lines around
// each change. It returns "" when a and b are equal. Line terminators take
// part in the comparison, so a CRLF to LF change shows up.
func UnifiedDiff(oldName, newName string, a, b []byte, context int) string {
	if string(a) == string(b) {
		return ""
	}
	if context < 0 {
		context = 0
	}
	// Only the differing middle and its context go through the line diff:
	// a small edit in a large file then costs a memory compare, not a
	// diff of every line.
	pre, suf := commonLines(a, b)
	for range context {
		if pre == 0 {
			break
		}
		pre = bytes.LastIndexByte(a[:pre-1], '\n') + 1
	}
	for range context {
		if suf == 0 {
			break
		}
		i := bytes.IndexByte(a[len(a)-suf:], '\n')
		if i < 0 {
			suf = 0
			break
		}
		suf -= i + 1
	}
	off := bytes.Count(a[:pre], []byte("\n"))
	la := splitKeep(string(a[pre : len(a)-suf]))
	lb := splitKeep(string(b[pre : len(b)-suf]))
	ops := diffLines(la, lb)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	writeHunks(&sb, ops, la, lb, context, off)
	return sb.String()
}

// commonLines returns the lengths in bytes of the longest common prefix
// and suffix of a and b made of whole lines, not overlapping.
func commonLines(a, b []byte) (pre, suf int) {
	n := min(len(a), len(b))
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	pre = bytes.LastIndexByte(a[:pre], '\n') + 1
	m := min(len(a), len(b)) - pre
	for suf < m && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	// The suffix must start at a line start in both texts.
	for suf > 0 {
		ia, ib := len(a)-suf, len(b)-suf
		if (ia == pre || a[ia-1] == '\n') && (ib == pre || b[ib-1] == '\n') {
			break
		}
		i := bytes.IndexByte(a[ia:], '\n')
		if i < 0 {
			suf = 0
			break
		}
		suf -= i + 1
	}
	return pre, suf
}

func writeHunks(sb *strings.Builder, ops []lineOp, la, lb []string, context, off int) {
	i := 0
	for i < len(ops) {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			return
		}
		start := max(i-context, 0)
		// Extend while the gap to the next change is small enough.
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*context {
				break
			}
		}
		stop := min(end+context+1, len(ops))
		writeHunk(sb, ops[start:stop], la, lb, off)
		i = stop
	}
}

func writeHunk(sb *strings.Builder, ops []lineOp, la, lb []string, off int) {
	aStart, bStart := ops[0].ai+off, ops[0].bi+off
	aN, bN := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			aN++
		}
		if op.kind != '-' {
			bN++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
	for _, op := range ops {
		var line string
		if op.kind == '+' {
			line = lb[op.bi]
		} else {
			line = la[op.ai]
		}
		sb.WriteByte(op.kind)
		body := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		sb.WriteString(body)
		sb.WriteByte('\n')
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// CapDiff keeps at most maxLines lines of a diff and says how many were
// cut, so a large edit cannot flood the model's context. maxLines <= 0
// means no cap.
func CapDiff(diff string, maxLines int) string {
	if maxLines <= 0 {
		return diff
	}
	lines := strings.SplitAfter(diff, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= maxLines {
		return diff
	}
	return strings.Join(lines[:maxLines], "") +
		fmt.Sprintf("... (%d more diff lines not shown)\n", len(lines)-maxLines)
}
