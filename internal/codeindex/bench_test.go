package codeindex_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	. "toolhost/internal/codeindex"
	"toolhost/internal/codeintel"
	"toolhost/internal/codeintel/codetest"
	"toolhost/internal/fsread"
)

// The benchmarks run on codetest.GoTree: at least 90,000 files, copies of $GOROOT/src with
// their packages renamed, made once in $TOOLHOST_BENCH_TREE (default: the temp dir).
//
//	go test ./internal/codeindex/ -run '^$' -bench . -benchtime 1x
//
// Ratios are against ripgrep run on the same tree in the same benchmark (rg from Debian's
// package; the benchmarks that need it skip without it).

// peakRSS resets the process's peak resident set (Linux) and returns a function reporting the
// peak since, in MB.
func peakRSS() func() float64 {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return func() float64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				return float64(kb) / 1024
			}
		}
		return 0
	}
}

func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

func benchIndex(b *testing.B, dir string) (*Index, *os.Root) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	// As the server builds it: with the names each file defines (find_symbol).
	ix := Open(Config{Dir: filepath.Join(b.TempDir(), "index"), Root: root, RootPath: dir, Symbols: codeintel.DefinedNames})
	b.Cleanup(func() { ix.Close() })
	return ix, root
}

// BenchmarkIndexBuild builds the index of the whole tree from scratch: seconds and peak RSS.
func BenchmarkIndexBuild(b *testing.B) {
	dir := codetest.GoTree(b)
	files := countFiles(dir)
	for b.Loop() {
		ix, _ := benchIndex(b, dir)
		debug.FreeOSMemory()
		peak := peakRSS()
		start := time.Now()
		if err := ix.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "build-s")
		b.ReportMetric(peak(), "peak-RSS-MB")
		s := ix.Status()
		b.ReportMetric(float64(s.DiskBytes)/(1<<20), "disk-MB")
		b.ReportMetric(float64(files), "files")
		ix.Close()
	}
}

// BenchmarkGrepRepeated times a repeated grep_search (literal, regex) through the index, the
// walking search, and rg on the same tree; the ratios are index/rg.
func BenchmarkGrepRepeated(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not installed (apt-get install ripgrep)")
	}
	dir := codetest.GoTree(b)
	ix, root := benchIndex(b, dir)
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		o    fsread.GrepOptions
		rg   []string
	}{
		{"literal", fsread.GrepOptions{Pattern: "ParseFloat(", Literal: true}, []string{"-F", "ParseFloat("}},
		{"regex", fsread.GrepOptions{Pattern: `func \(\w+ \*Reader\) Read\w*\(`}, []string{`func \(\w+ \*Reader\) Read\w*\(`}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			timeIt := func(n int, f func()) time.Duration {
				f() // warm
				start := time.Now()
				for range n {
					f()
				}
				return time.Since(start) / time.Duration(n)
			}
			var total int
			indexed := timeIt(10, func() {
				plan, ok := ix.PlanGrep(ctx, ".", c.o)
				if !ok {
					b.Fatal("the index did not answer")
				}
				r, err := fsread.GrepPlanned(ctx, root, c.o, plan)
				if err != nil {
					b.Fatal(err)
				}
				total = r.TotalMatches
			})
			walked := timeIt(2, func() {
				r, err := fsread.Grep(ctx, root, ".", c.o)
				if err != nil {
					b.Fatal(err)
				}
				if r.TotalMatches != total {
					b.Fatalf("walk found %d, index %d", r.TotalMatches, total)
				}
			})
			ripgrep := timeIt(3, func() {
				cmd := exec.Command(rg, append([]string{"-n", "--no-messages"}, append(c.rg, ".")...)...)
				cmd.Dir = dir
				cmd.Run()
			})
			for b.Loop() {
			}
			b.ReportMetric(float64(indexed.Microseconds())/1000, "index-ms")
			b.ReportMetric(float64(walked.Microseconds())/1000, "walk-ms")
			b.ReportMetric(float64(ripgrep.Microseconds())/1000, "rg-ms")
			b.ReportMetric(float64(indexed)/float64(ripgrep), "index/rg")
			b.ReportMetric(float64(walked)/float64(ripgrep), "walk/rg")
			b.ReportMetric(float64(total), "matches")
		})
	}
}

// BenchmarkIndexUpdate edits a file and measures how long until the index holds the edit
// (the search right after the edit sees it already: dirty files are read).
func BenchmarkIndexUpdate(b *testing.B) {
	dir := codetest.GoTree(b)
	ix, root := benchIndex(b, dir)
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	target := filepath.Join(dir, "copy0", "strings", "strings.go")
	orig, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(target, orig, 0o644)
	var worst, sum time.Duration
	n := 0
	for b.Loop() {
		word := fmt.Sprintf("zqxEditMarker%d", n)
		start := time.Now()
		if err := os.WriteFile(target, append(orig, []byte("\n// "+word+"\n")...), 0o644); err != nil {
			b.Fatal(err)
		}
		o := fsread.GrepOptions{Pattern: word, Literal: true}
		plan, ok := ix.PlanGrep(context.Background(), ".", o)
		if !ok {
			b.Fatal("the index did not answer")
		}
		r, err := fsread.GrepPlanned(context.Background(), root, o, plan)
		if err != nil || r.TotalMatches != 1 {
			b.Fatalf("the search right after the edit found %d matches (%v)", r.TotalMatches, err)
		}
		for ix.Status().Dirty > 0 {
			time.Sleep(time.Millisecond)
		}
		d := time.Since(start)
		sum += d
		worst = max(worst, d)
		n++
	}
	b.ReportMetric(float64(sum.Microseconds())/float64(n)/1000, "update-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-update-ms")
}
