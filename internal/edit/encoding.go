package edit

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
	"golang.org/x/text/encoding/charmap"
)

// The encodings create_file writes content in. UTF-16 files start with a byte order mark, so
// editors and compilers can tell them apart; base64 and hex carry raw bytes.
const (
	EncodingUTF8        = "utf-8"
	EncodingUTF16LE     = "utf-16le"
	EncodingUTF16BE     = "utf-16be"
	EncodingLatin1      = "latin-1"
	EncodingWindows1252 = "windows-1252"
	EncodingBase64      = "base64"
	EncodingHex         = "hex"
)

// ErrUnencodable reports text with a character the chosen encoding has no byte for; the
// concrete error is an *EncodeError.
var ErrUnencodable = errors.New("text cannot be encoded")

// EncodeError names the first character an encoding cannot hold, where it is, and an encoding
// that can hold the whole text.
type EncodeError struct {
	Encoding     string
	Char         rune
	Line, Column int // 1-based; the column counts characters
	Count        int // characters of the text the encoding cannot hold
	Suggest      string
	// Unsure, for an edit, says why the file's encoding cannot be told.
	Unsure string
	// Path and Edit are set for an edit of a file in that encoding: the line is then the file's
	// line after the edit.
	Path string
}

func (e *EncodeError) Error() string {
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" and %d more characters", e.Count-1)
	}
	switch {
	case e.Unsure != "":
		return fmt.Sprintf("%s is not UTF-8 and its encoding cannot be told (%s), so %q (U+%04X) cannot be written into it: line %d of the new text, column %d%s; only ASCII is written into such a file, and its other bytes are kept",
			e.Path, e.Unsure, e.Char, e.Char, e.Line, e.Column, more)
	case e.Path != "":
		return fmt.Sprintf("%s is %s, which cannot hold %q (U+%04X): the edit would write it at line %d, column %d%s; nothing was written",
			e.Path, e.Encoding, e.Char, e.Char, e.Line, e.Column, more)
	}
	return fmt.Sprintf("%s cannot encode %q (U+%04X) at line %d, column %d%s; write it as %s, or replace those characters",
		e.Encoding, e.Char, e.Char, e.Line, e.Column, more, e.Suggest)
}

// Next is the step for an edit the file's encoding cannot hold.
func (e *EncodeError) Next() string {
	if e.Unsure != "" {
		return "keep the new text ASCII, or convert the file to UTF-8 first (iconv in the terminal, then read it again)"
	}
	return "use characters the file's encoding has (an ASCII spelling), or convert the file to UTF-8 first (create_file with its whole text)"
}

func (e *EncodeError) Unwrap() error { return ErrUnencodable }

// EncodeContent turns create_file's content into the bytes to write: text encoded as encoding,
// or the bytes that base64 or hex content spells. "" means utf-8.
func EncodeContent(content, encoding string) ([]byte, error) {
	switch encoding {
	case "", EncodingUTF8:
		return []byte(content), nil
	case EncodingBase64:
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(content), ""))
		if err != nil {
			return nil, fmt.Errorf("%w: content is not valid base64 (%v)", ErrInvalidArgument, err)
		}
		return b, nil
	case EncodingHex:
		b, err := hex.DecodeString(strings.Join(strings.Fields(content), ""))
		if err != nil {
			return nil, fmt.Errorf("%w: content is not valid hex (%v)", ErrInvalidArgument, err)
		}
		return b, nil
	case EncodingUTF16LE, EncodingUTF16BE:
		units := utf16.Encode([]rune(content))
		out := make([]byte, 0, 2+2*len(units))
		for _, u := range append([]uint16{0xFEFF}, units...) {
			if encoding == EncodingUTF16LE {
				out = append(out, byte(u), byte(u>>8))
			} else {
				out = append(out, byte(u>>8), byte(u))
			}
		}
		return out, nil
	case EncodingLatin1, EncodingWindows1252:
		cm := charmap.ISO8859_1
		if encoding == EncodingWindows1252 {
			cm = charmap.Windows1252
		}
		out := make([]byte, 0, len(content))
		var bad *EncodeError
		line, col := 1, 0
		for _, r := range content {
			col++
			b, ok := cm.EncodeRune(r)
			switch {
			case !ok && bad == nil:
				bad = &EncodeError{Encoding: encoding, Char: r, Line: line, Column: col, Count: 1}
			case !ok:
				bad.Count++
			}
			out = append(out, b)
			if r == '\n' {
				line, col = line+1, 0
			}
		}
		if bad != nil {
			bad.Suggest = suggestEncoding(content, encoding)
			return nil, bad
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown encoding %q; use utf-8, utf-16le, utf-16be, latin-1, windows-1252, base64 or hex", ErrInvalidArgument, encoding)
}

// suggestEncoding names a single-byte encoding that holds all of text when there is one (the
// user chose a legacy encoding for a reason), else utf-8.
func suggestEncoding(text, failed string) string {
	if failed == EncodingLatin1 {
		ok := true
		for _, r := range text {
			if _, in := charmap.Windows1252.EncodeRune(r); !in {
				ok = false
				break
			}
		}
		if ok {
			return EncodingWindows1252
		}
	}
	return EncodingUTF8
}

// A codec is how a file's bytes are its text. Files that are valid UTF-8 are edited as they are;
// UTF-16 (with a byte order mark), Latin-1 and Windows-1252 files are decoded, edited as text
// and encoded back, so every byte the edit does not touch stays and new text is written in the
// file's encoding. A file whose encoding cannot be told is edited as bytes, and only ASCII may
// be written into it.
type codec struct {
	// name is the encoding: "utf-8", "utf-16le", "utf-16be", "latin-1", "windows-1252", or ""
	// when it cannot be told.
	name string
	// unsure says why the encoding cannot be told.
	unsure string
	// invalid is set for UTF-8 with bytes that are not UTF-8 (read_file shows them as U+FFFD).
	invalid bool
}

// label is how a message names the encoding.
func (c *codec) label() string {
	switch c.name {
	case EncodingLatin1:
		return "Latin-1 (ISO-8859-1)"
	case EncodingWindows1252:
		return "Windows-1252"
	case EncodingUTF16LE:
		return "UTF-16LE"
	case EncodingUTF16BE:
		return "UTF-16BE"
	case "":
		return "an encoding that cannot be told"
	}
	return "UTF-8"
}

// decoded reports whether the engines see decoded text rather than the file's bytes.
func (c *codec) decoded() bool {
	switch c.name {
	case EncodingLatin1, EncodingWindows1252, EncodingUTF16LE, EncodingUTF16BE:
		return true
	}
	return false
}

// detectCodec tells a file's encoding from its bytes.
func detectCodec(b []byte) *codec {
	switch {
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		if _, ok := decodeUTF16(b[2:], false); ok {
			return &codec{name: EncodingUTF16LE}
		}
		return &codec{unsure: "it starts with a UTF-16 byte order mark but is not valid UTF-16"}
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		if _, ok := decodeUTF16(b[2:], true); ok {
			return &codec{name: EncodingUTF16BE}
		}
		return &codec{unsure: "it starts with a UTF-16 byte order mark but is not valid UTF-16"}
	case utf8.Valid(b):
		return &codec{name: EncodingUTF8}
	}
	// Not UTF-8. Count what is: multi-byte UTF-8 sequences against bytes that are not.
	valid, invalid, high, runs := 0, 0, 0, 0
	run := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x80 {
			high++
			run++
		} else {
			if run >= 3 {
				runs += run
			}
			run = 0
		}
		if c == 0 {
			return &codec{unsure: "it holds NUL bytes, as binary files and UTF-16 without a byte order mark do"}
		}
		r, w := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			invalid++
		case w > 1:
			valid++
			for range w - 1 {
				// The continuation bytes are part of the run of high bytes too.
				run++
				high++
			}
		}
		i += w
	}
	if run >= 3 {
		runs += run
	}
	switch {
	case valid >= 3*invalid:
		return &codec{name: EncodingUTF8, invalid: true}
	case valid > 0 && 3*valid > invalid:
		return &codec{unsure: fmt.Sprintf("it mixes UTF-8 characters (%d) with bytes that are not UTF-8 (%d)", valid, invalid)}
	case 2*runs > high:
		return &codec{unsure: "most of its bytes above 0x7F come in runs, as in Cyrillic, Greek or Asian legacy encodings rather than Latin-1"}
	}
	c1 := false
	for _, c := range b {
		switch c {
		case 0x81, 0x8D, 0x8F, 0x90, 0x9D:
			return &codec{unsure: fmt.Sprintf("it has the byte 0x%02X, which neither Latin-1 text nor Windows-1252 uses", c)}
		}
		if c >= 0x80 && c <= 0x9F {
			c1 = true
		}
	}
	if c1 {
		return &codec{name: EncodingWindows1252}
	}
	return &codec{name: EncodingLatin1}
}

func decodeUTF16(b []byte, bigEndian bool) (string, bool) {
	if len(b)%2 != 0 {
		return "", false
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			units[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case u >= 0xD800 && u < 0xDC00:
			if i+1 >= len(units) || units[i+1] < 0xDC00 || units[i+1] >= 0xE000 {
				return "", false
			}
			i++
		case u >= 0xDC00 && u < 0xE000:
			return "", false
		}
	}
	return string(utf16.Decode(units)), true
}

// decode returns the text the engines edit.
func (c *codec) decode(b []byte) string {
	switch c.name {
	case EncodingUTF16LE, EncodingUTF16BE:
		s, _ := decodeUTF16(b[2:], c.name == EncodingUTF16BE)
		return s
	case EncodingLatin1, EncodingWindows1252:
		cm := charmap.ISO8859_1
		if c.name == EncodingWindows1252 {
			cm = charmap.Windows1252
		}
		var sb strings.Builder
		sb.Grow(len(b) + len(b)/8)
		for _, x := range b {
			sb.WriteRune(cm.DecodeByte(x))
		}
		return sb.String()
	}
	return string(b)
}

// encode turns edited text back into the file's bytes; a character the encoding cannot hold is
// an *EncodeError at its line and column.
func (c *codec) encode(s string) ([]byte, error) {
	switch c.name {
	case EncodingUTF16LE, EncodingUTF16BE, EncodingLatin1, EncodingWindows1252:
		b, err := EncodeContent(s, c.name)
		var ee *EncodeError
		if errors.As(err, &ee) && c.name == EncodingLatin1 {
			// Nothing in the file told Latin-1 from Windows-1252 (it has no byte between 0x80
			// and 0x9F), and writing a character only Windows-1252 has would guess.
			ee.Encoding = "Latin-1 (ISO-8859-1; nothing in the file tells it from Windows-1252)"
			ee.Suggest = ""
		}
		return b, err
	}
	return []byte(s), nil
}

// unsureError refuses to write non-ASCII text into a file whose encoding cannot be told.
func (c *codec) checkASCII(inserted string) error {
	if c.name != "" {
		return nil
	}
	line, col := 1, 0
	for _, r := range inserted {
		col++
		if r >= utf8.RuneSelf {
			return &EncodeError{Encoding: "this file's encoding", Char: r, Line: line, Column: col, Count: 1, Unsure: c.unsure}
		}
		if r == '\n' {
			line, col = line+1, 0
		}
	}
	return nil
}

// views returns each line as read_file shows it (a run of bytes that are not UTF-8 as one
// U+FFFD, a valid UTF-8 sequence as its character), with the map back to the line's text; nil
// when read_file shows the lines as they are.
func (c *codec) views(lines []string) []viewLine {
	var enc func(string) ([]byte, []int32)
	switch {
	case c.name == EncodingLatin1 || c.name == EncodingWindows1252:
		cm := charmap.ISO8859_1
		if c.name == EncodingWindows1252 {
			cm = charmap.Windows1252
		}
		enc = func(t string) ([]byte, []int32) {
			var b []byte
			var off []int32
			for i, r := range t {
				x, _ := cm.EncodeRune(r)
				b = append(b, x)
				off = append(off, int32(i))
			}
			return b, append(off, int32(len(t)))
		}
	case c.name == EncodingUTF8 && c.invalid, c.name == "":
		enc = func(t string) ([]byte, []int32) {
			off := make([]int32, len(t)+1)
			for i := range off {
				off[i] = int32(i)
			}
			return []byte(t), off
		}
	default:
		return nil
	}
	out := make([]viewLine, len(lines))
	for k, t := range lines {
		raw, off := enc(t)
		var v viewLine
		var sb strings.Builder
		emit := func(s string, from, to int) {
			sb.WriteString(s)
			for range len(s) {
				v.start = append(v.start, off[from])
				v.end = append(v.end, off[to])
			}
		}
		for i := 0; i < len(raw); {
			r, w := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && w == 1 {
				j := i + 1
				for j < len(raw) {
					if r2, w2 := utf8.DecodeRune(raw[j:]); r2 != utf8.RuneError || w2 != 1 {
						break
					}
					j++
				}
				emit("\uFFFD", i, j)
				i = j
				continue
			}
			emit(string(raw[i:i+w]), i, i+w)
			i += w
		}
		v.text = sb.String()
		out[k] = v
	}
	return out
}

// editEncoded applies edit to a file's text in the file's own encoding: the bytes are decoded,
// edited as text, and encoded back. A character the encoding cannot hold is an *EncodeError
// naming the line; into a file whose encoding cannot be told only ASCII is written.
func editEncoded(path string, raw []byte, edit func(text string, cv *codec) (string, error)) ([]byte, *codec, error) {
	cv := detectCodec(raw)
	text := cv.decode(raw)
	out, err := edit(text, cv)
	if err != nil {
		return nil, cv, err
	}
	if out == text {
		return raw, cv, nil
	}
	if cv.name == "" {
		if err := checkInsertedASCII(text, out, cv); err != nil {
			err.Path = path
			return nil, cv, err
		}
		return []byte(out), cv, nil
	}
	b, err := cv.encode(out)
	var ee *EncodeError
	if errors.As(err, &ee) {
		ee.Path = path
		return nil, cv, ee
	}
	return b, cv, err
}

// checkInsertedASCII finds the first character the edit from text to out wrote that is not
// ASCII: new lines whole, and in changed lines what the character diff added.
func checkInsertedASCII(text, out string, cv *codec) *EncodeError {
	a, b := strings.Split(text, "\n"), strings.Split(out, "\n")
	ops := diffLines(a, b)
	var dels []int
	check := func(line int, s string) *EncodeError {
		for col, r := range []rune(s) {
			if r >= utf8.RuneSelf && r != utf8.RuneError {
				return &EncodeError{Char: r, Line: line + 1, Column: col + 1, Count: 1, Unsure: cv.unsure}
			}
		}
		return nil
	}
	for _, op := range ops {
		switch op.kind {
		case ' ':
			dels = nil
		case '-':
			dels = append(dels, op.ai)
		case '+':
			if len(dels) == 0 {
				if err := check(op.bi, b[op.bi]); err != nil {
					return err
				}
				continue
			}
			old := a[dels[0]]
			dels = dels[1:]
			dmp := diffmatchpatch.New()
			dmp.DiffTimeout = diffTimeout
			for _, d := range dmp.DiffMain(old, b[op.bi], false) {
				if d.Type == diffmatchpatch.DiffInsert {
					if err := check(op.bi, d.Text); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// keptNote says, for a result, that the file kept an encoding other than UTF-8.
func (c *codec) keptNote() []string {
	if c == nil || !c.decoded() {
		return nil
	}
	return []string{"kept the file's " + c.label() + " encoding"}
}
