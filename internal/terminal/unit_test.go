package terminal

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
)

func TestRing(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		writes    []string
		off       int64
		max       int
		want      string
		wantFrom  int64
		wantStart int64
	}{
		{name: "fits", limit: 1024, writes: []string{"abc", "def"}, off: 0, max: 100, want: "abcdef"},
		{name: "from middle", limit: 1024, writes: []string{"abc", "def"}, off: 2, max: 3, want: "cde", wantFrom: 2},
		{name: "wraps", limit: 1024, writes: []string{strings.Repeat("a", 1000), strings.Repeat("b", 100)}, off: 1000, max: 200, want: strings.Repeat("b", 100), wantFrom: 1000, wantStart: 76},
		{name: "dropped cursor clamps", limit: 1024, writes: []string{strings.Repeat("a", 1000), strings.Repeat("b", 100)}, off: 0, max: 3, want: "aaa", wantFrom: 76, wantStart: 76},
		{name: "huge write keeps tail", limit: 1024, writes: []string{"x", strings.Repeat("a", 2000) + "END"}, off: 2001, max: 10, want: "END", wantFrom: 2001, wantStart: 980},
		{name: "at end", limit: 1024, writes: []string{"abc"}, off: 3, max: 10, want: "", wantFrom: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(tt.limit)
			for _, w := range tt.writes {
				r.write([]byte(w))
			}
			got, from := r.read(tt.off, tt.max)
			if string(got) != tt.want || from != tt.wantFrom {
				t.Errorf("read(%d, %d) = %q, %d, want %q, %d", tt.off, tt.max, got, from, tt.want, tt.wantFrom)
			}
			if r.start() != tt.wantStart {
				t.Errorf("start() = %d, want %d", r.start(), tt.wantStart)
			}
		})
	}
}

func TestLogView(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		want    string
		markers []marker
	}{
		{name: "plain", chunks: []string{"hello\nworld"}, want: "hello\nworld"},
		{name: "colors stripped", chunks: []string{"\x1b[1;31mred\x1b[0m ok\r\n"}, want: "red ok\n"},
		{name: "escape split across reads", chunks: []string{"a\x1b[3", "1mb\x1b", "[0mc\n"}, want: "abc\n"},
		{name: "carriage return in one read", chunks: []string{"10%\r50%\r100%\n"}, want: "100%\n"},
		{name: "progress bar across reads", chunks: []string{"10%", "\r100%\n"}, want: "10%\n100%\n"},
		{name: "backspace", chunks: []string{"abc\b\bX\n"}, want: "aXc\n"},
		{name: "erase line", chunks: []string{"abcdef\r\x1b[Kxy\n"}, want: "xy\n"},
		{name: "utf8 split", chunks: []string{"h\xc3", "\xa9llo \xe2\x82", "\xac\n"}, want: "héllo €\n"},
		{name: "osc title removed", chunks: []string{"\x1b]0;title\x07after\n"}, want: "after\n"},
		{name: "osc with ST", chunks: []string{"\x1b]0;t\x1b\\x\n"}, want: "x\n"},
		{name: "cursor position to another row ends the line", chunks: []string{"\x1b[1;1Htop\x1b[2;1Hcpu\x1b[3;5Hx\x1b[3;1Hmem\n"}, want: "top\ncpu\nmem x\n"},
		{name: "vertical position", chunks: []string{"a\x1b[5db\n"}, want: "a\n b\n"},
		{name: "home after a full screen", chunks: []string{"l1\r\nl2\x1b[Hnew\n"}, want: "l1\nl2\nnew\n"},
		{name: "charset designation", chunks: []string{"\x1b(Bq\n"}, want: "q\n"},
		{
			name:    "stray DCS ends at the next escape",
			chunks:  []string{"\x1bPjunk", "\x1b]133;D;0\x07\x1b]133;A\x07$ "},
			want:    "$ ",
			markers: []marker{{kind: 'D', code: 0, off: 0}, {kind: 'A', code: -1, off: 0}},
		},
		{
			name:    "prompt markers",
			chunks:  []string{"out\n\x1b]133;D;", "7\x07\x1b]133;A\x07$ "},
			want:    "out\n$ ",
			markers: []marker{{kind: 'D', code: 7, off: 4}, {kind: 'A', code: -1, off: 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(1 << 16)
			var got []marker
			v := newLogView(r, func(m marker) { got = append(got, m) })
			now := time.Unix(0, 0)
			for _, c := range tt.chunks {
				v.write([]byte(c), now)
			}
			data, _ := r.read(0, 1<<16)
			if string(data) != tt.want {
				t.Errorf("log of %q = %q, want %q", tt.chunks, data, tt.want)
			}
			if diff := cmp.Diff(tt.markers, got, cmp.AllowUnexported(marker{})); diff != "" {
				t.Errorf("markers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeyBytes(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "ctrl-c", in: "ctrl-c", want: "\x03"},
		{name: "caret", in: "^D", want: "\x04"},
		{name: "emacs style", in: "C-z", want: "\x1a"},
		{name: "plus and case", in: "Ctrl+L", want: "\x0c"},
		{name: "up", in: "up", want: "\x1b[A"},
		{name: "tab", in: "tab", want: "\t"},
		{name: "esc", in: "esc", want: "\x1b"},
		{name: "unknown", in: "hyper-x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := keyBytes(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("keyBytes(%q) = %q, %v, want %q (error %v)", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	t.Setenv("TOOLHOST_TOKEN", "secret")
	t.Setenv("MY_API_KEY", "secret2")
	t.Setenv("KEEP_ME", "yes")
	t.Setenv("EDITOR", "vim")
	g, err := gate.New(gate.Config{Mode: sandbox.ModeOff, Withhold: []string{"MY_API_*"}})
	if err != nil {
		t.Fatal(err)
	}
	env := childEnv(g, g.Environ(), "dumb", map[string]string{"EXTRA": "1", "PAGER": "less", "GIT_EDITOR": "true"}, "M=1")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	tests := []struct {
		name, key, want string
		present         bool
	}{
		{name: "token scrubbed", key: "TOOLHOST_TOKEN"},
		{name: "configured prefix scrubbed", key: "MY_API_KEY"},
		{name: "kept", key: "KEEP_ME", want: "yes", present: true},
		{name: "extra", key: "EXTRA", want: "1", present: true},
		{name: "caller overrides pager", key: "PAGER", want: "less", present: true},
		{name: "git pager", key: "GIT_PAGER", want: "cat", present: true},
		{name: "no git prompt", key: "GIT_TERMINAL_PROMPT", want: "0", present: true},
		{name: "term", key: "TERM", want: "dumb", present: true},
		{name: "marker", key: "M", want: "1", present: true},
		{name: "no editor without a terminal", key: "EDITOR", want: "false", present: true},
		{name: "caller's editor kept", key: "GIT_EDITOR", want: "true", present: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := got[tt.key]
			if ok != tt.present || v != tt.want {
				t.Errorf("childEnv()[%s] = %q (present %v), want %q (present %v)", tt.key, v, ok, tt.want, tt.present)
			}
		})
	}
}

// TestCompleteUTF8: a sequence cut at the end is left for the next bytes; a whole one, plain
// ASCII and invalid bytes are kept.
func TestCompleteUTF8(t *testing.T) {
	check := "✓" // 3 bytes
	tests := []struct {
		name string
		p    string
		want int
	}{
		{"empty", "", 0},
		{"ascii", "abc", 3},
		{"whole at the end", "a" + check, 4},
		{"one byte of three", "a" + check[:1], 1},
		{"two bytes of three", "a" + check[:2], 1},
		{"continuation bytes only", check[1:], 2},
		{"invalid byte", "a\xff", 2},
	}
	for _, tt := range tests {
		if got := completeUTF8([]byte(tt.p)); got != tt.want {
			t.Errorf("%s: completeUTF8(%q) = %d, want %d", tt.name, tt.p, got, tt.want)
		}
	}
}
