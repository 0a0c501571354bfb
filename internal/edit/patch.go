package edit

import (
	"fmt"
	"strconv"
	"strings"
)

// Patch is a parsed multi-file patch, in either the unified diff format or
// the Codex "*** Begin Patch" envelope.
type Patch struct {
	Files []FilePatch
}

// FilePatch is one file's part of a patch.
type FilePatch struct {
	Op      Op
	Path    string // the file as it is now; for OpAdd the file to create
	NewPath string // destination of OpMove
	Hunks   []Hunk
	// Line is the 1-based line of the patch text where this file starts.
	Line int
}

// Hunk is one block of changes. Line numbers come from a unified diff's
// "@@ -a,b +c,d @@" header and are only a hint: the hunk is placed by its
// context, as `git apply --recount` does, so wrong numbers are tolerated.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Numbered says the header carried line numbers (not the envelope,
	// not a bare "@@").
	Numbered bool
	// Anchors are envelope "@@ text" lines: each must be found, in order,
	// before the hunk's context.
	Anchors []string
	Lines   []HunkLine
	// EOF is the envelope's "*** End of File": the hunk ends at the file's
	// last line.
	EOF bool
	// Line is the 1-based line of the patch text where the hunk starts.
	Line int
	// Unprefixed is the patch line of the first envelope line that had no
	// ' ', '-' or '+' and was read as context (a dropped leading space); 0
	// if none. If the hunk then does not apply, the line is reported as
	// the likely fault, since it may have been meant as '+' instead.
	Unprefixed     int
	UnprefixedText string
}

// HunkLine is one line of a hunk: Kind ' ' (context), '-' or '+'.
type HunkLine struct {
	Kind byte
	Text string
	// NoNewline marks a line followed by "\ No newline at end of file".
	NoNewline bool
}

// maxPatchLines bounds the work a parser does on hostile input.
const maxPatchLines = 2_000_000

func patchLines(text string) ([]string, error) {
	lines := strings.Split(text, "\n")
	if len(lines) > maxPatchLines {
		return nil, fmt.Errorf("%w: patch has more than %d lines", ErrBadPatch, maxPatchLines)
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines, nil
}

// IsEnvelope reports whether text is in the Codex envelope format rather
// than a unified diff.
func IsEnvelope(text string) bool {
	for _, l := range strings.SplitN(text, "\n", 50) {
		l = strings.TrimSpace(l)
		if l == "*** Begin Patch" || strings.HasPrefix(l, "*** Update File:") ||
			strings.HasPrefix(l, "*** Add File:") || strings.HasPrefix(l, "*** Delete File:") {
			return true
		}
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@") {
			return false
		}
	}
	return false
}

// ParsePatch parses either format, telling them apart with IsEnvelope. A patch sent as one
// line whose line breaks are the two characters \n (escaped once too often) is read as the
// patch those escapes spell.
func ParsePatch(text string) (*Patch, error) {
	if !strings.Contains(strings.TrimRight(text, "\r\n"), "\n") && strings.Contains(text, `\n`) {
		if dec, ok := decodeEscapes(text); ok {
			text = dec
		}
	}
	if IsEnvelope(text) {
		return ParseEnvelope(text)
	}
	return ParseUnified(text)
}

// ParseUnified parses a unified diff of one or many files: plain
// `diff -u` output or git's, with "diff --git", "new file mode",
// "deleted file mode" and "rename from/to" headers. Hunk counts are not
// trusted; a hunk ends at the next header or at a line that is not part of
// a hunk.
func ParseUnified(text string) (*Patch, error) {
	lines, err := patchLines(text)
	if err != nil {
		return nil, err
	}
	p := &Patch{}
	var cur *FilePatch
	var gitOld, gitNew string
	inGitHeader := false
	newFile := func(line int) {
		p.Files = append(p.Files, FilePatch{Op: OpUpdate, Line: line})
		cur = &p.Files[len(p.Files)-1]
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			newFile(i + 1)
			inGitHeader = true
			gitOld, gitNew = splitGitHeader(strings.TrimPrefix(l, "diff --git "))
			cur.Path, cur.NewPath = gitOld, gitNew
		case inGitHeader && strings.HasPrefix(l, "new file mode"):
			cur.Op = OpAdd
		case inGitHeader && strings.HasPrefix(l, "deleted file mode"):
			cur.Op = OpDelete
		case inGitHeader && strings.HasPrefix(l, "rename from "):
			cur.Path = unquote(strings.TrimPrefix(l, "rename from "))
			cur.Op = OpMove
		case inGitHeader && strings.HasPrefix(l, "rename to "):
			cur.NewPath = unquote(strings.TrimPrefix(l, "rename to "))
			cur.Op = OpMove
		case inGitHeader && (strings.HasPrefix(l, "copy from ") || strings.HasPrefix(l, "copy to ")):
			return nil, &PatchError{Line: i + 1, Err: ErrBadPatch, Reason: "git copies are not supported; add the new file with its full content"}
		case strings.HasPrefix(l, "GIT binary patch") || (strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ")):
			return nil, &PatchError{Line: i + 1, Err: ErrBadPatch, Reason: "binary patches are not supported"}
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			if cur == nil || !inGitHeader || len(cur.Hunks) > 0 {
				newFile(i + 1)
			}
			isGit := inGitHeader
			inGitHeader = false
			oldName := headerPath(strings.TrimPrefix(l, "--- "))
			newName := headerPath(strings.TrimPrefix(lines[i+1], "+++ "))
			i++
			stripAB(&oldName, &newName)
			if !isGit && oldName != newName && oldName != "/dev/null" && newName != "/dev/null" {
				// Outside git, differing names (file.orig vs file, or
				// one-sided a/ b/ prefixes) name one file, the new one;
				// only git's rename headers move files.
				newName = strings.TrimPrefix(newName, "b/")
				oldName = newName
			}
			switch {
			case oldName == "/dev/null":
				cur.Op, cur.Path, cur.NewPath = OpAdd, newName, ""
			case newName == "/dev/null":
				cur.Op, cur.Path, cur.NewPath = OpDelete, oldName, ""
			case oldName != newName:
				cur.Op, cur.Path, cur.NewPath = OpMove, oldName, newName
			default:
				if cur.Op != OpMove {
					cur.Op, cur.NewPath = OpUpdate, ""
				}
				cur.Path = oldName
			}
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				return nil, &PatchError{Line: i + 1, Err: ErrBadPatch, Reason: "hunk before any file header; start each file with --- a/path and +++ b/path lines"}
			}
			inGitHeader = false
			h := parseHunkHeader(l)
			h.Line = i + 1
			i = readHunkBody(lines, i+1, &h) - 1
			if len(h.Lines) == 0 {
				// Else it would apply as a no-op and be reported as applied.
				return nil, &PatchError{Line: h.Line, Path: cur.Path, Err: ErrBadPatch, Reason: "hunk has no lines; each line after @@ starts with ' ' (context), '-' or '+'"}
			}
			cur.Hunks = append(cur.Hunks, h)
		}
	}
	if len(p.Files) == 0 {
		return nil, &PatchError{Err: ErrBadPatch, Reason: "no file headers found; a unified diff starts each file with --- a/path and +++ b/path lines"}
	}
	for i := range p.Files {
		f := &p.Files[i]
		if f.Op == OpMove && f.NewPath == f.Path {
			f.Op, f.NewPath = OpUpdate, ""
		}
		if f.Op == OpUpdate {
			f.NewPath = ""
		}
		if f.Path == "" {
			return nil, &PatchError{Line: f.Line, Err: ErrBadPatch, Reason: "file header without a path"}
		}
		if f.Op == OpUpdate && len(f.Hunks) == 0 {
			return nil, &PatchError{Line: f.Line, Path: f.Path, Err: ErrBadPatch, Reason: "file has no hunks"}
		}
	}
	return p, nil
}

// readHunkBody reads hunk lines starting at lines[i] into h and returns
// the index of the first line after the hunk.
func readHunkBody(lines []string, i int, h *Hunk) int {
	for ; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			// A blank line is an empty context line whose leading space
			// was lost, unless nothing of this hunk follows it.
			if !moreHunk(lines, i+1) {
				return i + 1
			}
			h.Lines = append(h.Lines, HunkLine{Kind: ' '})
			continue
		}
		switch l[0] {
		case ' ', '+':
			h.Lines = append(h.Lines, HunkLine{Kind: l[0], Text: l[1:]})
		case '-':
			if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
				return i
			}
			h.Lines = append(h.Lines, HunkLine{Kind: '-', Text: l[1:]})
		case '\\':
			if n := len(h.Lines); n > 0 {
				h.Lines[n-1].NoNewline = true
			}
		default:
			// A context line that lost its leading space, when more of
			// the hunk follows; otherwise the hunk ended here.
			if strings.HasPrefix(l, "@@") || !moreHunk(lines, i+1) {
				return i
			}
			if h.Unprefixed == 0 {
				h.Unprefixed, h.UnprefixedText = i+1, l
			}
			h.Lines = append(h.Lines, HunkLine{Kind: ' ', Text: l})
		}
	}
	return i
}

// moreHunk reports whether a hunk line follows lines[i:], after blank lines and lines that
// lost their leading space (a run of context lines copied without it).
func moreHunk(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		switch l[0] {
		case ' ', '+':
			return true
		case '-':
			return !(strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "))
		}
		if strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "Index: ") ||
			strings.HasPrefix(l, "*** ") || strings.HasPrefix(l, "```") {
			return false
		}
		// Code that lost the space before it: keep looking.
	}
	return false
}

// parseHunkHeader reads "@@ -a,b +c,d @@ section"; malformed numbers
// leave zeros, which mean "unknown".
func parseHunkHeader(l string) Hunk {
	var h Hunk
	body := strings.TrimPrefix(l, "@@")
	end := strings.Index(body, "@@")
	if end < 0 {
		end = len(body)
	}
	for _, f := range strings.Fields(body[:end]) {
		switch {
		case strings.HasPrefix(f, "-"):
			h.OldStart, h.OldLines = parseRange(f[1:])
			_, err := strconv.Atoi(strings.SplitN(f[1:], ",", 2)[0])
			h.Numbered = err == nil
		case strings.HasPrefix(f, "+"):
			h.NewStart, h.NewLines = parseRange(f[1:])
		}
	}
	return h
}

func parseRange(s string) (start, n int) {
	a, b, found := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0
	}
	n = 1
	if found {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return start, 0
		}
	}
	return start, n
}

// headerPath extracts the path of a ---/+++ line, dropping a timestamp
// after a tab and git's quoting.
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return unquote(strings.TrimSpace(s))
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// stripAB removes git's a/ and b/ prefixes when the names carry them.
func stripAB(oldName, newName *string) {
	hasA := strings.HasPrefix(*oldName, "a/") || *oldName == "/dev/null"
	hasB := strings.HasPrefix(*newName, "b/") || *newName == "/dev/null"
	if hasA && hasB && !(*oldName == "/dev/null" && *newName == "/dev/null") {
		*oldName = strings.TrimPrefix(*oldName, "a/")
		*newName = strings.TrimPrefix(*newName, "b/")
	}
}

// splitGitHeader splits "a/x b/y" from a diff --git line.
func splitGitHeader(s string) (string, string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		a, b := unquote(s[:i]), unquote(s[i+1:])
		stripAB(&a, &b)
		return a, b
	}
	return s, s
}
