package edit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sentinel errors. Callers test them with errors.Is to choose a result code;
// the typed errors below wrap them so the model-facing text can carry detail.
var (
	// ErrNotFound reports that old_string (or a patch hunk) matched nowhere.
	ErrNotFound = errors.New("no match")
	// ErrAmbiguous reports that old_string matched more than once where one
	// match was required, or that a tolerant match was not unique.
	ErrAmbiguous = errors.New("ambiguous match")
	// ErrCountMismatch reports that the number of matches differs from
	// expected_replacements.
	ErrCountMismatch = errors.New("replacement count mismatch")
	// ErrStale reports that a file changed since the model last read it.
	ErrStale = errors.New("file changed since it was read")
	// ErrConflict reports that a file changed between planning and commit.
	ErrConflict = errors.New("file changed during the edit")
	// ErrExists reports that a path that must not exist already does.
	ErrExists = errors.New("already exists")
	// ErrMissing reports that a path that must exist does not.
	ErrMissing = errors.New("does not exist")
	// ErrInvalidPath reports an empty, absolute, or root path where a file
	// path inside the root is required.
	ErrInvalidPath = errors.New("invalid path")
	// ErrInvalidArgument reports contradictory or out-of-range arguments.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotRegular reports a directory, device, FIFO or socket where a
	// regular file was required.
	ErrNotRegular = errors.New("not a regular file")
	// ErrBadPatch reports patch text that cannot be parsed.
	ErrBadPatch = errors.New("malformed patch")
	// ErrNoop reports an edit whose result equals the original content.
	ErrNoop = errors.New("edit changes nothing")
	// ErrTooLarge reports a file above MaxEditSize; the engines hold whole
	// files in memory (several times over on tolerant rungs).
	ErrTooLarge = errors.New("file too large to edit")
	// ErrSymlinkLoop reports a symlink chain too long to resolve.
	ErrSymlinkLoop = errors.New("too many levels of symbolic links")
)

// MatchError is a failed replace_string. Its Error() text is what the model
// sees: where the text is ambiguous, or the nearest match, the first line
// where it and old_string part, and a line diff; Next() is what to do.
type MatchError struct {
	Path string // set by the I/O layer; empty for pure calls
	// Edit is the 1-based index of the edit in a multi_replace_string
	// call; 0 otherwise.
	Edit int
	// Err is ErrNotFound, ErrAmbiguous or ErrCountMismatch.
	Err      error
	Rung     Rung  // rung at which the ambiguity or count was found
	Tolerant bool  // the ambiguity was on a tolerant rung
	Count    int   // occurrences found
	Expected int   // expected_replacements, for ErrCountMismatch
	Lines    []int // 1-based lines of the occurrences found
	Nearest  *Nearest
	// Diverge is the first line where old_string and the nearest text part.
	Diverge *Divergence
	// LineNumbered is set when every line of old_string starts like
	// read_file's line_numbers output, the likely reason it was not found.
	LineNumbered bool
	// ReplaceAll is set when replace_all or expected_replacements asked
	// for several replacements, which tolerant rungs do not make.
	ReplaceAll bool
	// InvalidUTF8 is set when old_string holds U+FFFD and the file has
	// bytes that are not UTF-8: read_file shows them as U+FFFD, so no copy
	// of such a line can match.
	InvalidUTF8 bool
	// FFFD is the 1-based line of new_string that holds U+FFFD where the file has bytes
	// read_file could not show, so what it stands for is unknown; 0 otherwise.
	FFFD int
	// Unsure is set when old_string holds characters beyond ASCII and the file is not UTF-8 and
	// its encoding cannot be told (why): such text cannot be found in it.
	Unsure string
}

// Divergence is where the model's text and the file's first part.
type Divergence struct {
	Line       int    // 1-based line of the file
	Want, Have string // the model's line and the file's
}

// minUsefulSimilarity is below which a nearest match is not worth showing.
const minUsefulSimilarity = 0.5

func (e *MatchError) Error() string {
	var b strings.Builder
	if e.Edit > 0 {
		fmt.Fprintf(&b, "edit %d: ", e.Edit)
	}
	in := ""
	if e.Path != "" {
		in = " in " + e.Path
	}
	switch {
	case e.FFFD > 0:
		fmt.Fprintf(&b, "old_string matched at line %d%s, but new_string line %d holds U+FFFD (\uFFFD) where the file has characters read_file could not show (bytes that are not UTF-8), so what it stands for is unknown",
			firstOr(e.Lines, 0), in, e.FFFD)
	case errors.Is(e.Err, ErrCountMismatch):
		fmt.Fprintf(&b, "old_string occurs %d times%s (%s), expected_replacements is %d",
			e.Count, in, FormatLines(e.Lines), e.Expected)
	case errors.Is(e.Err, ErrAmbiguous) && e.Tolerant && e.ReplaceAll:
		fmt.Fprintf(&b, "old_string has no exact match%s; ignoring %s it matches %d places (%s), but several replacements are made only for exact text",
			in, rungIgnores(e.Rung), e.Count, FormatLines(e.Lines))
	case errors.Is(e.Err, ErrAmbiguous) && e.Tolerant:
		fmt.Fprintf(&b, "old_string has no exact match%s, and ignoring %s it matches %d places (%s), which match it equally well",
			in, rungIgnores(e.Rung), e.Count, FormatLines(e.Lines))
	case errors.Is(e.Err, ErrAmbiguous):
		fmt.Fprintf(&b, "old_string matches %d places%s (%s)", e.Count, in, FormatLines(e.Lines))
	default:
		fmt.Fprintf(&b, "old_string not found%s", in)
		if e.LineNumbered {
			b.WriteString("; its lines start with line numbers as read_file shows them, and without them it is not found either")
		}
		if e.InvalidUTF8 {
			b.WriteString("; the file has bytes that are not UTF-8, shown as \uFFFD by read_file")
		}
		if e.Unsure != "" {
			fmt.Fprintf(&b, "; the file is not UTF-8 and its encoding cannot be told (%s), so only its ASCII text can be matched", e.Unsure)
		}
		writeNearest(&b, "old_string", e.Nearest, e.Diverge)
	}
	if e.Edit > 0 {
		if strings.Contains(b.String(), "\n") {
			b.WriteString("\nno file was changed")
		} else {
			b.WriteString("; no file was changed")
		}
	}
	return b.String()
}

// Next is the step that fixes the call.
func (e *MatchError) Next() string {
	switch {
	case e.FFFD > 0:
		return "write the characters themselves in new_string (read the file with encoding hex to see its bytes), or leave that part of the line out of the edit"
	case errors.Is(e.Err, ErrCountMismatch):
		return "correct expected_replacements, or make old_string longer so it matches only the places to change"
	case errors.Is(e.Err, ErrAmbiguous) && e.Tolerant && e.ReplaceAll:
		return "copy old_string exactly from the file, or replace each place in its own edit"
	case errors.Is(e.Err, ErrAmbiguous) && e.Tolerant:
		return "copy the exact text from the file, with more surrounding lines, so it names one place"
	case errors.Is(e.Err, ErrAmbiguous):
		return "include more surrounding lines in old_string to make it unique, or set replace_all to change every place"
	case e.Unsure != "":
		return "edit only ASCII text in this file (its other bytes are kept), or convert it to UTF-8 first (iconv in the terminal, then read it again)"
	}
	return nextForNearest("old_string", e.Nearest)
}

func firstOr(ls []int, d int) int {
	if len(ls) > 0 {
		return ls[0]
	}
	return d
}

// writeNearest says where the nearest text is, the first line where it and the model's text
// part, and the diff; or, when nothing is similar, the closest line anyway.
func writeNearest(b *strings.Builder, what string, n *Nearest, dv *Divergence) {
	switch {
	case n == nil:
		b.WriteString(": the file is empty, it has no line 1 to match")
		return
	case n.Similarity < minUsefulSimilarity:
		switch {
		case dv != nil && n.StartLine == n.EndLine:
			fmt.Fprintf(b, ", and nothing in the file is similar: the closest line is line %d (%d%% similar): %s", dv.Line, int(n.Similarity*100), quoteLine(strings.TrimSpace(dv.Have)))
		case dv != nil:
			fmt.Fprintf(b, ", and nothing in the file is similar: the closest text is %s (%d%% similar), where line %d reads %s",
				lineSpan(n.StartLine, n.EndLine), int(n.Similarity*100), dv.Line, quoteLine(strings.TrimSpace(dv.Have)))
		default:
			fmt.Fprintf(b, ", and nothing in the file is similar: the closest text is %s (%d%% similar)", lineSpan(n.StartLine, n.EndLine), int(n.Similarity*100))
		}
		return
	}
	fmt.Fprintf(b, "; the nearest text is %s (%d%% similar)", lineSpan(n.StartLine, n.EndLine), int(n.Similarity*100))
	if dv != nil {
		fmt.Fprintf(b, ", first differing at line %d:\n  %s: %s\n  file line %d: %s", dv.Line, what, quoteLine(dv.Want), dv.Line, quoteLine(dv.Have))
	}
	fmt.Fprintf(b, "\ndiff from %s to the file:\n%s", what, strings.TrimSuffix(CapDiff(n.Diff, 40), "\n"))
}

// nextForNearest is the next step after text that matched nowhere.
func nextForNearest(what string, n *Nearest) string {
	if n == nil {
		return "write the file whole with create_file, or add lines with insert_edit at line 1"
	}
	if n.Similarity < minUsefulSimilarity {
		return "read the file again with read_file, or grep_search for a distinctive part of " + what + ": it may be in another file"
	}
	them := "them"
	if n.StartLine == n.EndLine {
		them = "it"
	}
	return fmt.Sprintf("copy %s from the file into %s exactly (read_file start_line %d, end_line %d shows %s), then send the edit again",
		lineSpan(n.StartLine, n.EndLine), what, n.StartLine, n.EndLine, them)
}

func (e *MatchError) Unwrap() error { return e.Err }

func rungIgnores(r Rung) string {
	switch r {
	case RungTrailingWhitespace:
		return "line endings and trailing whitespace"
	case RungIndentation:
		return "whitespace and indentation"
	case RungPunctuation:
		return "whitespace and Unicode punctuation"
	case RungInnerWhitespace:
		return "whitespace (inside lines too) and Unicode punctuation"
	case RungBlankLines:
		return "whitespace, punctuation and blank lines"
	}
	return "line endings"
}

func lineSpan(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

// FormatLines lists line numbers for a message ("line 4", "lines 4, 9, 12"), each once and at
// most ten of them.
func FormatLines(ls []int) string {
	ls = slices.Compact(slices.Clone(ls)) // several occurrences on one line name it once
	var parts []string
	for i, l := range ls {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ls)-10))
			break
		}
		parts = append(parts, fmt.Sprint(l))
	}
	if len(ls) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// PatchError is a patch that cannot be parsed or applied. Nothing was
// written when it is returned.
type PatchError struct {
	Path  string
	Hunk  int // 1-based; 0 when the error is not about one hunk
	Hunks int // hunks in this file
	Line  int // 1-based line of the patch text, for parse errors
	// Err is ErrBadPatch, ErrNotFound, ErrAmbiguous, ErrConflict, ErrExists, ErrMissing or
	// ErrInvalidPath.
	Err     error
	Reason  string
	Nearest *Nearest
	// Diverge is the first line where the hunk's old lines and the nearest text part.
	Diverge *Divergence
	// Lines are the 1-based lines of the places an ambiguous hunk matches.
	Lines []int
	// next overrides the usual next step.
	next string
}

func (e *PatchError) Error() string {
	var b strings.Builder
	b.WriteString("apply_patch: ")
	switch {
	case e.Hunk > 0:
		fmt.Fprintf(&b, "hunk %d of %d in %s does not apply: %s", e.Hunk, e.Hunks, e.Path, e.Reason)
	case e.Line > 0 && e.Path != "":
		fmt.Fprintf(&b, "patch line %d (%s): %s", e.Line, e.Path, e.Reason)
	case e.Line > 0:
		fmt.Fprintf(&b, "patch line %d: %s", e.Line, e.Reason)
	case e.Path != "":
		fmt.Fprintf(&b, "%s: %s", e.Path, e.Reason)
	default:
		b.WriteString(e.Reason)
	}
	if errors.Is(e.Err, ErrNotFound) && e.Hunk > 0 {
		writeNearest(&b, "the hunk's old lines", e.Nearest, e.Diverge)
	}
	if !errors.Is(e.Err, ErrBadPatch) || e.Hunk > 0 {
		b.WriteString("\nnothing was written")
	}
	return b.String()
}

// Next is the step that fixes the patch.
func (e *PatchError) Next() string {
	switch {
	case e.next != "":
		return e.next
	case errors.Is(e.Err, ErrAmbiguous):
		return "add an @@ line naming the function or class the hunk is in, or more context lines, so it names one place; then send the whole patch again"
	case errors.Is(e.Err, ErrNotFound) && e.Hunk > 0:
		if n := e.Nearest; n != nil && n.Similarity >= minUsefulSimilarity {
			return fmt.Sprintf("copy the hunk's context and removed lines from %s of the file (read_file start_line %d, end_line %d), then send the whole patch again",
				lineSpan(n.StartLine, n.EndLine), n.StartLine, n.EndLine)
		}
		return "read the file again with read_file and write the hunk from what is there; then send the whole patch again"
	case errors.Is(e.Err, ErrBadPatch):
		return "fix the patch and send it whole again"
	}
	return ""
}

func (e *PatchError) Unwrap() error { return e.Err }
