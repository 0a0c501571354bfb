package docs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// pending names files a document may link to before they exist, each with its reason: a file
// that another change brings. Like a planned module in internal/app/deps_test.go, a line must go
// once its file lands (TestLinks fails then), so the exception cannot outlive its reason.
var pending = map[string]string{}

// TestLinks checks every relative link of README.md, ARCHITECTURE.md and docs/*.md: the file
// (or directory) exists and, with a #anchor, the target file has that heading.
func TestLinks(t *testing.T) {
	root := ".."
	files := []string{"README.md", "ARCHITECTURE.md"}
	manuals, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(manuals) == 0 {
		t.Fatal("no docs/*.md found")
	}
	for _, m := range manuals {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(m, root+string(filepath.Separator))))
	}
	for name, reason := range pending {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			t.Errorf("%s exists now: remove its line from pending (%s)", name, reason)
		}
	}
	problems, checked := checkLinks(root, files, pending)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d relative links checked in %d files", checked, len(files))
	if checked < 50 {
		t.Errorf("only %d links checked; does the link pattern still match?", checked)
	}
}

// TestCheckLinks shows that checkLinks finds what it should, and only that.
func TestCheckLinks(t *testing.T) {
	tests := []struct {
		name string
		doc  string // the text of a.md; b.md has "# B", "## Second part", "## Second part"
		want []string
	}{
		{"file and anchors", "[b](b.md) [s](b.md#second-part) [s1](b.md#second-part-1) [top](#a)\n# A\n", nil},
		{"directory", "[dir](sub/)\n", nil},
		{"external and mail", "[x](https://example.com/none) [m](mailto:a@example.com)\n", nil},
		{"missing file", "[c](c.md)\n", []string{"a.md:1: c.md: no such file"}},
		{"missing anchor", "[b](b.md#third)\n", []string{"a.md:1: b.md#third: no heading with that anchor"}},
		{"missing anchor in the same file", "# A\n[x](#b)\n", []string{"a.md:2: #b: no heading with that anchor"}},
		{"a third duplicate is not there", "[b](b.md#second-part-2)\n", []string{"a.md:1: b.md#second-part-2: no heading with that anchor"}},
		{"image", "![shot](shot.png)\n", []string{"a.md:1: shot.png: no such file"}},
		{"absolute path", "[r](/README.md)\n", []string{"a.md:1: /README.md: use a path relative to the document"}},
		{"code span is not a link", "`[c](c.md)`\n", nil},
		{"code span over a line end", "text `a\n[c](c.md)` [d](d.md)\n", []string{"a.md:2: d.md: no such file"}},
		{"link text over a line end", "see [the\nfile](c.md)\n", []string{"a.md:1: c.md: no such file"}},
		{"fence is not a link", "```md\n[c](c.md)\n```\n", nil},
		{"a heading in a fence is no anchor", "```sh\n# comment\n```\n[x](#comment)\n", []string{"a.md:4: #comment: no heading with that anchor"}},
		{"pending file", "[p](p.md)\n", nil},
		{"escaped path", "[b](b%2Emd)\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("a.md", tt.doc)
			write("b.md", "# B\n\n## Second part\n\ntext\n\n## Second part\n")
			write("sub/x.md", "# X\n")
			problems, _ := checkLinks(dir, []string{"a.md"}, map[string]string{"p.md": "test"})
			if !slices.Equal(problems, tt.want) {
				t.Errorf("checkLinks = %q, want %q", problems, tt.want)
			}
		})
	}
}

// TestAnchor pins the anchors headings get, as GitHub makes them.
func TestAnchor(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"The working-directory guard", "the-working-directory-guard"},
		{"Terminals: what is and is not enforced", "terminals-what-is-and-is-not-enforced"},
		{"1. The tool list (fixed order, never more than 11)", "1-the-tool-list-fixed-order-never-more-than-11"},
		{"When the state directory is damaged, read-only or full", "when-the-state-directory-is-damaged-read-only-or-full"},
		{"The `git` executable", "the-git-executable"},
		{"Figures — §7 and *more*", "figures--7-and-more"},
		{"snake_case stays", "snake_case-stays"},
	}
	for _, tt := range tests {
		if got := anchor(tt.heading); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

var (
	// linkPattern matches [text](target) and ![alt](target), with an optional "title".
	linkPattern = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan    = regexp.MustCompile("`+[^`]*`+")
	scheme      = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// checkLinks reads each file (slash-separated, relative to root) and returns one line per broken
// relative link, and the number of relative links it checked. Links to a file of pending are
// accepted while it does not exist.
func checkLinks(root string, files []string, pending map[string]string) (problems []string, checked int) {
	anchors := map[string]map[string]bool{} // file relative to root → its anchors
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		a := map[string]bool{}
		if b, err := os.ReadFile(filepath.Join(root, file)); err == nil {
			for _, h := range headings(string(b)) {
				a[h] = true
			}
		}
		anchors[file] = a
		return a
	}
	for _, file := range files {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		// Code spans may run over a line end; each becomes the line ends it held, so line
		// numbers stay the file's.
		prose := codeSpan.ReplaceAllStringFunc(strings.Join(proseLines(string(b)), "\n"), func(span string) string {
			return strings.Repeat("\n", strings.Count(span, "\n"))
		})
		for _, at := range linkPattern.FindAllStringSubmatchIndex(prose, -1) {
			target := prose[at[2]:at[3]]
			if scheme.MatchString(target) {
				continue
			}
			checked++
			line := strings.Count(prose[:at[0]], "\n") + 1 // a link's text may run over a line end
			if p := checkTarget(root, file, target, pending, anchorsOf); p != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", file, line, target, p))
			}
		}
	}
	return problems, checked
}

// checkTarget says what is wrong with a relative link target of file, or "" when nothing is.
func checkTarget(root, file, target string, pending map[string]string, anchorsOf func(string) map[string]bool) string {
	if strings.HasPrefix(target, "/") {
		return "use a path relative to the document"
	}
	path, frag, _ := strings.Cut(target, "#")
	path, err := url.PathUnescape(path)
	if err != nil {
		return err.Error()
	}
	dest := file
	if path != "" {
		dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), path)))
		if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
			if _, ok := pending[dest]; ok {
				return ""
			}
			return "no such file"
		}
	}
	if frag != "" && !anchorsOf(dest)[frag] {
		return "no heading with that anchor"
	}
	return ""
}

// proseLines returns the lines of a Markdown text with those inside fenced code blocks (and the
// fences) blanked, so that line numbers stay those of the file.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// headings returns the anchors of a Markdown text's ATX headings, numbered as GitHub numbers
// repeated ones (x, x-1, x-2).
func headings(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		m := headingLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := anchor(m[1])
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// anchor is GitHub's anchor of a heading: lower case, letters, digits, '-' and '_' kept, spaces
// made '-', everything else dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
