package terminal

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"toolhost/internal/secret"
)

// UserInputs keeps what the user typed into sessions (the console's terminal view, toolhost
// attach) until the model next reads the session, so that the model's next read says so
// instead of showing the user's keys as output of its own. One process's typing is seen by
// that process's model: both go through its Manager.
type UserInputs struct {
	mu   sync.Mutex
	m    map[key]*typedLog
	seq  uint64
	last map[key]uint64 // when each key was last added to, to drop the stalest first
}

// Typed is one batch of keys the user typed.
type Typed struct {
	At time.Time
	// Via is where it was typed: "console" or "attach".
	Via string
	// Text is what was typed. Hidden says the terminal did not echo it (a password
	// prompt): only its length is kept, never the text.
	Text   string
	Hidden bool
}

// typedLog is one session's keys since the model last read it.
type typedLog struct {
	parts   []typedPart
	size    int // bytes of text kept
	dropped int // bytes typed beyond maxTypedBytes, not kept
}

type typedPart struct {
	via      string
	from, to time.Time
	text     string
	hidden   int // bytes typed without echo
}

// Bounds: the keys kept per session (older ones are still counted) and the sessions kept.
const (
	maxTypedBytes    = 2 << 10
	maxTypedSessions = 64
)

// NewUserInputs returns an empty keeper.
func NewUserInputs() *UserInputs {
	return &UserInputs{m: map[key]*typedLog{}, last: map[key]uint64{}}
}

// Add records a batch typed into session id of conv.
func (u *UserInputs) Add(conv, id string, t Typed) {
	if u == nil || t.Text == "" {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	k := key{conv, id}
	l := u.m[k]
	if l == nil {
		for len(u.m) >= maxTypedSessions {
			u.dropStalestLocked()
		}
		l = &typedLog{}
		u.m[k] = l
	}
	u.seq++
	u.last[k] = u.seq
	var p *typedPart
	if n := len(l.parts); n > 0 && l.parts[n-1].via == t.Via && (l.parts[n-1].hidden > 0) == t.Hidden {
		p = &l.parts[n-1]
	} else {
		l.parts = append(l.parts, typedPart{via: t.Via, from: t.At})
		p = &l.parts[len(l.parts)-1]
	}
	p.to = t.At
	if t.Hidden {
		p.hidden += utf8.RuneCountInString(t.Text)
		return
	}
	if room := maxTypedBytes - l.size; len(t.Text) > room {
		l.dropped += len(t.Text) - max(room, 0)
		t.Text = t.Text[:max(room, 0)]
	}
	p.text += t.Text
	l.size += len(t.Text)
}

func (u *UserInputs) dropStalestLocked() {
	var stalest key
	var at uint64
	first := true
	for k, n := range u.last {
		if first || n < at {
			stalest, at, first = k, n, false
		}
	}
	delete(u.m, stalest)
	delete(u.last, stalest)
}

// Take returns the note for the model about what the user typed into session id of conv
// since the last Take, and forgets it; "" when the user typed nothing.
func (u *UserInputs) Take(conv, id string) string {
	if u == nil {
		return ""
	}
	u.mu.Lock()
	k := key{conv, id}
	l := u.m[k]
	delete(u.m, k)
	delete(u.last, k)
	u.mu.Unlock()
	if l == nil {
		return ""
	}
	return l.note()
}

// note renders the log: one marked line per part, secrets masked, keys named.
func (l *typedLog) note() string {
	var b strings.Builder
	for i, p := range l.parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		when := p.from.UTC().Format("15:04:05")
		if to := p.to.UTC().Format("15:04:05"); to != when {
			when += "-" + to
		}
		if p.hidden > 0 {
			fmt.Fprintf(&b, "⟦user typed (%s %s): %d characters the terminal did not echo (a password or other secret; not shown)⟧", p.via, when, p.hidden)
			continue
		}
		fmt.Fprintf(&b, "⟦user typed (%s %s): %s⟧", p.via, when, KeysText(secret.Text(p.text)))
	}
	if l.dropped > 0 {
		fmt.Fprintf(&b, "\n⟦user typed %d more bytes, not shown⟧", l.dropped)
	}
	return b.String()
}

// keyGlyphs name the keys a terminal sends as escape sequences.
var keyGlyphs = []struct{ seq, glyph string }{
	{"\x1b[A", "↑"}, {"\x1b[B", "↓"}, {"\x1b[C", "→"}, {"\x1b[D", "←"},
	{"\x1bOA", "↑"}, {"\x1bOB", "↓"}, {"\x1bOC", "→"}, {"\x1bOD", "←"},
	{"\x1b[H", "⇱"}, {"\x1b[F", "⇲"}, {"\x1b[3~", "⌦"}, {"\x1b[5~", "⇞"}, {"\x1b[6~", "⇟"},
}

// KeysText shows typed keys as one readable line: enter as ⏎, tab ⇥, backspace ⌫, escape ⎋,
// arrows and the like as their glyphs, other control keys as ^X.
func KeysText(s string) string {
	var b strings.Builder
next:
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			for _, k := range keyGlyphs {
				if strings.HasPrefix(s[i:], k.seq) {
					b.WriteString(k.glyph)
					i += len(k.seq)
					continue next
				}
			}
		}
		c := s[i]
		switch {
		case c == '\r' || c == '\n':
			b.WriteString("⏎")
		case c == '\t':
			b.WriteString("⇥")
		case c == 0x7f || c == '\b':
			b.WriteString("⌫")
		case c == 0x1b:
			b.WriteString("⎋")
		case c < 0x20:
			b.WriteByte('^')
			b.WriteByte(c + 0x40)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				b.WriteString("\uFFFD")
				i++
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		i++
	}
	return b.String()
}
