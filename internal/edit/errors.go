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
// sees: where the text is ambiguous, or the nearest match and a line diff
// against old_string.
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
	case errors.Is(e.Err, ErrCountMismatch):
		fmt.Fprintf(&b, "old_string occurs %d times%s (%s), expected_replacements is %d; correct expected_replacements or old_string",
			e.Count, in, FormatLines(e.Lines), e.Expected)
	case errors.Is(e.Err, ErrAmbiguous) && e.Tolerant && e.ReplaceAll:
		fmt.Fprintf(&b, "old_string has no exact match%s; ignoring %s it matches %d places (%s), but several replacements are made only for exact text: copy old_string exactly from the file, or replace each place in its own edit",
			in, rungIgnores(e.Rung), e.Count, FormatLines(e.Lines))
	case errors.Is(e.Err, ErrAmbiguous) && e.Tolerant:
		fmt.Fprintf(&b, "old_string has no exact match%s, and ignoring %s it matches %d places (%s); copy the exact text with more surrounding lines",
			in, rungIgnores(e.Rung), e.Count, FormatLines(e.Lines))
	case errors.Is(e.Err, ErrAmbiguous):
		fmt.Fprintf(&b, "old_string matches %d places%s (%s); include more surrounding lines to make it unique, or set replace_all",
			e.Count, in, FormatLines(e.Lines))
	default:
		fmt.Fprintf(&b, "old_string not found%s", in)
		if e.LineNumbered {
			b.WriteString("; its lines start with line numbers and a tab, as read_file shows them: leave those out")
		}
		if e.InvalidUTF8 {
			b.WriteString("; the file has bytes that are not UTF-8, shown as \uFFFD, which old_string cannot match: match text without them, or replace whole lines with insert_edit start_line/end_line")
			break
		}
		n := e.Nearest
		if n == nil || n.Similarity < minUsefulSimilarity {
			b.WriteString(", and no similar text exists; read the file again before editing")
			break
		}
		fmt.Fprintf(&b, "; nearest match is %s (%d%% similar), diff from old_string to the file:\n%s",
			lineSpan(n.StartLine, n.EndLine), int(n.Similarity*100), CapDiff(n.Diff, 40))
		b.WriteString("copy the exact text from the file into old_string")
	}
	if e.Edit > 0 {
		b.WriteString("; no file was changed")
	}
	return b.String()
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
	// Err is ErrBadPatch, ErrNotFound, ErrExists, ErrMissing or
	// ErrInvalidPath.
	Err     error
	Reason  string
	Nearest *Nearest
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
	if n := e.Nearest; n != nil && n.Similarity >= minUsefulSimilarity {
		fmt.Fprintf(&b, "; nearest match is %s (%d%% similar), diff from the hunk's old lines to the file:\n%s",
			lineSpan(n.StartLine, n.EndLine), int(n.Similarity*100), CapDiff(n.Diff, 40))
	} else if e.Hunk > 0 {
		b.WriteString("; no similar lines exist, read the file again\n")
	}
	if !errors.Is(e.Err, ErrBadPatch) || e.Hunk > 0 {
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("; ")
		}
		b.WriteString("nothing was written, fix the patch and send it whole again")
	}
	return b.String()
}

func (e *PatchError) Unwrap() error { return e.Err }
