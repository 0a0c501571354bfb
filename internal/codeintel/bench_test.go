package codeintel

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel/codetest"
	"toolhost/internal/filetest"
)

// On the generated tree of at least 90,000 files (codetest.GoTree):
//
//	go test ./internal/codeintel/ -run '^$' -bench . -benchtime 1x
//
// find_symbol for exact names with the index built and warm (p50, p90), against rg looking for
// the same names as words on the same tree; document_symbols of a 2,000-line file.

var benchNames = []string{"NewReader", "ParseFloat", "Sprintf", "Marshal", "Unmarshal", "Join", "Copy", "Open",
	"Close", "Encode", "Decode", "Lookup", "Compile", "MustCompile", "WriteString", "ReadFile", "NewEncoder",
	"Parse", "Format", "Equal", "Index", "Split", "Trim", "Contains", "Errorf", "Duration", "Context", "Buffer",
	"Builder", "Reader"}

func BenchmarkFindSymbol(b *testing.B) {
	dir := codetest.GoTree(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	ix := codeindex.Open(codeindex.Config{Dir: filepath.Join(b.TempDir(), "index"), Root: root, RootPath: dir, Symbols: DefinedNames})
	defer ix.Close()
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	e := NewEngine(Config{Root: root, RootPath: dir, Index: ix})
	ctx := context.Background()
	find := func(name string) (time.Duration, int) {
		start := time.Now()
		r, err := e.FindSymbol(ctx, SymbolQuery{Name: name, Max: 50})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), r.Total
	}
	for _, n := range benchNames { // warm: the index's pages and the outline cache
		find(n)
	}
	var times []time.Duration
	found := 0
	for range 3 {
		for _, n := range benchNames {
			d, total := find(n)
			times = append(times, d)
			found += total
		}
	}
	slices.Sort(times)
	p50, p90 := times[len(times)/2], times[len(times)*9/10]
	// The reference: rg finding the same names as whole words, on the same tree.
	var rgTimes []time.Duration
	if rg, err := exec.LookPath("rg"); err == nil {
		for _, n := range benchNames[:5] {
			start := time.Now()
			cmd := exec.Command(rg, "-l", "-w", "--no-messages", n, ".")
			cmd.Dir = dir
			cmd.Run()
			rgTimes = append(rgTimes, time.Since(start))
		}
		slices.Sort(rgTimes)
	}
	for b.Loop() {
	}
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p90.Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(found)/float64(len(times)), "symbols/query")
	if len(rgTimes) > 0 {
		rgP50 := rgTimes[len(rgTimes)/2]
		b.ReportMetric(float64(rgP50.Microseconds())/1000, "rg-words-p50-ms")
		b.ReportMetric(float64(p50)/float64(rgP50), "p50/rg")
	}
}

// BenchmarkDocumentSymbols outlines a 2,000-line Go file (go/printer/nodes.go, 1,999 lines)
// with the Go parser, and a generated 2,000-line TypeScript file with the line recogniser.
func BenchmarkDocumentSymbols(b *testing.B) {
	dir := b.TempDir()
	src, err := os.ReadFile(filepath.Join(runtimeGOROOT(), "src", "go", "printer", "nodes.go"))
	if err != nil {
		b.Fatal(err)
	}
	var ts strings.Builder
	for i := 0; strings.Count(ts.String(), "\n") < 2000; i++ {
		fmt.Fprintf(&ts, "export class C%d {\n  private n%d: number = 0;\n  get%d(x: number): number {\n    return this.n%d + x;\n  }\n}\n\nexport function f%d(a: string): string {\n  return a;\n}\n", i, i, i, i, i)
	}
	filetest.Write(b, dir, map[string]string{"nodes.go": string(src), "big.ts": ts.String()})
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	e := NewEngine(Config{Root: root, RootPath: dir})
	for _, f := range []string{"nodes.go", "big.ts"} {
		b.Run(f, func(b *testing.B) {
			n := 0
			for b.Loop() {
				e.outline = newLRU[outlineKey, []Symbol](8) // no cache: parse every time
				o, err := e.DocumentSymbols(context.Background(), f, 0, false)
				if err != nil {
					b.Fatal(err)
				}
				n = len(o.Files[0].Symbols)
			}
			b.ReportMetric(float64(n), "symbols")
		})
	}
}

func runtimeGOROOT() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "/usr/local/go"
	}
	return strings.TrimSpace(string(out))
}
