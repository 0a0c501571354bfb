package edit_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// The edit corpus: edit attempts as models send them through file_operations, each with the
// files before, the call, and the intended files after or the intended refusal. The cases are
// written by corpus_gen_test.go into testdata/corpus/<class>.json; corpus_test.go drives them
// through the built binary and prints a table per class. docs/edits.md describes both.

// corpusDir holds the generated cases; corpusBaseDir the source files they start from.
const (
	corpusDir     = "testdata/corpus"
	corpusBaseDir = "testdata/corpus/base"
)

// corpusFile is a file's bytes, spelled so the JSON stays readable: UTF-8 text, text in a legacy
// encoding (the bytes are the text encoded), or raw bytes in base64.
type corpusFile struct {
	Text *string `json:"text,omitempty"`
	// Encoding of Text on disk: "" (UTF-8), latin-1, windows-1252, windows-1251, shift-jis,
	// utf-16le or utf-16be (both written with a byte order mark).
	Encoding string `json:"encoding,omitempty"`
	Base64   string `json:"base64,omitempty"`
}

// corpusCase is one edit attempt.
type corpusCase struct {
	ID    string `json:"id"`
	Class string `json:"class"`
	// Note says what the model got wrong, and where that failure is reported.
	Note  string                `json:"note"`
	Files map[string]corpusFile `json:"files"`
	// Reads are the read_file calls the model made before the edit; none means one plain
	// read of each file.
	Reads []map[string]any `json:"reads,omitempty"`
	// Disk replaces files after the reads: a change made behind the model's back.
	Disk map[string]corpusFile `json:"disk,omitempty"`
	// Call is the file_operations arguments exactly as the model sent them.
	Call map[string]any `json:"call"`
	Want corpusWant     `json:"want"`
}

// corpusWant is the intended outcome: the files the edit writes (every other file stays as it
// was) and those it removes, or a refusal.
type corpusWant struct {
	Files   map[string]corpusFile `json:"files,omitempty"`
	Deleted []string              `json:"deleted,omitempty"`
	Refuse  *corpusRefusal        `json:"refuse,omitempty"`
}

// corpusRefusal is what a useful refusal holds: one of the codes, and text matching every
// mention (regular expressions: the line where the model's text and the file part, the
// candidates, the character an encoding cannot hold).
type corpusRefusal struct {
	Code     []string `json:"code"`
	Mentions []string `json:"mentions,omitempty"`
}

func textFile(s string) corpusFile { return corpusFile{Text: &s} }

// bytes returns the file's content on disk.
func (f corpusFile) bytes() ([]byte, error) {
	if f.Base64 != "" {
		return base64.StdEncoding.DecodeString(f.Base64)
	}
	if f.Text == nil {
		return nil, fmt.Errorf("file has neither text nor base64")
	}
	return encodeText(*f.Text, f.Encoding)
}

// encodeText spells s in a named encoding; every character must fit.
func encodeText(s, enc string) ([]byte, error) {
	var e encoding.Encoding
	switch enc {
	case "", "utf-8":
		return []byte(s), nil
	case "utf-16le", "utf-16be":
		units := utf16.Encode([]rune(s))
		out := make([]byte, 0, 2+2*len(units))
		for _, u := range append([]uint16{0xFEFF}, units...) {
			if enc == "utf-16le" {
				out = append(out, byte(u), byte(u>>8))
			} else {
				out = append(out, byte(u>>8), byte(u))
			}
		}
		return out, nil
	case "latin-1":
		e = charmap.ISO8859_1
	case "windows-1252":
		e = charmap.Windows1252
	case "windows-1251":
		e = charmap.Windows1251
	case "shift-jis":
		e = japanese.ShiftJIS
	default:
		return nil, fmt.Errorf("unknown encoding %q", enc)
	}
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", enc, err)
	}
	return b, nil
}

// writeTree writes files under dir.
func writeTree(dir string, files map[string]corpusFile) error {
	for name, f := range files {
		b, err := f.bytes()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readTree returns every regular file under dir by slash path.
func readTree(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out, err
}

// treeBytes turns a file map into the bytes expected on disk.
func treeBytes(files map[string]corpusFile) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, f := range files {
		b, err := f.bytes()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

// treeDiff describes how got differs from want ("" when equal).
func treeDiff(want, got map[string][]byte) string {
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		w, wok := want[n]
		g, gok := got[n]
		switch {
		case !gok:
			out = append(out, n+": missing")
		case !wok:
			out = append(out, n+": unexpected file")
		case string(w) != string(g):
			out = append(out, fmt.Sprintf("%s: first difference at byte %d: want %q, got %q", n, firstDiff(w, g), excerpt(w, firstDiff(w, g)), excerpt(g, firstDiff(w, g))))
		}
	}
	return strings.Join(out, "; ")
}

func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func excerpt(b []byte, at int) string {
	from := max(at-20, 0)
	to := min(at+40, len(b))
	return string(b[from:to])
}
