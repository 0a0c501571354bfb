package edit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestFindNearest(t *testing.T) {
	file := "package p\n\nfunc A() {\n\tx := 1\n\ty := 2\n}\n\nfunc B() {\n\tz := 3\n}\n"
	tests := []struct {
		name       string
		file, want string
		start, end int
		minSim     float64
	}{
		{"typo in middle line", file, "func A() {\n\tx := 11\n\ty := 2", 3, 5, 0.9},
		{"wrong indentation and quotes", file, "    z := 3\n}", 9, 10, 0.5},
		{"single line", file, "func Bee() {", 8, 8, 0.7},
		{"longer than the file", "a\nb\n", "a\nb\nc\nd", 1, 2, 0.3},
		{"start of a long line", "func Count(s, substr string) int {\n\treturn 0\n}\n\nfunc Cut(s, sep string) (before, after string, found bool) {\n\treturn\n}\n",
			"func Cutt(s, sep string)", 5, 5, 0.9},
		{"middle of a line", "x := compute(alpha, beta)\ny := other(gamma)\nz := computeAll(alpha, beta, delta)\n", "computeAll(alpha, betta, delta)", 3, 3, 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := FindNearest(tt.file, tt.want)
			if n == nil {
				t.Fatalf("FindNearest(%q) = nil", tt.want)
			}
			if n.StartLine != tt.start || n.EndLine != tt.end || n.Similarity < tt.minSim {
				t.Errorf("FindNearest(%q) = lines %d-%d sim %.2f, want lines %d-%d sim >= %.2f", tt.want, n.StartLine, n.EndLine, n.Similarity, tt.start, tt.end, tt.minSim)
			}
			if !strings.HasPrefix(n.Diff, "--- old_string\n+++ file line") {
				t.Errorf("FindNearest(%q) diff = %q", tt.want, n.Diff)
			}
		})
	}
	if n := FindNearest("", "x"); n != nil {
		t.Errorf("FindNearest on empty file = %+v, want nil", n)
	}
}

func TestApplyPatchStaleAndCap(t *testing.T) {
	ctx := context.Background()
	root, dir := openRoot(t, map[string]string{"f": strings.Repeat("line\n", 100)})
	stale := map[string]Fingerprint{"f": FingerprintOf([]byte("other"), nil)}
	patch := "*** Begin Patch\n*** Update File: f\n@@\n-line\n+LINE\n*** End Patch\n"
	if _, err := ApplyPatch(ctx, root, patch, Options{Expect: stale}); !errors.Is(err, ErrStale) {
		t.Errorf("ApplyPatch with stale fingerprint = %v, want %v", err, ErrStale)
	}
	fresh, err := FingerprintFile(root, "f")
	if err != nil {
		t.Fatal(err)
	}
	res, err := CreateFile(ctx, root, "f", []byte(strings.Repeat("LINE\n", 100)), ModeOverwrite, Options{Expect: map[string]Fingerprint{"f": fresh}, MaxDiffLines: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(res.Diff, "\n"); got != 11 || !strings.Contains(res.Diff, "more diff lines not shown") {
		t.Errorf("capped diff has %d lines:\n%s", got, res.Diff)
	}
	if snapshot(t, dir)["f"] != strings.Repeat("LINE\n", 100) {
		t.Error("overwrite not written")
	}
}
