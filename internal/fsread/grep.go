package fsread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Grep defaults.
const (
	DefaultMaxMatches        = 200
	DefaultGrepMaxLineLength = 500
	// grepBufSize is each worker's read buffer. Most source files fit in
	// one read; larger files stream through it line-aligned.
	grepBufSize = 1 << 20
	// maxWorkers bounds GrepOptions.Workers.
	maxWorkers = 32
	// maxContextLines bounds ContextLines so one match cannot pull in a
	// whole file.
	maxContextLines = 20
)

// GrepOptions configures Grep.
type GrepOptions struct {
	// Screen withholds entries and vets every file before it is searched
	// (nil: none).
	Screen Screen
	// Pattern is a Go (RE2) regular expression, or a plain string with
	// Literal. Matching is line by line.
	Pattern    string
	Literal    bool
	IgnoreCase bool
	// Include keeps only files matching one of these globs; Exclude drops
	// files and directories matching any. A glob without "/" matches the
	// base name, otherwise the path relative to the search base. Unlike
	// rg's -g, Include never brings back a file excluded by .gitignore
	// (use IncludeIgnored for that).
	Include []string
	Exclude []string
	// ContextLines adds up to this many lines before and after each match
	// (at most 20).
	ContextLines int
	// MaxMatches caps the matching lines returned (default
	// DefaultMaxMatches); the rest are counted.
	MaxMatches int
	// MaxLineLength cuts long lines around the match (default
	// DefaultGrepMaxLineLength).
	MaxLineLength int
	// IncludeHidden searches dot files and directories.
	IncludeHidden bool
	// IncludeIgnored searches paths excluded by .gitignore rules.
	IncludeIgnored bool
	// Workers is the number of files searched in parallel (default
	// GOMAXPROCS).
	Workers int
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string // slash-separated, relative to the root
	Line int64  // 1-based
	// Column is the 1-based byte column of the first match in the line.
	Column int
	// Text is the line (CR removed, invalid UTF-8 replaced), cut around the
	// match when longer than MaxLineLength; Cut says so.
	Text string
	Cut  bool
	// Before and After are context lines, nearest last and first.
	Before, After []string
}

// GrepResult is what Grep found. Matches are sorted by path then line.
type GrepResult struct {
	Matches []GrepMatch
	// TotalMatches counts every matching line; Omitted those not returned.
	TotalMatches int
	Truncated    bool
	Omitted      int
	// FilesMatched and FilesSearched count files; the Skipped counts say
	// what was not searched and why.
	FilesMatched  int
	FilesSearched int
	BinarySkipped int
	HiddenSkipped int
	// Withheld counts files and directories the Screen left out.
	Withheld       int
	IgnoredSkipped int
	DepthLimited   int
	Errors         int
	// VisitLimited is true when the walk stopped at DefaultMaxVisit.
	VisitLimited bool
}

// matcher finds matching lines; it holds the compiled regexp and the
// literal every match must contain, if any.
type matcher struct {
	re      *regexp.Regexp
	literal []byte // required substring, or nil
	// fold is true when literal is lower-case ASCII that must be matched
	// case-insensitively (an (?i) pattern). The search then looks for the
	// literal's rarest byte in either case (index rare) and compares
	// around it, instead of running the regexp over everything.
	fold   bool
	rare   int
	rareLo byte
	rareUp byte
	foldKS bool // literal holds k or s, which also fold to non-ASCII runes
	// onlyLiteral is true when the pattern is exactly the literal, so a
	// bytes.Index hit is a match without running the regexp.
	onlyLiteral bool
	// alts, when there is no single literal, are literals of which every
	// match holds at least one ("TODO|FIXME"); candidates are the nearest
	// occurrence of any.
	alts [][]byte
}

// maxAlternatives bounds the literal set of the alternation prefilter; past
// it, one regexp pass is cheaper than many substring searches.
const maxAlternatives = 8

// Non-ASCII runes in the case-fold orbits of ASCII letters: KELVIN SIGN
// (k, K) and LATIN SMALL LETTER LONG S (s, S). A region holding either
// cannot use the ASCII fold prefilter.
var (
	kelvinSign = []byte("\u212A")
	longS      = []byte("\u017F")
)

// byteRarity ranks how rare a byte is in text and code (higher is rarer);
// the literal searches look for a literal's rarest byte. Letters follow
// English frequency; digits and the punctuation that fills source code and
// logs rank as common, other symbols as rare.
func byteRarity(b byte) int {
	const freq = "etaoinsrhldcumfpgwybvkxjqz" // most to least frequent
	switch {
	case b >= 'a' && b <= 'z':
		return strings.IndexByte(freq, b) + 4
	case b >= 'A' && b <= 'Z':
		// Capitals are rarer than any lower-case letter in code and prose.
		return strings.IndexByte(freq, b+('a'-'A')) + 18
	case b >= '0' && b <= '9':
		return 12
	case strings.IndexByte(" \t\n,.()_=\";:{}/*-'", b) >= 0:
		return 2
	case b >= 0x80:
		return 14
	}
	return 40
}

func newMatcher(o GrepOptions) (*matcher, error) {
	expr := o.Pattern
	if o.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if o.IgnoreCase {
		expr = "(?i)" + expr
	}
	// (?m): the regexp also runs over whole buffers of lines, where ^ and $
	// must mean line boundaries.
	expr = "(?m)" + expr
	re, err := regexp.Compile(expr)
	if err != nil {
		// Say what is wrong in the model's own pattern, not in the flags
		// prepended to it here.
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, fmt.Errorf("pattern %q: %w: %s", o.Pattern, ErrBadPattern, se.Code)
		}
		return nil, fmt.Errorf("pattern %q: %w: %v", o.Pattern, ErrBadPattern, err)
	}
	m := &matcher{re: re}
	if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		m.literal, m.fold = requiredLiteral(parsed)
		m.onlyLiteral = parsed.Op == syntax.OpLiteral && parsed.Flags&syntax.FoldCase == 0 && m.literal != nil
	}
	if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil && !m.fold {
		// An alternation set can be a better filter than a short single
		// literal: "(TODO|FIXME):" rather than ":".
		alts := requiredAlternatives(parsed.Simplify())
		if len(alts) > 1 && (m.literal == nil || betterAlternatives(alts, [][]byte{m.literal})) {
			m.alts, m.literal, m.onlyLiteral = alts, nil, false
		}
	}
	if m.literal != nil && !m.fold {
		for i, b := range m.literal {
			if byteRarity(b) > byteRarity(m.literal[m.rare]) {
				m.rare = i
			}
		}
	}
	if m.fold {
		for i, b := range m.literal {
			if byteRarity(b) > byteRarity(m.literal[m.rare]) {
				m.rare = i
			}
			if b == 'k' || b == 's' {
				m.foldKS = true
			}
		}
		m.rareLo = m.literal[m.rare]
		m.rareUp = m.rareLo
		if m.rareLo >= 'a' && m.rareLo <= 'z' {
			m.rareUp = m.rareLo - ('a' - 'A')
		}
	}
	return m, nil
}

// requiredLiteral returns the longest byte string every match of re must
// contain, or nil. A case-folded literal counts when it is ASCII; it is then
// returned lower-cased with fold set (fold stays false when it holds no
// letters). This is the prefilter: a substring search over a whole file is
// far faster than running the regexp on every line.
func requiredLiteral(re *syntax.Regexp) (lit []byte, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return []byte(string(re.Rune)), false
		}
		out := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			switch {
			case r >= utf8.RuneSelf:
				return nil, false
			case r >= 'A' && r <= 'Z':
				out = append(out, byte(r+('a'-'A')))
				fold = true
			case r >= 'a' && r <= 'z':
				out = append(out, byte(r))
				fold = true
			default:
				out = append(out, byte(r))
			}
		}
		return out, fold
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			l, f := requiredLiteral(sub)
			if len(l) > len(lit) || (len(l) == len(lit) && fold && !f) {
				lit, fold = l, f
			}
		}
		return lit, fold
	}
	return nil, false
}

// requiredAlternatives returns case-sensitive literals of which every match
// of re contains at least one, or nil. It covers alternations, which have
// no single required literal.
func requiredAlternatives(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return [][]byte{[]byte(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredAlternatives(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredAlternatives(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out [][]byte
		for _, sub := range re.Sub {
			a := requiredAlternatives(sub)
			if a == nil || len(out)+len(a) > maxAlternatives {
				return nil
			}
			out = append(out, a...)
		}
		return out
	case syntax.OpConcat:
		var best [][]byte
		for _, sub := range re.Sub {
			if a := requiredAlternatives(sub); a != nil && betterAlternatives(a, best) {
				best = a
			}
		}
		return best
	}
	return nil
}

// betterAlternatives compares literal sets by shortest length per literal
// (longer literals are rarer, each literal costs a search), then prefers
// fewer literals.
func betterAlternatives(a, b [][]byte) bool {
	if b == nil {
		return true
	}
	sa, sb := minLen(a)*len(b), minLen(b)*len(a)
	if sa != sb {
		return sa > sb
	}
	return len(a) < len(b)
}

func minLen(ls [][]byte) int {
	n := -1
	for _, l := range ls {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// matchLine reports whether line matches and where (byte offset of the
// first match).
func (m *matcher) matchLine(line []byte) (int, bool) {
	if m.onlyLiteral {
		i := bytes.Index(line, m.literal)
		return i, i >= 0
	}
	loc := m.re.FindIndex(line)
	if loc == nil {
		return 0, false
	}
	return loc[0], true
}

// nextCandidate returns a position at or after from in the next line that
// may match, using the literal prefilter or the regexp over the whole region.
// useFold selects the case-insensitive literal search; the fileSearcher
// caches where the rare byte occurs next in lo and up.
func (m *matcher) nextCandidate(region []byte, from int, useFold bool, lo, up *int, altNext []int) int {
	if useFold {
		return m.nextFold(region, from, lo, up)
	}
	if m.alts != nil {
		// Nearest occurrence of any alternative; altNext caches each
		// one's next position (-2 unknown, -1 none).
		best := -1
		for i, lit := range m.alts {
			if altNext[i] == -1 {
				continue
			}
			if altNext[i] < from {
				j := bytes.Index(region[from:], lit)
				if j < 0 {
					altNext[i] = -1
					continue
				}
				altNext[i] = from + j
			}
			if best < 0 || altNext[i] < best {
				best = altNext[i]
			}
		}
		return best
	}
	if m.literal != nil && !m.fold {
		i := m.indexLiteral(region[from:])
		if i < 0 {
			return -1
		}
		return from + i
	}
	loc := m.re.FindIndex(region[from:])
	if loc == nil {
		return -1
	}
	return from + loc[0]
}

// nextFold finds the next case-insensitive occurrence of the literal: the
// next rare byte (either case) whose surroundings equal the literal, ignoring
// ASCII case. lo and up cache the next positions of the two cases (-2
// unknown, -1 none), so each byte of the region is scanned at most twice.
func (m *matcher) nextFold(region []byte, from int, lo, up *int) int {
	n := len(m.literal)
	for {
		at := from + m.rare
		if at >= len(region) {
			return -1
		}
		q := nextByte(region, at, m.rareLo, lo)
		if m.rareUp != m.rareLo {
			if q2 := nextByte(region, at, m.rareUp, up); q2 >= 0 && (q < 0 || q2 < q) {
				q = q2
			}
		}
		if q < 0 {
			return -1
		}
		start := q - m.rare
		if start+n <= len(region) && asciiFoldEqual(region[start:start+n], m.literal) {
			return start
		}
		from = start + 1
	}
}

// indexLiteral finds the case-sensitive literal in s. bytes.Index keys on
// the literal's first byte, which is often common ("s" of "seq=..."), and
// then falls back to a byte-by-byte compare; looking for the literal's
// rarest byte with IndexByte (vectorised) and comparing around each hit is
// several times faster on large files. Literals of one byte need neither.
func (m *matcher) indexLiteral(s []byte) int {
	n := len(m.literal)
	if n < 2 {
		return bytes.Index(s, m.literal)
	}
	b := m.literal[m.rare]
	for i := 0; ; {
		if i+n > len(s) {
			return -1
		}
		j := bytes.IndexByte(s[i+m.rare:len(s)-n+m.rare+1], b)
		if j < 0 {
			return -1
		}
		start := i + j
		if bytes.Equal(s[start:start+n], m.literal) {
			return start
		}
		i = start + 1
	}
}

// nextByte returns the first index >= at of b in region, reusing *cache
// when it is still ahead of at.
func nextByte(region []byte, at int, b byte, cache *int) int {
	if *cache == -1 {
		return -1
	}
	if *cache >= at {
		return *cache
	}
	i := bytes.IndexByte(region[at:], b)
	if i < 0 {
		*cache = -1
	} else {
		*cache = at + i
	}
	return *cache
}

// asciiFoldEqual reports whether s equals the lower-case ASCII lit when
// upper-case ASCII letters in s are lowered.
func asciiFoldEqual(s, lit []byte) bool {
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

type grepJob struct {
	d    *dirHandle
	name string
	rel  string
	seq  int
}

type fileResult struct {
	seq      int
	matches  []GrepMatch
	total    int
	binary   bool
	err      bool
	withheld bool
}

// Grep does not shell out to rg even when it is on PATH, by decision: rg
// opens files by path, outside the os.Root that the guard checked, so check
// and use could diverge (a symlink swapped in mid-search); its regex dialect
// (Rust, Unicode \w and \d) and ignore rules (.ignore, .rgignore, global
// excludes, git-repo detection) differ from ours, so results would not be
// identical; and the built-in engine measures within 1.5x of rg on the Go
// tree (see cmd/fsbench), which is fast enough not to need it.
//
// Grep searches files under base (relative to root; base may also be a
// single file) for lines matching opts.Pattern. The walk runs in one
// goroutine feeding a pool of workers that stream each file through a 1 MB
// buffer, skip binary files (NUL in the first 8 KB; later NULs stop the
// file), and use a required literal to jump to candidate lines. Results are
// deterministic: sorted by path and line, the first MaxMatches kept.
func Grep(ctx context.Context, root *os.Root, base string, opts GrepOptions) (GrepResult, error) {
	var res GrepResult
	base, err := cleanRel(base)
	if err != nil {
		return res, err
	}
	m, err := prepareGrep(&opts)
	if err != nil {
		return res, err
	}
	fi, err := root.Stat(osName(base))
	if err != nil {
		return res, fmt.Errorf("grep_search: %w", err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return res, fmt.Errorf("grep_search %s: %w", base, ErrNotRegular)
	}
	strip := len(base)
	if strip > 0 {
		strip++
	}
	return grepRun(ctx, m, opts, func(ctx context.Context, jobs chan<- grepJob) (WalkStats, error) {
		if !fi.IsDir() {
			dir, name := path.Split(base)
			r, err := root.OpenRoot(osName(strings.TrimSuffix(dir, "/")))
			if err != nil {
				return WalkStats{}, err
			}
			d := &dirHandle{root: r, rel: strings.TrimSuffix(dir, "/")}
			d.refs.Store(1)
			jobs <- grepJob{d: d, name: name, rel: base}
			return WalkStats{}, nil
		}
		seq := 0
		wo := walkOptions{hidden: opts.IncludeHidden, noIgnore: opts.IncludeIgnored, screen: opts.Screen}
		if len(opts.Exclude) > 0 {
			wo.skipDir = func(rel string, _ int) bool { return anyGlob(opts.Exclude, rel[strip:]) }
		}
		return walk(ctx, root, base, wo, func(d *dirHandle, e dirent, rel string, _ int) error {
			if !e.mode.IsRegular() {
				return nil // directories are walked; symlinks, FIFOs, devices never opened
			}
			relBase := rel[strip:]
			if len(opts.Include) > 0 && !anyGlob(opts.Include, relBase) {
				return nil
			}
			if len(opts.Exclude) > 0 && anyGlob(opts.Exclude, relBase) {
				return nil
			}
			d.retain()
			select {
			case jobs <- grepJob{d: d, name: e.name, rel: rel, seq: seq}:
				seq++
				return nil
			case <-ctx.Done():
				d.release()
				return ctx.Err()
			}
		})
	})
}

// GrepPlan is a search whose walk was done beforehand, by the working-directory index: the
// files to read, in walk order, and what the walk would have counted without reading them.
type GrepPlan struct {
	// Files are the files to search, slash-separated and relative to the root, in the order
	// the walk visits them (Grep keeps the first matches in that order).
	Files []string
	// Clean counts files searched without reading them: the index vouches that they cannot
	// match. Binary counts files it knows to be binary.
	Clean, Binary int
	// Stats is what the walk left out.
	Stats WalkStats
}

// GrepPlanned is Grep over a plan: the same matching, counting and ordering, but only the
// plan's files are opened (each through its directory in root, vetted by opts.Screen) and
// the include, exclude and hidden filters are the planner's business. The answer equals
// Grep's as long as the plan is true to the tree.
func GrepPlanned(ctx context.Context, root *os.Root, opts GrepOptions, plan GrepPlan) (GrepResult, error) {
	m, err := prepareGrep(&opts)
	if err != nil {
		return GrepResult{}, err
	}
	res, err := grepRun(ctx, m, opts, func(ctx context.Context, jobs chan<- grepJob) (WalkStats, error) {
		var d *dirHandle
		defer func() {
			if d != nil {
				d.release()
			}
		}()
		for seq, rel := range plan.Files {
			dir, name := path.Split(rel)
			dir = strings.TrimSuffix(dir, "/")
			if d == nil || d.rel != dir {
				if d != nil {
					d.release()
					d = nil
				}
				r, err := root.OpenRoot(osName(dir))
				if err != nil {
					// Gone since the plan: like a file that vanished mid-walk.
					continue
				}
				d = &dirHandle{root: r, rel: dir}
				d.refs.Store(1)
				if df, err := r.Open("."); err == nil {
					d.dir = df
				}
			}
			d.retain()
			select {
			case jobs <- grepJob{d: d, name: name, rel: rel, seq: seq}:
			case <-ctx.Done():
				d.release()
				return plan.Stats, ctx.Err()
			}
		}
		return plan.Stats, nil
	})
	res.FilesSearched += plan.Clean
	res.BinarySkipped += plan.Binary
	return res, err
}

// prepareGrep checks opts, fills in its defaults and compiles the matcher.
func prepareGrep(opts *GrepOptions) (*matcher, error) {
	if opts.Pattern == "" {
		return nil, fmt.Errorf("empty pattern: %w", ErrBadPattern)
	}
	m, err := newMatcher(*opts)
	if err != nil {
		return nil, err
	}
	if opts.MaxMatches <= 0 {
		opts.MaxMatches = DefaultMaxMatches
	}
	if opts.MaxLineLength <= 0 {
		opts.MaxLineLength = DefaultGrepMaxLineLength
	}
	opts.ContextLines = min(max(opts.ContextLines, 0), maxContextLines)
	for _, g := range append(append([]string(nil), opts.Include...), opts.Exclude...) {
		if !doublestarValid(g) {
			return nil, fmt.Errorf("glob %q: %w", g, ErrBadPattern)
		}
	}
	return m, nil
}

// grepRun searches the files feed sends, in a pool of workers, and gathers the result. feed
// runs in its own goroutine, stops when ctx ends, and returns what its walk skipped.
func grepRun(ctx context.Context, m *matcher, opts GrepOptions, feed func(context.Context, chan<- grepJob) (WalkStats, error)) (GrepResult, error) {
	var res GrepResult
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, maxWorkers) // each holds a 1 MB buffer

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan grepJob, 256)
	results := make(chan fileResult, 64)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &fileSearcher{m: m, o: &opts, buf: make([]byte, grepBufSize)}
			for j := range jobs {
				var r fileResult
				if ctx.Err() == nil {
					r = s.search(ctx, j)
				}
				j.d.release()
				r.seq = j.seq
				results <- r
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var (
		walkErr error
		st      WalkStats
	)
	go func() {
		defer close(jobs)
		st, walkErr = feed(ctx, jobs)
	}()

	var kept []fileResult
	stored := 0
	for r := range results {
		if r.err {
			res.Errors++
			continue
		}
		if r.binary {
			res.BinarySkipped++
			continue
		}
		if r.withheld {
			res.Withheld++
			continue
		}
		res.FilesSearched++
		if r.total == 0 {
			continue
		}
		res.FilesMatched++
		res.TotalMatches += r.total
		kept = append(kept, r)
		stored += len(r.matches)
		if stored > 2*opts.MaxMatches {
			kept, stored = trimResults(kept, opts.MaxMatches)
		}
	}
	res.HiddenSkipped, res.IgnoredSkipped, res.DepthLimited = st.HiddenSkipped, st.IgnoredSkipped, st.DepthLimited
	res.Withheld += st.Withheld
	res.Errors += st.Errors
	res.VisitLimited = st.VisitLimited
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if walkErr != nil {
		return res, fmt.Errorf("grep_search: %w", walkErr)
	}
	kept, _ = trimResults(kept, opts.MaxMatches)
	for _, r := range kept {
		res.Matches = append(res.Matches, r.matches...)
	}
	res.Omitted = res.TotalMatches - len(res.Matches)
	res.Truncated = res.Omitted > 0
	return res, nil
}

// trimResults keeps the first max matches in walk (path) order.
func trimResults(rs []fileResult, max int) ([]fileResult, int) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].seq < rs[j].seq })
	n := 0
	for i := range rs {
		if n+len(rs[i].matches) > max {
			rs[i].matches = rs[i].matches[:max-n]
		}
		n += len(rs[i].matches)
		if n >= max {
			for j := i + 1; j < len(rs); j++ {
				rs[j].matches = nil
			}
			break
		}
	}
	return rs, n
}

func anyGlob(globs []string, relToBase string) bool {
	for _, g := range globs {
		if globMatchName(g, relToBase) {
			return true
		}
	}
	return false
}

// fileSearcher is one worker's state: its buffer is reused for every file.
type fileSearcher struct {
	m   *matcher
	o   *GrepOptions
	buf []byte

	// per file
	res        fileResult
	rel        string
	line       int64    // number of the first line of the current region
	tail       []string // last ContextLines lines of the previous region
	pending    int      // after-context lines still owed to the last match
	lastLine   int64    // last line reported, to avoid reporting a long line twice
	inLongLine bool     // the region continues a line started in the previous one
	longOff    int      // bytes of that line in previous regions
	altNext    []int    // per-alternative cache for the alternation prefilter
}

func (s *fileSearcher) search(ctx context.Context, j grepJob) fileResult {
	s.res = fileResult{}
	s.rel, s.line, s.tail, s.pending, s.lastLine, s.inLongLine, s.longOff = j.rel, 1, nil, 0, 0, false, 0
	f, size, regular, id, err := openEntry(j.d, j.name)
	if err != nil {
		s.res.err = true
		return s.res
	}
	defer f.Close()
	if !regular {
		return s.res
	}
	if s.o.Screen != nil && s.o.Screen.Opened(j.rel, id) != nil {
		s.res.withheld = true
		return s.res
	}
	// Read exactly the size seen at open: a small file costs one read and
	// no extra call to discover EOF, and a growing file is searched as a
	// snapshot.
	remaining := size
	carry := 0
	first := true
	for remaining > 0 {
		if ctx.Err() != nil {
			return s.res
		}
		want := int(min(int64(len(s.buf)-carry), remaining))
		n, err := io.ReadFull(f, s.buf[carry:carry+want])
		remaining -= int64(n)
		eof := remaining <= 0 || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			s.res.err = true
			return s.res
		}
		data := s.buf[:carry+n]
		if first {
			first = false
			if bytes.IndexByte(data[:min(len(data), binarySniffLen)], 0) >= 0 {
				s.res.binary = true
				return s.res
			}
		}
		stopAt := len(data)
		if z := bytes.IndexByte(data[carry:], 0); z >= 0 {
			// Binary data after the head: search up to it, then stop,
			// as ripgrep does.
			stopAt = carry + z
			eof = true
		}
		region := data[:stopAt]
		long := false
		if !eof {
			nl := bytes.LastIndexByte(region, '\n')
			if nl >= 0 {
				region = region[:nl+1]
			} else {
				long = true // a line longer than the buffer: search this piece
			}
		}
		s.searchRegion(region)
		switch {
		case long && s.inLongLine:
			s.longOff += len(region)
		case long:
			s.longOff = len(region) - (bytes.LastIndexByte(region, '\n') + 1)
		default:
			s.longOff = 0
		}
		s.inLongLine = long
		if eof {
			return s.res
		}
		carry = copy(s.buf, data[len(region):])
	}
	return s.res // empty file
}

// searchRegion finds matches in region, which holds whole lines (except
// for pieces of a line longer than the buffer).
func (s *fileSearcher) searchRegion(region []byte) {
	o := s.o
	C := o.ContextLines
	lineNo := s.line
	counted := 0 // region offset up to which newlines are counted into lineNo
	// Owed after-context from the previous region.
	if s.pending > 0 && len(s.res.matches) > 0 {
		s.fillAfter(region, 0, &s.res.matches[len(s.res.matches)-1])
	}
	// The ASCII fold prefilter is exact unless the region holds a
	// non-ASCII rune that folds to k or s.
	useFold := s.m.fold && !(s.m.foldKS && (bytes.Contains(region, kelvinSign) || bytes.Contains(region, longS)))
	lo, up := -2, -2
	s.altNext = s.altNext[:0]
	for range s.m.alts {
		s.altNext = append(s.altNext, -2)
	}
	pos := 0
	for pos < len(region) {
		c := s.m.nextCandidate(region, pos, useFold, &lo, &up, s.altNext)
		if c < 0 {
			break
		}
		ls := bytes.LastIndexByte(region[:c], '\n') + 1
		le := bytes.IndexByte(region[c:], '\n')
		if le < 0 {
			le = len(region)
		} else {
			le += c
		}
		line := region[ls:le]
		// Confirm on the line alone: a regexp run over the region may
		// have matched across a newline, and the literal is only a hint.
		col, ok := s.m.matchLine(line)
		pos = le + 1
		if !ok {
			continue
		}
		lineNo += int64(bytes.Count(region[counted:ls], []byte{'\n'}))
		counted = ls
		continued := ls == 0 && s.inLongLine
		if continued && lineNo == s.lastLine {
			continue
		}
		s.res.total++
		s.lastLine = lineNo
		if len(s.res.matches) >= o.MaxMatches {
			continue // count only
		}
		gm := GrepMatch{Path: s.rel, Line: lineNo, Column: col + 1}
		gm.Text, gm.Cut = cutLine(line, col, o.MaxLineLength)
		if continued {
			// Only the tail of a line longer than the buffer is here.
			gm.Column += s.longOff
			gm.Cut = true
		}
		if C > 0 {
			gm.Before = s.before(region, ls, C)
			s.pending = C
			s.fillAfter(region, min(le+1, len(region)), &gm)
		}
		s.res.matches = append(s.res.matches, gm)
	}
	lineNo += int64(bytes.Count(region[counted:], []byte{'\n'}))
	s.line = lineNo
	if C > 0 {
		s.tail = lastLines(region, C, s.tail)
	}
}

// before returns up to n lines preceding offset ls, reaching into the
// previous region's tail when the region starts too soon.
func (s *fileSearcher) before(region []byte, ls, n int) []string {
	var out []string
	end := ls
	for len(out) < n && end > 0 {
		st := bytes.LastIndexByte(region[:end-1], '\n') + 1
		out = append(out, cleanContext(region[st:end-1], s.o.MaxLineLength))
		end = st
	}
	for i := len(s.tail) - 1; len(out) < n && i >= 0 && end == 0; i-- {
		out = append(out, s.tail[i])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// fillAfter appends owed after-context lines starting at offset from.
func (s *fileSearcher) fillAfter(region []byte, from int, gm *GrepMatch) {
	for s.pending > 0 && from < len(region) {
		e := bytes.IndexByte(region[from:], '\n')
		if e < 0 {
			e = len(region)
		} else {
			e += from
		}
		gm.After = append(gm.After, cleanContext(region[from:e], s.o.MaxLineLength))
		s.pending--
		from = e + 1
	}
}

// lastLines returns the last n lines of region (prepending the old tail when
// the region holds fewer).
func lastLines(region []byte, n int, old []string) []string {
	var out []string
	end := len(region)
	if end > 0 && region[end-1] == '\n' {
		end--
	}
	for len(out) < n && end > 0 {
		st := bytes.LastIndexByte(region[:end], '\n') + 1
		out = append(out, string(region[st:end]))
		if st == 0 {
			end = 0
			break
		}
		end = st - 1
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if len(out) < n {
		keep := max(len(old)-(n-len(out)), 0)
		out = append(append([]string(nil), old[keep:]...), out...)
	}
	return out
}

func cleanContext(line []byte, maxLen int) string {
	t, _ := cutLine(line, 0, maxLen)
	return t
}

// cutLine returns line as valid UTF-8 without its CR, cut to maxLen bytes
// around col when longer.
func cutLine(line []byte, col, maxLen int) (string, bool) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	cut := false
	if len(line) > maxLen {
		cut = true
		start := max(min(col-maxLen/4, len(line)-maxLen), 0)
		for start > 0 && !utf8.RuneStart(line[start]) {
			start--
		}
		end := min(start+maxLen, len(line))
		for end < len(line) && end > start && !utf8.RuneStart(line[end]) {
			end--
		}
		line = line[start:end]
	}
	if utf8.Valid(line) {
		return string(line), cut
	}
	return strings.ToValidUTF8(string(line), "\uFFFD"), cut
}
