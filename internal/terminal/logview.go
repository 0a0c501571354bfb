package terminal

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Escape-sequence parser states of logView.
const (
	stNormal   = iota
	stEsc      // after ESC
	stEscInter // ESC followed by intermediate bytes, e.g. ESC ( B
	stCSI      // ESC [ ... final
	stOSC      // ESC ] ... BEL or ST
	stOSCEsc   // ESC inside OSC: expecting '\'
	stStr      // DCS/SOS/PM/APC ... ST
	stStrEsc   // ESC inside such a string
)

const (
	maxLineRunes  = 64 << 10 // a line without newline is split here to bound memory
	maxOSCPayload = 512
	maxCSIParams  = 64
	// dirtyEmitEvery rate-limits how often a line rewritten with \r (a progress bar) is
	// re-emitted into the log before its newline arrives.
	dirtyEmitEvery = time.Second
)

// marker is a shell-integration event found in the output (OSC 133).
type marker struct {
	kind byte // 'A' prompt start, 'C' command start, 'D' command done, 'P' continuation prompt (ours)
	code int  // exit status for 'D', -1 when absent
	off  int64
}

// logView turns raw terminal output into a log a model can read: escape sequences removed,
// carriage returns and backspaces resolved within the current line, UTF-8 reassembled across
// reads, OSC 133 prompt markers reported and removed. Text is appended to out; a line that
// is only being extended is flushed at the end of every read so prompts without a newline
// are visible at once, while a line rewritten in place is re-emitted at most once a second.
type logView struct {
	out   *ring
	onMrk func(marker)

	state   int
	params  []byte // CSI parameters or OSC payload
	utf     [utf8.UTFMax]byte
	utfN    int
	line    []rune
	col     int
	row     int  // screen row as far as the log can tell: moved by \n and absolute positioning
	flushed int  // runes of line already in out
	dirty   bool // line changed at a position already flushed
	lastDE  time.Time
	scratch []byte
	pend    []byte // output not yet written to out; written once per write call
}

// emit queues cleaned text; flushPend writes it to the ring.
func (v *logView) emit(b []byte) { v.pend = append(v.pend, b...) }

func (v *logView) flushPend() {
	if len(v.pend) > 0 {
		v.out.write(v.pend)
		v.pend = v.pend[:0]
	}
	if cap(v.pend) > 256<<10 {
		v.pend = nil
	}
}

func newLogView(out *ring, onMarker func(marker)) *logView {
	return &logView{out: out, onMrk: onMarker, line: make([]rune, 0, 256)}
}

// write consumes raw bytes; now is used for rate limiting progress-bar re-emission.
func (v *logView) write(p []byte, now time.Time) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch v.state {
		case stNormal:
			if v.utfN > 0 {
				v.utfByte(b)
				continue
			}
			switch {
			case b >= 0x20 && b < 0x7f:
				j := i
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				// Fast path: a whole printable line on a fresh line goes straight out.
				if len(v.line) == 0 && v.col == 0 && j-i < maxLineRunes {
					k := j
					if k < len(p) && p[k] == '\r' {
						k++
					}
					if k < len(p) && p[k] == '\n' {
						v.pend = append(v.pend, p[i:j]...)
						v.pend = append(v.pend, '\n')
						v.row++
						i = k
						continue
					}
				}
				for _, c := range p[i:j] {
					v.put(rune(c))
				}
				i = j - 1
			case b >= 0x80:
				v.utfByte(b)
			default:
				v.write1(b)
			}
		case stEsc:
			switch {
			case b == '[':
				v.state, v.params = stCSI, v.params[:0]
			case b == ']':
				v.state, v.params = stOSC, v.params[:0]
			case b == 'P' || b == 'X' || b == '^' || b == '_':
				v.state = stStr
			case b >= 0x20 && b <= 0x2f:
				v.state = stEscInter
			default:
				v.state = stNormal
			}
		case stEscInter:
			if b >= 0x30 && b <= 0x7e {
				v.state = stNormal
			}
		case stCSI:
			if b >= 0x40 && b <= 0x7e {
				v.csi(b)
				v.state = stNormal
			} else if len(v.params) < maxCSIParams {
				v.params = append(v.params, b)
			}
		case stOSC:
			switch b {
			case 0x07:
				v.osc()
				v.state = stNormal
			case 0x1b:
				v.state = stOSCEsc
			default:
				if len(v.params) < maxOSCPayload {
					v.params = append(v.params, b)
				}
			}
		case stOSCEsc:
			v.osc()
			v.state = stNormal
			if b != '\\' {
				i-- // reprocess as a fresh escape
				v.state = stEsc
			}
		case stStr:
			if b == 0x07 {
				v.state = stNormal
			} else if b == 0x1b {
				v.state = stStrEsc
			}
		case stStrEsc:
			v.state = stNormal
			if b != '\\' {
				// Like a terminal, an escape inside the string ends it and starts a new
				// sequence, so a stray DCS (binary output, a cut-off sequence) cannot swallow
				// the prompt markers that follow.
				i--
				v.state = stEsc
			}
		}
	}
	v.flush(now)
	v.flushPend()
}

func (v *logView) utfByte(b byte) {
	if v.utfN == 0 && !utf8.RuneStart(b) {
		v.put(utf8.RuneError)
		return
	}
	if v.utfN > 0 && utf8.RuneStart(b) {
		// Previous sequence was truncated.
		v.put(utf8.RuneError)
		v.utfN = 0
		if b < 0x80 {
			v.write1(b)
			return
		}
	}
	v.utf[v.utfN] = b
	v.utfN++
	if utf8.FullRune(v.utf[:v.utfN]) {
		r, _ := utf8.DecodeRune(v.utf[:v.utfN])
		v.utfN = 0
		v.put(r)
	}
}

// write1 processes a single byte in the normal state without flushing: a control byte of
// write, or the byte after a truncated UTF-8 sequence.
func (v *logView) write1(b byte) {
	switch {
	case b >= 0x20 && b < 0x7f:
		v.put(rune(b))
	case b == '\n':
		v.commit()
	case b == '\r':
		v.col = 0
	case b == '\b':
		if v.col > 0 {
			v.col--
		}
	case b == '\t':
		v.put('\t')
	case b == 0x1b:
		v.state = stEsc
	}
}

func (v *logView) put(r rune) {
	if v.col < len(v.line) {
		if v.col < v.flushed && v.line[v.col] != r {
			v.dirty = true
		}
		v.line[v.col] = r
	} else {
		for len(v.line) < v.col {
			v.line = append(v.line, ' ')
		}
		v.line = append(v.line, r)
	}
	v.col++
	if len(v.line) >= maxLineRunes {
		v.commit()
	}
}

func (v *logView) csi(final byte) {
	n := 1
	ps := string(v.params)
	if ps != "" && ps[0] >= '0' && ps[0] <= '9' {
		if k, err := strconv.Atoi(strings.SplitN(ps, ";", 2)[0]); err == nil {
			n = k
		}
	}
	switch final {
	case 'K': // erase in line
		mode := 0
		if ps != "" {
			mode = n
		}
		switch mode {
		case 0:
			if v.col < len(v.line) {
				if v.col < v.flushed {
					v.dirty = true
				}
				v.line = v.line[:v.col]
			}
		case 2:
			if v.flushed > 0 && len(v.line) > 0 {
				v.dirty = true
			}
			v.line = v.line[:0]
		}
	case 'D':
		if n < 1 {
			n = 1
		}
		v.col -= n
		if v.col < 0 {
			v.col = 0
		}
	case 'C':
		if n < 1 {
			n = 1
		}
		v.col += n
	case 'G':
		if n < 1 {
			n = 1
		}
		v.col = n - 1
	case 'H', 'f', 'd':
		// Absolute positioning (full-screen programs: vim, top, less). A move to another row
		// ends the line; otherwise screens would run together into one long line.
		row, col := max(n, 1)-1, v.col
		if final != 'd' {
			col = 0
			if _, c, ok := strings.Cut(ps, ";"); ok {
				if k, err := strconv.Atoi(c); err == nil && k > 0 {
					col = k - 1
				}
			}
		}
		if row != v.row && len(v.line) > 0 {
			v.commit()
		}
		v.row, v.col = row, col
	}
	if v.col > maxLineRunes {
		v.col = maxLineRunes
	}
}

func (v *logView) osc() {
	p := string(v.params)
	rest, ok := strings.CutPrefix(p, "133;")
	if !ok || rest == "" || v.onMrk == nil {
		return
	}
	m := marker{kind: rest[0], code: -1}
	if m.kind == 'D' {
		if _, c, ok := strings.Cut(rest, ";"); ok {
			if k, err := strconv.Atoi(strings.TrimSpace(c)); err == nil {
				m.code = k
			}
		}
	}
	// A marker is positioned after the text that precedes it, including the open line.
	v.flushPartial()
	v.flushPend()
	m.off = v.out.end()
	v.onMrk(m)
}

// commit ends the current line.
func (v *logView) commit() {
	b := v.scratch[:0]
	if v.dirty {
		b = append(b, '\n')
		b = appendRunes(b, v.line)
	} else if v.flushed < len(v.line) {
		b = appendRunes(b, v.line[v.flushed:])
	}
	b = append(b, '\n')
	v.emit(b)
	v.scratch = b[:0]
	v.line = v.line[:0]
	v.col, v.flushed, v.dirty = 0, 0, false
	v.row++
	if cap(v.line) > 4096 {
		v.line = make([]rune, 0, 256)
	}
}

// flushPartial appends the not yet emitted tail of a line that was only extended.
func (v *logView) flushPartial() {
	if v.dirty || v.flushed >= len(v.line) {
		return
	}
	b := appendRunes(v.scratch[:0], v.line[v.flushed:])
	v.emit(b)
	v.scratch = b[:0]
	v.flushed = len(v.line)
}

func (v *logView) flush(now time.Time) {
	if !v.dirty {
		v.flushPartial()
		return
	}
	if now.Sub(v.lastDE) < dirtyEmitEvery {
		return
	}
	v.lastDE = now
	b := append(v.scratch[:0], '\n')
	b = appendRunes(b, v.line)
	v.emit(b)
	v.scratch = b[:0]
	v.flushed = len(v.line)
	v.dirty = false
}

func appendRunes(b []byte, rs []rune) []byte {
	for _, r := range rs {
		if r < utf8.RuneSelf {
			b = append(b, byte(r))
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}
