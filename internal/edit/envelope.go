package edit

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Markers of the Codex apply_patch envelope.
const (
	envBegin     = "*** Begin Patch"
	envEnd       = "*** End Patch"
	envAdd       = "*** Add File: "
	envDelete    = "*** Delete File: "
	envUpdate    = "*** Update File: "
	envMove      = "*** Move to: "
	envEndOfFile = "*** End of File"
)

// ParseEnvelope parses the Codex envelope:
//
//	*** Begin Patch
//	*** Add File: path      (every following line starts with '+')
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path   (optional, right after Update File)
//	@@ optional anchor      (a line to find before the hunk's context)
//	 context / -removed / +added lines
//	*** End of File         (optional: the hunk ends at the file's end)
//	*** End Patch
//
// Text around the envelope (a shell heredoc line, say) is ignored, and a
// missing "*** End Patch" is tolerated.
func ParseEnvelope(text string) (*Patch, error) {
	lines, err := patchLines(text)
	if err != nil {
		return nil, err
	}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != envBegin {
		i++
	}
	if i == len(lines) {
		return nil, &PatchError{Err: ErrBadPatch, Reason: "no *** Begin Patch line"}
	}
	i++
	p := &Patch{}
	for i < len(lines) {
		l := strings.TrimRight(lines[i], " \t")
		switch {
		case l == envEnd || strings.HasPrefix(l, "```"):
			// A closing Markdown fence ends a patch whose End Patch
			// line was forgotten.
			return finishEnvelope(p)
		case strings.TrimSpace(l) == "":
			i++
		case strings.HasPrefix(l, envAdd):
			f := FilePatch{Op: OpAdd, Path: envPath(l, envAdd), Line: i + 1}
			h := Hunk{Line: i + 2}
			i++
			for i < len(lines) && !strings.HasPrefix(lines[i], "*** ") && !strings.HasPrefix(lines[i], "```") {
				al := lines[i]
				if !strings.HasPrefix(al, "+") {
					if strings.TrimSpace(al) == "" && !moreAdd(lines, i+1) {
						break
					}
					return nil, &PatchError{Line: i + 1, Path: f.Path, Err: ErrBadPatch, Reason: "in *** Add File every content line starts with '+'"}
				}
				h.Lines = append(h.Lines, HunkLine{Kind: '+', Text: al[1:]})
				i++
			}
			f.Hunks = []Hunk{h}
			p.Files = append(p.Files, f)
		case strings.HasPrefix(l, envDelete):
			p.Files = append(p.Files, FilePatch{Op: OpDelete, Path: envPath(l, envDelete), Line: i + 1})
			i++
		case strings.HasPrefix(l, envUpdate):
			f := FilePatch{Op: OpUpdate, Path: envPath(l, envUpdate), Line: i + 1}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], envMove) {
				f.Op, f.NewPath = OpMove, envPath(strings.TrimRight(lines[i], " \t"), envMove)
				i++
			}
			next, err := readEnvelopeHunks(lines, i, &f)
			if err != nil {
				return nil, err
			}
			i = next
			if f.Op == OpUpdate && len(f.Hunks) == 0 {
				return nil, &PatchError{Line: f.Line, Path: f.Path, Err: ErrBadPatch, Reason: "*** Update File has no changes"}
			}
			p.Files = append(p.Files, f)
		default:
			return nil, &PatchError{Line: i + 1, Err: ErrBadPatch, Reason: "expected *** Add File:, *** Delete File:, *** Update File: or *** End Patch, got " + quoteLine(l)}
		}
	}
	return finishEnvelope(p)
}

func finishEnvelope(p *Patch) (*Patch, error) {
	if len(p.Files) == 0 {
		return nil, &PatchError{Err: ErrBadPatch, Reason: "the patch changes no files"}
	}
	return p, nil
}

// moreAdd reports whether more '+' lines follow blank lines in an Add File.
func moreAdd(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			return strings.HasPrefix(lines[i], "+")
		}
	}
	return false
}

func envPath(l, prefix string) string {
	return strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(l, prefix)), "./")
}

// readEnvelopeHunks reads the hunks of an Update File section starting at
// lines[i] and returns the index of the next section's line.
func readEnvelopeHunks(lines []string, i int, f *FilePatch) (int, error) {
	var h *Hunk
	startHunk := func(line int) {
		f.Hunks = append(f.Hunks, Hunk{Line: line})
		h = &f.Hunks[len(f.Hunks)-1]
	}
	for i < len(lines) {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "@@"):
			if h == nil || len(h.Lines) > 0 || h.EOF {
				startHunk(i + 1)
			}
			if a := strings.TrimSpace(strings.TrimPrefix(l, "@@")); a != "" {
				h.Anchors = append(h.Anchors, a)
			}
		case strings.TrimRight(l, " \t") == envEndOfFile:
			if h == nil {
				return 0, &PatchError{Line: i + 1, Path: f.Path, Err: ErrBadPatch, Reason: "*** End of File before any change"}
			}
			h.EOF = true
		case strings.HasPrefix(l, "*** ") || strings.HasPrefix(l, "```"):
			return i, nil
		case l == "":
			// An empty context line that lost its leading space, unless
			// the section ends here.
			if !moreEnvelopeHunk(lines, i+1) {
				return i + 1, nil
			}
			if h == nil {
				startHunk(i + 1)
			}
			h.Lines = append(h.Lines, HunkLine{Kind: ' '})
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if h == nil || h.EOF {
				startHunk(i + 1)
			}
			h.Lines = append(h.Lines, HunkLine{Kind: l[0], Text: l[1:]})
		case h == nil || !h.EOF:
			// A context line that lost its leading space: models drop
			// it often, and only ' ', '-', '+', "@@" and "***" mean
			// anything else here.
			if h == nil {
				startHunk(i + 1)
			}
			if h.Unprefixed == 0 {
				h.Unprefixed, h.UnprefixedText = i+1, l
			}
			h.Lines = append(h.Lines, HunkLine{Kind: ' ', Text: l})
		default:
			return 0, &PatchError{Line: i + 1, Path: f.Path, Err: ErrBadPatch, Reason: "a change line starts with ' ', '-' or '+', got " + quoteLine(l)}
		}
		i++
	}
	return i, nil
}

func moreEnvelopeHunk(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		return l[0] == ' ' || l[0] == '-' || l[0] == '+' || strings.HasPrefix(l, "@@")
	}
	return false
}

// quoteLine quotes a line for a message, cut to a readable length on a character boundary.
func quoteLine(l string) string {
	const max = 100
	if len(l) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		l = l[:cut] + "..."
	}
	return strconv.Quote(l)
}
