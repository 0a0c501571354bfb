package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
)

// TestEmbeddedWeightsDigest pins the committed blob and vocabulary (also recorded in
// weights/NOTICE), so an accidental rewrite shows up here rather than as drifting vectors.
func TestEmbeddedWeightsDigest(t *testing.T) {
	needBuiltin(t)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"weights/use-lite-en-0.2.0.bin", useWeightsBlob, "3e585da11783c667a1a7c4b61b7ecdadbe4fa1d7ac045737fb655998abae06db"},
		{"weights/vocab.json", useVocabJSON, "1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := sha256.Sum256(tt.data)
			if got := hex.EncodeToString(sum[:]); got != tt.want {
				t.Errorf("sha256(%s) = %s, want %s", tt.name, got, tt.want)
			}
		})
	}
}

func TestParseBlobErrors(t *testing.T) {
	needBuiltin(t)
	tests := []struct {
		name string
		blob []byte
	}{
		{"empty", nil},
		{"bad magic", []byte("NOTMAGIC\x00\x00\x00\x00")},
		{"truncated header", append([]byte("USELITE1"), 1, 0, 0, 0, 5)},
		{"truncated data", useWeightsBlob[:len(useWeightsBlob)-1]},
		{"unknown dtype", append([]byte("USELITE1"), 1, 0, 0, 0, 1, 0, 'x', 9, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := loadUSEModel(tt.blob); !errors.Is(err, ErrBadWeights) {
				t.Errorf("loadUSEModel(%s) error = %v, want ErrBadWeights", tt.name, err)
			}
		})
	}
}

func TestHalfTable(t *testing.T) {
	tests := []struct {
		bits uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.33325195},
		{0x7bff, 65504},
		{0x0001, 5.9604645e-08}, // smallest subnormal
		{0x8001, -5.9604645e-08},
		{0x0400, 6.1035156e-05}, // smallest normal
	}
	table := halfTable()
	for _, tt := range tests {
		if got := table[tt.bits]; got != tt.want {
			t.Errorf("halfTable()[%#04x] = %g, want %g", tt.bits, got, tt.want)
		}
	}
}
