package codeintel

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGoScanAgreesWithTheParser compares the line scanner with go/parser on the standard
// library: every definition the parser finds (top-level functions, methods, types, fields,
// interface methods, constants, variables) must be found by the scanner at the same line, with
// the same kind and container, in all but a few files (generated or oddly formatted).
func TestGoScanAgreesWithTheParser(t *testing.T) {
	src := filepath.Join(runtime.GOROOT(), "src")
	var files, bad, missing, total int
	var examples []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "testdata" {
			return fs.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || files >= 3000 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		parsed, ok := goOutline(p, b)
		if !ok {
			return nil
		}
		files++
		got := map[string]bool{}
		for _, s := range goScan(p, b) {
			got[fmt.Sprintf("%d %s %s.%s", s.Line, s.Kind, s.Container, s.Name)] = true
		}
		fileBad := false
		for _, s := range flatten(parsed) {
			if s.Kind == KindField && s.Container == "" {
				continue
			}
			total++
			k := fmt.Sprintf("%d %s %s.%s", s.Line, s.Kind, s.Container, s.Name)
			if !got[k] {
				missing++
				fileBad = true
				if len(examples) < 10 {
					examples = append(examples, p+": "+k)
				}
			}
		}
		if fileBad {
			bad++
		}
		return nil
	})
	t.Logf("%d files, %d definitions; the scanner missed %d in %d files", files, total, missing, bad)
	if float64(missing) > 0.01*float64(total) {
		t.Errorf("the scanner missed %d of %d definitions (over 1%%), e.g.:\n%s", missing, total, strings.Join(examples, "\n"))
	}
}
