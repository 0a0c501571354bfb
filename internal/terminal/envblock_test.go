package terminal

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// decodeBlock splits an environment block back into its entries, checking its framing: every
// entry ends with a NUL and the block with one more.
func decodeBlock(t *testing.T, block []uint16) []string {
	t.Helper()
	if len(block) < 2 || block[len(block)-1] != 0 || block[len(block)-2] != 0 {
		t.Fatalf("block %v does not end with two NULs", block)
	}
	body := block[:len(block)-1] // drop the block's own NUL
	if len(body) == 1 {
		return nil // the empty block: one entry's worth of NUL
	}
	return strings.Split(string(utf16.Decode(body[:len(body)-1])), "\x00")
}

func TestEnvBlock(t *testing.T) {
	tests := []struct {
		name       string
		env        []string
		systemRoot string
		want       []string
	}{
		{"empty, no system root", nil, "", nil},
		{"empty gets the system root", nil, `C:\Windows`, []string{`SYSTEMROOT=C:\Windows`}},
		{"sorted by name ignoring case", []string{"b=2", "A=1", "c=3"}, "", []string{"A=1", "b=2", "c=3"}},
		{"the last of names differing in case wins, in the first's place",
			[]string{"Path=a", "HOME=h", "PATH=b"}, "", []string{"HOME=h", "PATH=b"}},
		{"system root kept when set, in any case", []string{"SystemRoot=D:\\Win"}, `C:\Windows`, []string{`SystemRoot=D:\Win`}},
		{"drive directories keep their leading =", []string{"=C:=C:\\src", "A=1"}, "", []string{"=C:=C:\\src", "A=1"}},
		{"a value may hold =", []string{"X=a=b"}, "", []string{"X=a=b"}},
		{"an empty value stays", []string{"EMPTY="}, "", []string{"EMPTY="}},
		{"entries without = name nothing", []string{"junk", "", "=", "A=1"}, "", []string{"A=1"}},
		{"non-ASCII in UTF-16, beyond the BMP as a surrogate pair", []string{"NAME=café 🙂"}, "", []string{"NAME=café 🙂"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			block, err := envBlock(tt.env, tt.systemRoot)
			if err != nil {
				t.Fatalf("envBlock(%q) = %v", tt.env, err)
			}
			if diff := cmp.Diff(tt.want, decodeBlock(t, block)); diff != "" {
				t.Errorf("envBlock(%q, %q) entries (-want +got):\n%s", tt.env, tt.systemRoot, diff)
			}
		})
	}
}

func TestEnvBlockFraming(t *testing.T) {
	empty, _ := envBlock(nil, "")
	if diff := cmp.Diff([]uint16{0, 0}, empty); diff != "" {
		t.Errorf("envBlock(nil) (-want +got):\n%s", diff)
	}
	one, _ := envBlock([]string{"A=1"}, "")
	if diff := cmp.Diff([]uint16{'A', '=', '1', 0, 0}, one); diff != "" {
		t.Errorf("envBlock(A=1) (-want +got):\n%s", diff)
	}
	pair, _ := envBlock([]string{"X=🙂"}, "")
	if diff := cmp.Diff([]uint16{'X', '=', 0xD83D, 0xDE42, 0, 0}, pair); diff != "" {
		t.Errorf("envBlock(X=🙂) (-want +got):\n%s", diff)
	}
}

func TestEnvBlockRefusesNUL(t *testing.T) {
	for _, env := range [][]string{{"A=1\x00B=2"}, {"A\x00=1"}, {"OK=1", "\x00"}} {
		if _, err := envBlock(env, ""); !errors.Is(err, errEnvNUL) {
			t.Errorf("envBlock(%q) = %v, want errEnvNUL", env, err)
		}
	}
}
