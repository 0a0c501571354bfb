package consolidated

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkFileReadRange measures one read_file call of 100 lines in the middle of a 100,000-line
// file, through the in-memory MCP transport (the line index makes repeated reads seek).
func BenchmarkFileReadRange(b *testing.B) {
	h := newFileHarness(b, 0)
	var big strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&big, "line %06d: some text that looks like code();\n", i+1)
	}
	h.write(map[string]string{"big.txt": big.String()})
	for b.Loop() {
		h.mustOp("read_file", map[string]any{"path": "big.txt", "start_line": 50_000, "end_line": 50_099})
	}
}

// BenchmarkFileReplaceCycle measures a replace_string that flips a line back and forth in a
// 2,000-line file: guard, stale check, ladder, atomic write, diff and fingerprint of the result.
func BenchmarkFileReplaceCycle(b *testing.B) {
	h := newFileHarness(b, 0)
	var src strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&src, "\tx%d := compute(%d)\n", i, i)
	}
	h.write(map[string]string{"src.go": src.String()})
	h.mustOp("read_file", map[string]any{"path": "src.go", "limit": 10})
	from, to := "x1000 := compute(1000)", "x1000 := compute(-1)"
	for b.Loop() {
		h.mustOp("replace_string", map[string]any{"path": "src.go", "old_string": from, "new_string": to})
		from, to = to, from
	}
}
