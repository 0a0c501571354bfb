package edit

import (
	"errors"
	"testing"
)

func TestEncodeContent(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		encoding string
		want     string
		wantErr  error
		errText  string
	}{
		{"utf-8", "héllo\n", "utf-8", "h\xc3\xa9llo\n", nil, ""},
		{"default is utf-8", "é", "", "\xc3\xa9", nil, ""},
		{"utf-16le with BOM", "hé\n", "utf-16le", "\xff\xfeh\x00\xe9\x00\n\x00", nil, ""},
		{"utf-16be with BOM", "hé", "utf-16be", "\xfe\xff\x00h\x00\xe9", nil, ""},
		{"utf-16 surrogate pair", "😀", "utf-16le", "\xff\xfe\x3d\xd8\x00\xde", nil, ""},
		{"latin-1", "café\r\n", "latin-1", "caf\xe9\r\n", nil, ""},
		{"windows-1252 euro and quotes", "€ “q”", "windows-1252", "\x80 \x93q\x94", nil, ""},
		{"latin-1 refuses the euro sign, suggests windows-1252", "ok\nprice: 5 €", "latin-1", "", ErrUnencodable,
			`latin-1 cannot encode '€' (U+20AC) at line 2, column 10; write it as windows-1252, or replace those characters`},
		{"latin-1 counts every unencodable character", "€ and ☃ and €", "latin-1", "", ErrUnencodable,
			`latin-1 cannot encode '€' (U+20AC) at line 1, column 1 and 2 more characters; write it as utf-8, or replace those characters`},
		{"windows-1252 refuses CJK, suggests utf-8", "日本", "windows-1252", "", ErrUnencodable,
			`windows-1252 cannot encode '日' (U+65E5) at line 1, column 1 and 1 more characters; write it as utf-8, or replace those characters`},
		{"base64", "aGk=\n", "base64", "hi", nil, ""},
		{"base64 split over lines", "aG\nk=", "base64", "hi", nil, ""},
		{"bad base64", "!!!", "base64", "", ErrInvalidArgument, ""},
		{"hex", "00 ff 41", "hex", "\x00\xffA", nil, ""},
		{"bad hex", "0g", "hex", "", ErrInvalidArgument, ""},
		{"unknown encoding", "x", "ebcdic", "", ErrInvalidArgument, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeContent(tt.content, tt.encoding)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("EncodeContent(%q, %s) error = %v, want %v", tt.content, tt.encoding, err, tt.wantErr)
				}
				if tt.errText != "" && err.Error() != tt.errText {
					t.Errorf("error text = %q\nwant         %q", err, tt.errText)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("EncodeContent(%q, %s) = %q, %v; want %q", tt.content, tt.encoding, got, err, tt.want)
			}
		})
	}
}
