package terminal

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
)

// lineState follows what a session's shell line editor holds, from the bytes typed into it:
// enough to know which lines get submitted, and to say when keys made that unknowable.
// Guarded by session.mu.
type lineState struct {
	buf     []rune // typed since the last submit
	unknown bool   // editing keys were used on buf
	last    string // the last submitted line (what "up" recalls)
	partial string // submitted lines of an unfinished statement
	// ahead is what was typed while a program (not a shell) ran, from a line that would
	// leave the shell's statement unfinished: the program may read it, or may not and leave
	// it for the shell, which then joins the lines after it. Both readings are checked.
	ahead string
	// fromProgram says buf was typed while a program that reads keys as they come (a
	// pager, an editor: the terminal out of canonical mode) had it. Such a program most
	// likely read them ("q" to quit less), so once the shell is back the screen decides
	// whether its line editor holds them (session.shellHolds).
	fromProgram bool
}

// submitted is one line the shell receives on enter.
type submitted struct {
	text    string
	unknown bool
}

// feed simulates typing p and returns the lines submitted; st is updated (use a copy to try).
func (st *lineState) feed(p string) []submitted {
	var out []submitted
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		switch {
		case r == '\r' || r == '\n':
			line := string(st.buf)
			out = append(out, submitted{text: line, unknown: st.unknown})
			if strings.TrimSpace(line) != "" && !st.unknown {
				st.last = line
			}
			st.buf, st.unknown = nil, false
		case r == 0x03 || r == 0x1c: // ctrl-c, ctrl-\: the line is discarded
			// (and the terminal's input queue with it: what was typed ahead is gone)
			st.buf, st.unknown = nil, false
			st.partial, st.ahead = "", ""
		case r == 0x15 && !st.unknown: // ctrl-u at the end of the line: erase it
			st.buf = nil
		case (r == 0x7f || r == 0x08) && !st.unknown: // backspace
			if len(st.buf) > 0 {
				st.buf = st.buf[:len(st.buf)-1]
			}
		case r == 0x0c || r == 0x1a || r == 0x04 && len(st.buf) == 0:
			// ctrl-l redraws, ctrl-z suspends the program, ctrl-d on an empty line ends input.
		case r == 0x1b:
			seq := escapeSeq(p[i:])
			i += len(seq)
			switch {
			case (seq == "[A" || seq == "OA") && len(st.buf) == 0 && !st.unknown:
				st.buf = []rune(st.last) // up on a fresh line recalls the last line
			case (seq == "[B" || seq == "OB") && len(st.buf) == 0:
			default:
				st.unknown = true
			}
		case r == 0x10 && len(st.buf) == 0 && !st.unknown: // ctrl-p: as up
			st.buf = []rune(st.last)
		case r < 0x20:
			// tab completion, ctrl-r search, ctrl-a/e/k/w/y...: the line is no longer known.
			st.unknown = true
		default:
			st.buf = append(st.buf, r)
		}
	}
	return out
}

// escapeSeq returns the rest of an escape sequence after ESC (CSI or SS3), or "" for a lone
// ESC.
func escapeSeq(p string) string {
	if p == "" {
		return ""
	}
	switch p[0] {
	case 'O':
		if len(p) >= 2 {
			return p[:2]
		}
		return p
	case '[':
		for j := 1; j < len(p); j++ {
			if p[j] >= 0x40 && p[j] <= 0x7e {
				return p[:j+1]
			}
		}
		return p
	}
	return ""
}

// checkInput decides the lines that typing p into s would submit. On success the new line
// state is returned for the caller to keep once the bytes are written.
func (m *Manager) checkInput(ctx context.Context, s *session, p string) (lineState, error) {
	s.mu.Lock()
	st := s.line
	st.buf = append([]rune(nil), st.buf...)
	foreground := s.bash && s.cmdRunning
	pid := s.pid
	s.mu.Unlock()
	dir := shellDir(pid, s.cwd)
	fgShell, rawProgram := false, false
	if foreground {
		fgShell = foregroundShell(pid)
		rawProgram = !fgShell && !s.canonical()
	} else if st.fromProgram && len(st.buf) > 0 && !s.shellHolds(string(st.buf)) {
		// What was typed into the program that has ended was read by it, not left for the
		// shell: the shell's line starts afresh.
		st.buf, st.unknown = nil, false
	}
	st.fromProgram = false
	for _, sub := range st.feed(p) {
		if st.ahead != "" {
			// What the shell reads if the program did not take the lines typed into it.
			joined := st.ahead + "\n" + sub.text
			err := m.cfg.Gate.Check(ctx, s.conv, gate.Line{Text: joined, Dir: dir, Session: s.id, Unknown: sub.unknown, Memory: &s.checkMem})
			switch {
			case errors.Is(err, gate.ErrIncomplete):
				st.ahead = joined
			case err != nil:
				return lineState{}, err
			default:
				st.ahead = ""
			}
		}
		text := sub.text
		if st.partial != "" {
			text = st.partial + "\n" + text
		}
		err := m.cfg.Gate.Check(ctx, s.conv, gate.Line{Text: text, Dir: dir, Session: s.id, Unknown: sub.unknown,
			Foreground: foreground, ForegroundShell: fgShell, Memory: &s.checkMem})
		switch {
		case errors.Is(err, gate.ErrIncomplete) && !foreground:
			st.partial = text
		case errors.Is(err, gate.ErrIncomplete):
			// Input for the program, unless it leaves it to the shell.
			if st.ahead == "" {
				st.ahead = text
			}
		case err != nil:
			return lineState{}, err
		default:
			st.partial = ""
		}
	}
	st.fromProgram = rawProgram && len(st.buf) > 0
	return st, nil
}

// shellDir is the current directory of a session's shell (it moves with cd), or its start
// directory when /proc cannot say.
func shellDir(pid int, fallback string) string {
	if pid <= 0 {
		return fallback
	}
	if d, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil && strings.HasPrefix(d, "/") {
		return d
	}
	return fallback
}

func modeOf(p *sandbox.Policy) string {
	if p == nil {
		return string(sandbox.ModeOff)
	}
	return string(p.Mode)
}
