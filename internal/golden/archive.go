package golden

import "strings"

// Archive is a text archive in the txtar layout scenario tests use: a free comment, then
// sections, each opened by a line "-- NAME --" and holding the lines up to the next one. It keeps
// inputs and expected outputs of a scenario readable in one file and diffable in review.
type Archive struct {
	Comment  string
	Sections []Section
}

// Section is one named part of an Archive. Data ends with a newline unless it is empty.
type Section struct {
	Name string
	Data string
}

// ParseArchive reads an archive. It never fails: text before the first marker is the comment,
// and a line that only looks like a marker ("--x--", "-- --") is data.
func ParseArchive(text string) *Archive {
	a := &Archive{}
	var cur *Section
	var b strings.Builder
	flush := func() {
		if cur == nil {
			a.Comment = b.String()
		} else {
			cur.Data = b.String()
			a.Sections = append(a.Sections, *cur)
		}
		b.Reset()
	}
	for line := range strings.SplitAfterSeq(text, "\n") {
		if name, ok := marker(line); ok {
			flush()
			cur = &Section{Name: name}
			continue
		}
		b.WriteString(line)
	}
	flush()
	return a
}

// marker returns the name of a section marker line.
func marker(line string) (string, bool) {
	l := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if !strings.HasPrefix(l, "-- ") || !strings.HasSuffix(l, " --") || len(l) < len("-- x --") {
		return "", false
	}
	name := strings.TrimSpace(l[3 : len(l)-3])
	return name, name != ""
}

// Format writes the archive back; ParseArchive(a.Format()) equals a whenever every non-empty
// comment and section ends with a newline, which Format adds where one is missing.
func (a *Archive) Format() string {
	var b strings.Builder
	b.WriteString(withNewline(a.Comment))
	for _, s := range a.Sections {
		b.WriteString("-- " + s.Name + " --\n")
		b.WriteString(withNewline(s.Data))
	}
	return b.String()
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
