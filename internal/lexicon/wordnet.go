package lexicon

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// DefaultWordNetDir is where Debian's wordnet-base puts the WordNet 3.0 database.
const DefaultWordNetDir = "/usr/share/wordnet"

// wordNet reads synonyms from a WordNet database directory one word at a time: the index files
// (index.noun, index.verb, index.adj, index.adv) are sorted, so a binary search over byte
// offsets finds a word's line, and its synset offsets are byte offsets into the data files. No
// file is loaded whole; open files are kept for the process's life.
type wordNet struct {
	dir  string
	once sync.Once
	ok   bool
	idx  map[string]*os.File // pos → index file
	data map[string]*os.File // pos → data file
	size map[string]int64

	mu    sync.Mutex
	cache map[string][]string
}

var wordNetPOS = []string{"noun", "verb", "adj", "adv"}

func (wn *wordNet) open() bool {
	wn.once.Do(func() {
		wn.idx, wn.data, wn.size = map[string]*os.File{}, map[string]*os.File{}, map[string]int64{}
		wn.cache = map[string][]string{}
		for _, pos := range wordNetPOS {
			fi, err := os.Open(filepath.Join(wn.dir, "index."+pos))
			if err != nil {
				return
			}
			fd, err := os.Open(filepath.Join(wn.dir, "data."+pos))
			if err != nil {
				fi.Close()
				return
			}
			st, err := fi.Stat()
			if err != nil {
				return
			}
			wn.idx[pos], wn.data[pos], wn.size[pos] = fi, fd, st.Size()
		}
		wn.ok = true
	})
	return wn.ok
}

// sensesPerPOS is how many of a word's senses (most frequent first) give synonyms.
const sensesPerPOS = 2

// synonyms returns the single-word lemmas that share one of word's first senses in any part of
// speech, without word itself.
func (wn *wordNet) synonyms(word string) []string {
	if word == "" || !wn.open() {
		return nil
	}
	wn.mu.Lock()
	defer wn.mu.Unlock()
	if s, ok := wn.cache[word]; ok {
		return s
	}
	var out []string
	seen := map[string]bool{word: true}
	for _, pos := range wordNetPOS {
		line := wn.lookup(pos, word)
		if line == "" {
			continue
		}
		for _, off := range synsetOffsets(line, sensesPerPOS) {
			for _, w := range wn.synsetWords(pos, off) {
				if !seen[w] && !strings.Contains(w, "_") {
					seen[w] = true
					out = append(out, w)
				}
			}
		}
	}
	if len(wn.cache) > 10000 {
		clear(wn.cache)
	}
	wn.cache[word] = out
	return out
}

// lookup finds word's line in index.pos by binary search over byte offsets: readLineAfter(x)
// gives the first line that starts after x (the first line for x = 0), so the line sought is
// found from any x between the start of the line before it and its own start.
func (wn *wordNet) lookup(pos, word string) string {
	f := wn.idx[pos]
	lo, hi := int64(0), wn.size[pos]
	buf := make([]byte, 4096)
	for lo < hi {
		mid := (lo + hi) / 2
		line, start, _ := readLineAfter(f, mid, buf)
		if start < 0 {
			hi = mid
			continue
		}
		key, _, _ := bytes.Cut(line, []byte(" ")) // the licence lines start with spaces: key ""
		switch c := bytes.Compare(key, []byte(word)); {
		case c == 0:
			return string(line)
		case c < 0:
			lo = start + 1
		default:
			hi = mid
		}
	}
	return ""
}

// readLineAfter returns the first whole line that starts after offset off, with its start and
// the offset after it; start is -1 at the end of the file.
func readLineAfter(f *os.File, off int64, buf []byte) ([]byte, int64, int64) {
	n, err := f.ReadAt(buf, off)
	if n == 0 && err != nil {
		return nil, -1, 0
	}
	b := buf[:n]
	i := 0
	if off > 0 {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			return nil, -1, 0
		}
		i = j + 1
	}
	return readLineAt(f, off+int64(i), buf)
}

// readLineAt reads the line starting at off.
func readLineAt(f *os.File, off int64, buf []byte) ([]byte, int64, int64) {
	var line []byte
	for pos := off; ; {
		n, err := f.ReadAt(buf, pos)
		if n == 0 {
			if len(line) == 0 {
				return nil, -1, 0
			}
			return line, off, pos
		}
		if j := bytes.IndexByte(buf[:n], '\n'); j >= 0 {
			line = append(line, buf[:j]...)
			return line, off, pos + int64(j) + 1
		}
		line = append(line, buf[:n]...)
		pos += int64(n)
		if err == io.EOF {
			return line, off, pos
		}
	}
}

// synsetOffsets reads the first n synset offsets of an index line: "lemma pos synset_cnt
// p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...".
func synsetOffsets(line string, n int) []int64 {
	f := strings.Fields(line)
	if len(f) < 4 {
		return nil
	}
	cnt, err1 := strconv.Atoi(f[2])
	pcnt, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || len(f) < 4+pcnt+2+cnt {
		return nil
	}
	var out []int64
	for _, s := range f[4+pcnt+2 : 4+pcnt+2+min(cnt, n)] {
		if off, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, off)
		}
	}
	return out
}

// synsetWords reads the lemmas of the synset at byte offset off of data.pos: "offset lex_filenum
// ss_type w_cnt word lex_id [word lex_id...] ...", w_cnt in hexadecimal.
func (wn *wordNet) synsetWords(pos string, off int64) []string {
	line, _, _ := readLineAt(wn.data[pos], off, make([]byte, 2048))
	f := strings.Fields(string(line))
	if len(f) < 4 || f[0] != fmt.Sprintf("%08d", off) {
		return nil
	}
	cnt, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || len(f) < 4+2*int(cnt) {
		return nil
	}
	out := make([]string, 0, cnt)
	for i := range int(cnt) {
		w := strings.ToLower(f[4+2*i])
		if p := strings.IndexByte(w, '('); p > 0 { // adjective markers: "big(a)"
			w = w[:p]
		}
		out = append(out, w)
	}
	return out
}
