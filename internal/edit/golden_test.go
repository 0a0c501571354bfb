package edit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"toolhost/internal/golden"
)

const goSource = `package shop

import "fmt"

// Total adds up the cart.
func Total(items []Item) int {
	sum := 0
	for _, it := range items {
		sum += it.Price * it.Qty
	}
	return sum
}

func Describe(it Item) string {
	return fmt.Sprintf("%s x%d", it.Name, it.Qty)
}

func Describe2(it Item) string {
	return fmt.Sprintf("%s x%d", it.Name, it.Qty)
}
`

// TestGoldenTexts pins the texts the model sees: failure diagnostics and
// diffs. Rewrite with: TOOLHOST_GOLDEN=update go test ./internal/edit -run TestGoldenTexts
func TestGoldenTexts(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"shop.go": goSource, "notes.md": "# Notes\n\nfirst\nsecond\n"}
	cases := []struct {
		name string
		run  func(t *testing.T) string
	}{
		{"replace_not_found_nearest", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ReplaceInFile(ctx, root, "shop.go", Replacement{
				OldString: "\tfor _, item := range items {\n\t\tsum += it.Price * it.Qty\n\t}",
				NewString: "x",
			}, Options{})
			return errText(err)
		}},
		{"replace_no_similar_text", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ReplaceInFile(ctx, root, "shop.go", Replacement{OldString: "zzzz qqqq wwww", NewString: "x"}, Options{})
			return errText(err)
		}},
		{"replace_ambiguous", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ReplaceInFile(ctx, root, "shop.go", Replacement{OldString: `return fmt.Sprintf("%s x%d", it.Name, it.Qty)`, NewString: "x"}, Options{})
			return errText(err)
		}},
		{"replace_ambiguous_tolerant", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ReplaceInFile(ctx, root, "shop.go", Replacement{OldString: `    return fmt.Sprintf("%s x%d", it.Name, it.Qty)`, NewString: "x"}, Options{})
			return errText(err)
		}},
		{"replace_count_mismatch", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ReplaceInFile(ctx, root, "shop.go", Replacement{OldString: "it.Qty", NewString: "it.Count", ExpectedReplacements: 2}, Options{})
			return errText(err)
		}},
		{"multi_replace_failure", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := MultiReplace(ctx, root, []FileReplacement{
				{Path: "notes.md", Replacement: Replacement{OldString: "first", NewString: "1st"}},
				{Path: "shop.go", Replacement: Replacement{OldString: "func Totals(items []Item) int {", NewString: "x"}},
			}, Options{})
			return errText(err)
		}},
		{"replace_diff", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			res, err := ReplaceInFile(ctx, root, "shop.go", Replacement{
				OldString: "    sum := 0\n    for _, it := range items {",
				NewString: "    sum := 0\n    // Quantities are never negative.\n    for _, it := range items {",
			}, Options{})
			if err != nil {
				return errText(err)
			}
			return fmt.Sprintf("rung: %s, lines: %v\n%s", res.Rung, res.Lines, res.Diff)
		}},
		{"patch_hunk_fails", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ApplyPatch(ctx, root, "--- a/notes.md\n+++ b/notes.md\n@@ -3 +3 @@\n-first\n+1st\n--- a/shop.go\n+++ b/shop.go\n@@ -14,3 +14,3 @@\n func Describe(it Item) string {\n-\treturn fmt.Sprintf(\"%s x %d\", it.Name, it.Qty)\n+\treturn it.Name\n }\n", Options{})
			return errText(err)
		}},
		{"patch_parse_error", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			_, err := ApplyPatch(ctx, root, "*** Begin Patch\n*** Update File: notes.md\n@@\n first\n-second\nsecond!\n*** End Patch\n", Options{})
			return errText(err)
		}},
		{"patch_dry_run_diff", func(t *testing.T) string {
			root, _ := openRoot(t, files)
			res, err := ApplyPatch(ctx, root, "*** Begin Patch\n*** Add File: docs/a.md\n+hello\n*** Update File: notes.md\n*** Move to: notes/notes.md\n@@\n first\n-second\n+second, revised\n*** Delete File: shop.go\n*** End Patch\n", Options{DryRun: true, MaxDiffLines: 30})
			if err != nil {
				return errText(err)
			}
			return fmt.Sprintf("files: %+v\n%s", res.Files, res.Diff)
		}},
		{"stale_error", func(t *testing.T) string {
			e := &StaleError{Path: "shop.go", Want: Fingerprint{Size: 10}, Got: Fingerprint{Size: 12, ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
			return e.Error() + "\n"
		}},
		{"capped_diff", func(t *testing.T) string {
			a := strings.Repeat("line\n", 50)
			b := strings.Repeat("LINE\n", 50)
			return CapDiff(UnifiedDiff("a/f", "b/f", []byte(a), []byte(b), 3), 12)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden.CheckString(t, "testdata/"+c.name+".golden", c.run(t))
		})
	}
}

func errText(err error) string {
	if err == nil {
		return "<no error>\n"
	}
	text := err.Error() + "\n"
	var n interface{ Next() string }
	if errors.As(err, &n) && n.Next() != "" {
		text += "next: " + n.Next() + "\n"
	}
	return text
}
