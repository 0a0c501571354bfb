package fsread

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGrepAgreesWithRipgrep runs the real rg over the shared fixture tree
// (nested .gitignore files, hidden files, a binary file, symlinks, a FIFO)
// and checks that Grep reports the same path:line set. Skipped without rg.
func TestGrepAgreesWithRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not on PATH")
	}
	root, dir := treeFixture(t)
	tests := []struct {
		name   string
		opts   GrepOptions
		rgArgs []string
	}{
		{"literal", GrepOptions{Pattern: "needle", Literal: true}, []string{"-F", "needle"}},
		{"ignore case", GrepOptions{Pattern: "needle", IgnoreCase: true}, []string{"-i", "needle"}},
		{"regex", GrepOptions{Pattern: `^func \w+\(`}, []string{`^func \w+\(`}},
		{"alternation", GrepOptions{Pattern: `upper|here`}, []string{`upper|here`}},
		// rg --hidden enters .git; fsread never does.
		{"hidden", GrepOptions{Pattern: "needle", IncludeHidden: true}, []string{"--hidden", "-g", "!.git", "needle"}},
		{"no ignore", GrepOptions{Pattern: "needle", IncludeIgnored: true}, []string{"--no-ignore", "needle"}},
		// rg's -g also re-includes gitignored files; fsread's Include only
		// narrows, so compare on a glob no ignored file matches.
		{"include glob", GrepOptions{Pattern: "e", Include: []string{"*.txt"}}, []string{"-g", "*.txt", "e"}},
		{"exclude glob", GrepOptions{Pattern: "e", Exclude: []string{"*.go"}}, []string{"-g", "!*.go", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--no-require-git", "--no-config", "-n", "--no-heading", "--color", "never", "--no-messages"}, tt.rgArgs...)
			cmd := exec.Command(rg, args...)
			cmd.Dir = dir
			out, err := cmd.Output()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
				t.Fatalf("rg %v: %v", args, err)
			}
			var want []string
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				parts := strings.SplitN(sc.Text(), ":", 3)
				if len(parts) == 3 {
					want = append(want, parts[0]+":"+parts[1])
				}
			}
			tt.opts.MaxMatches = 1000
			res, err := Grep(context.Background(), root, "", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Matches {
				got = append(got, m.Path+":"+itoa(m.Line))
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Grep vs rg %v (-rg +fsread):\n%s", tt.rgArgs, diff)
			}
		})
	}
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
