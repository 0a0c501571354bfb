package edit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func tenKLines() string {
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "\tvalue%05d := compute(%d, \"some text on line %d\") // trailing comment\n", i, i, i)
	}
	return b.String()
}

// BenchmarkReplace10k measures replace_string on a 10,000-line file,
// including reading, the ladder, the atomic write (fsync + rename) and the
// returned diff. Target: <= 10 ms per op (p50).
func BenchmarkReplace10k(b *testing.B) {
	ctx := context.Background()
	root, _ := openRoot(b, map[string]string{"big.go": tenKLines()})
	a := Replacement{OldString: "\tvalue05000 := compute(5000, \"some text on line 5000\")", NewString: "\tvalue05000 := compute(5000, \"changed\")"}
	z := Replacement{OldString: a.NewString, NewString: a.OldString}
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		r := a
		if i%2 == 1 {
			r = z
		}
		res, err := ReplaceInFile(ctx, root, "big.go", r, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Diff == "" {
			b.Fatal("empty diff")
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkReplace10kTolerant is the same edit found on the indentation
// rung (old_string indented with spaces, the file with a tab).
func BenchmarkReplace10kTolerant(b *testing.B) {
	content := []byte(tenKLines())
	r := Replacement{OldString: "    value05000 := compute(5000, \"some text on line 5000\")", NewString: "    x := 1"}
	for b.Loop() {
		res, err := Replace(content, r)
		if err != nil || res.Rung != RungIndentation {
			b.Fatal(res.Rung, err)
		}
	}
}

// BenchmarkNearest10k measures the failure path: finding the nearest
// match of a three-line old_string in a 10,000-line file.
func BenchmarkNearest10k(b *testing.B) {
	s := tenKLines()
	want := "\tvalue05000 := compute(5000, \"some txt on line 5000\")\n\tvalue05001 := compute(5001, \"some text on line 5001\")\n\tvalue05002 := compute(5002, \"some text on line 5002\")"
	for b.Loop() {
		if n := FindNearest(s, want); n == nil || n.StartLine != 5001 {
			b.Fatalf("FindNearest = %+v", n)
		}
	}
}

// BenchmarkApplyPatch10k measures apply_patch's planning: twenty unified hunks, each with three
// lines of context, on a 10,000-line file.
func BenchmarkApplyPatch10k(b *testing.B) {
	content := []byte(tenKLines())
	var p strings.Builder
	p.WriteString("--- a/big.go\n+++ b/big.go\n")
	for h := range 20 {
		at := 200 + h*450
		fmt.Fprintf(&p, "@@ -%d,7 +%d,7 @@\n", at-2, at-2)
		for i := at - 3; i < at+4; i++ {
			line := fmt.Sprintf("\tvalue%05d := compute(%d, \"some text on line %d\") // trailing comment", i, i, i)
			if i == at {
				fmt.Fprintf(&p, "-%s\n+\tvalue%05d := compute(%d, \"changed\")\n", line, i, i)
				continue
			}
			p.WriteString(" " + line + "\n")
		}
	}
	patch, err := ParsePatch(p.String())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ApplyHunks(content, patch.Files[0].Hunks); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplace10kNotFound measures a replace_string that matches on no rung of the ladder,
// nearest text included: the slowest answer.
func BenchmarkReplace10kNotFound(b *testing.B) {
	content := []byte(tenKLines())
	r := Replacement{OldString: "\tvalue05000 := compute(5000, \"some txt on line 5000\")\n\tvalue05001 := compute(5001, \"some text on line 5001\")", NewString: "x"}
	for b.Loop() {
		if _, err := Replace(content, r); !errors.Is(err, ErrNotFound) {
			b.Fatal(err)
		}
	}
}
