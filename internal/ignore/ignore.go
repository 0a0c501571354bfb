// Package ignore decides whether a path is excluded by gitignore rules, so
// that the file engines (list, glob, grep) hide the same files git hides.
//
// The rules follow gitignore(5): blank lines and "#" comments are skipped,
// trailing unescaped spaces are trimmed, "!" negates, a trailing "/" matches
// directories only, a slash at the start or in the middle anchors the pattern
// to the directory of the file that holds it, "*" and "?" never match "/",
// and "**" matches any number of directories. Patterns in deeper .gitignore
// files override shallower ones, and within a file the last match wins.
// .git/info/exclude has the lowest precedence. ".git" itself is always
// ignored.
//
// A Matcher is an immutable chain of pattern sets, one per directory. Walks
// extend it with Enter as they descend, so each .gitignore is read once and
// sibling subtrees share their parents' rules without copying.
package ignore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// maxIgnoreFileSize bounds how much of a .gitignore we read: a huge or
// hostile file must not stall a walk or blow up memory.
const maxIgnoreFileSize = 1 << 20

// Pattern is one parsed gitignore line.
type Pattern struct {
	// segs are the slash-separated pieces of the pattern; "**" is kept as a
	// segment of its own.
	segs     []string
	negate   bool
	dirOnly  bool
	anchored bool
	// trailingDoubleStar records "foo/**", which matches everything inside
	// foo but not foo itself.
	trailingDoubleStar bool
	// text is the original line, kept for debugging and tests.
	text string
}

// String returns the line the pattern was parsed from.
func (p Pattern) String() string { return p.text }

// ParseLine parses one gitignore line. ok is false for blank lines and
// comments.
func ParseLine(line string) (p Pattern, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	orig := line
	if line == "" || strings.HasPrefix(line, "#") {
		return Pattern{}, false
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return Pattern{}, false
	}
	if strings.HasPrefix(line, "!") {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return Pattern{}, false
	}
	if strings.Contains(line, "/") {
		p.anchored = true
	}
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return Pattern{}, false
	}
	for _, s := range strings.Split(line, "/") {
		if s == "" {
			continue // "a//b" behaves like "a/b"
		}
		if s == "**" && len(p.segs) > 0 && p.segs[len(p.segs)-1] == "**" {
			continue
		}
		p.segs = append(p.segs, convertClass(s))
	}
	if len(p.segs) == 0 {
		return Pattern{}, false
	}
	if len(p.segs) > 1 && p.segs[len(p.segs)-1] == "**" {
		p.trailingDoubleStar = true
	}
	if len(p.segs) == 1 && p.segs[0] == "**" {
		p.anchored = false
	}
	p.text = orig
	return p, true
}

// trimTrailingSpaces removes trailing spaces unless the last one is escaped
// with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		if strings.HasSuffix(s, `\ `) {
			return s[:len(s)-2] + " "
		}
		s = s[:len(s)-1]
	}
	return s
}

// convertClass rewrites gitignore's "[!...]" negated classes to the "[^...]"
// form that path.Match understands.
func convertClass(s string) string {
	if !strings.Contains(s, "[!") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteByte(s[i])
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if s[i] == '[' && i+1 < len(s) && s[i+1] == '!' {
			b.WriteString("[^")
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Match reports whether the pattern matches rel, a slash-separated path
// relative to the directory holding the pattern's file.
func (p Pattern) Match(rel string, isDir bool) bool {
	return p.match(path.Base(rel), func() []string { return strings.Split(rel, "/") }, isDir)
}

// match takes the base name and a lazy splitter so that Matcher.Ignored
// splits a path once for all patterns of a level, and only when an anchored
// pattern needs it.
func (p Pattern) match(base string, parts func() []string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if !p.anchored {
		// A pattern without a slash matches the name at any level.
		return segMatch(p.segs[0], base)
	}
	return matchSegs(p.segs, parts(), p.trailingDoubleStar)
}

// matchSegs matches pattern segments against path segments, with "**"
// matching zero or more whole segments (one or more when it is the trailing
// segment, as gitignore's "foo/**" does not match foo itself).
func matchSegs(pat, parts []string, trailing bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return !trailing || len(parts) > 0
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegs(rest, parts[i:], trailing) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !segMatch(pat[0], parts[0]) {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

func segMatch(pat, name string) bool {
	if !strings.ContainsAny(pat, `*?[\`) {
		return pat == name
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// Parse reads gitignore patterns from r, skipping blank lines and comments.
func Parse(r io.Reader) ([]Pattern, error) {
	var out []Pattern
	sc := bufio.NewScanner(io.LimitReader(r, maxIgnoreFileSize))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFileSize)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			line = strings.TrimPrefix(line, "\uFEFF") // git skips a UTF-8 BOM
			first = false
		}
		if p, ok := ParseLine(line); ok {
			out = append(out, p)
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// Matcher is an immutable chain of pattern sets from the walk's top
// directory down to the current one. The zero value and nil ignore only
// ".git".
type Matcher struct {
	parent *Matcher
	// dir is the slash-separated directory, relative to the root, whose
	// .gitignore produced patterns; "" is the root.
	dir      string
	patterns []Pattern
}

// New builds a matcher for the root directory: .git/info/exclude first (lowest
// precedence), then the root .gitignore. Missing files are not errors; a
// .gitignore that cannot be read is skipped, because hiding nothing is a safer
// failure for a search tool than failing the whole walk.
func New(ctx context.Context, root *os.Root) *Matcher {
	var m *Matcher
	if ps := readPatterns(root, ".git/info/exclude"); len(ps) > 0 {
		m = &Matcher{dir: "", patterns: ps}
	}
	return m.Enter(root, "")
}

// ForDir builds the matcher for dir (relative to root) by reading every
// .gitignore from the root down to dir. Use it when a walk starts below the
// root, so rules from the parents still apply.
func ForDir(ctx context.Context, root *os.Root, dir string) *Matcher {
	m := New(ctx, root)
	dir = cleanRel(dir)
	if dir == "" {
		return m
	}
	cur := ""
	for _, part := range strings.Split(dir, "/") {
		if ctx.Err() != nil {
			return m
		}
		if cur == "" {
			cur = part
		} else {
			cur += "/" + part
		}
		m = m.Enter(root, cur)
	}
	return m
}

// Enter returns the matcher for the directory dir (relative to root), adding
// dir's .gitignore if it has one. It returns m itself when there is none, so
// most directories cost one failed open and no allocation.
func (m *Matcher) Enter(root *os.Root, dir string) *Matcher {
	dir = cleanRel(dir)
	name := ".gitignore"
	if dir != "" {
		name = dir + "/.gitignore"
	}
	ps := readPatterns(root, name)
	if len(ps) == 0 {
		return m
	}
	return &Matcher{parent: m, dir: dir, patterns: ps}
}

// EnterWithEntries is Enter for walks that have already listed dir: when
// hasGitignore is false it skips the open entirely.
func (m *Matcher) EnterWithEntries(root *os.Root, dir string, hasGitignore bool) *Matcher {
	if !hasGitignore {
		return m
	}
	return m.Enter(root, dir)
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// ignored. It looks at rel's own name only; callers that walk top-down never
// reach children of an ignored directory. Use IgnoredPath for a path whose
// parents have not been checked.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	rel = cleanRel(rel)
	if rel == "" {
		return false
	}
	base := path.Base(rel)
	if base == ".git" {
		return true
	}
	for cur := m; cur != nil; cur = cur.parent {
		sub := rel
		if cur.dir != "" {
			if len(rel) <= len(cur.dir) || rel[len(cur.dir)] != '/' || !strings.HasPrefix(rel, cur.dir) {
				continue
			}
			sub = rel[len(cur.dir)+1:]
		}
		var parts []string
		split := func() []string {
			if parts == nil {
				parts = strings.Split(sub, "/")
			}
			return parts
		}
		for i := len(cur.patterns) - 1; i >= 0; i-- {
			if cur.patterns[i].match(base, split, isDir) {
				return !cur.patterns[i].negate
			}
		}
	}
	return false
}

// IgnoredPath reports whether rel or any of its parent directories is
// ignored, which is what git reports for a file inside an ignored directory.
func (m *Matcher) IgnoredPath(rel string, isDir bool) bool {
	rel = cleanRel(rel)
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if m.Ignored(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return m.Ignored(rel, isDir)
}

func cleanRel(rel string) string {
	rel = strings.Trim(rel, "/")
	if rel == "." {
		return ""
	}
	return strings.TrimPrefix(rel, "./")
}

// readPatterns reads one ignore file through root, refusing anything that is
// not a small regular file (a FIFO named .gitignore must not block a walk).
func readPatterns(root *os.Root, name string) []Pattern {
	fi, err := root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := root.OpenFile(name, os.O_RDONLY|nonblockFlag, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileSize))
	if err != nil && !errors.Is(err, fs.ErrClosed) {
		return nil
	}
	ps, _ := Parse(bytes.NewReader(data))
	return ps
}
