package edit

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

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
}

func (e *EncodeError) Error() string {
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" and %d more characters", e.Count-1)
	}
	return fmt.Sprintf("%s cannot encode %q (U+%04X) at line %d, column %d%s; write it as %s, or replace those characters",
		e.Encoding, e.Char, e.Char, e.Line, e.Column, more, e.Suggest)
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
