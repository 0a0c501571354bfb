package embed

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces is the number of leading vocabulary entries (unknown, <s>, </s>, three extra ids)
// that the tokenizer never produces from text.
const reservedPieces = 6

// sentencePiece is the unigram SentencePiece tokenizer of USE-Lite, reproducing the TF.js
// implementation id for id, including its quirks (see encode).
type sentencePiece struct {
	root    *trieNode
	jsLen   []int // UTF-16 length of each vocabulary piece, used by the backward pass
	maxRune int   // longest piece in runes
}

type trieNode struct {
	children map[rune]*trieNode
	id       int32 // -1 if no piece ends here
	score    float64
}

func newSentencePiece(vocabJSON []byte) (*sentencePiece, error) {
	var entries []struct {
		piece string
		score float64
	}
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, fmt.Errorf("parse vocabulary: %w", err)
	}
	for i, r := range raw {
		var piece string
		if err := json.Unmarshal(r[0], &piece); err != nil {
			return nil, fmt.Errorf("vocabulary entry %d: %w", i, err)
		}
		var score *float64 // null scores count as 0, as JavaScript's null + number does
		if err := json.Unmarshal(r[1], &score); err != nil {
			return nil, fmt.Errorf("vocabulary entry %d: %w", i, err)
		}
		e := struct {
			piece string
			score float64
		}{piece: piece}
		if score != nil {
			e.score = *score
		}
		entries = append(entries, e)
	}
	sp := &sentencePiece{root: newTrieNode(), jsLen: make([]int, len(entries))}
	for i, e := range entries {
		sp.jsLen[i] = len(utf16.Encode([]rune(e.piece)))
		if i < reservedPieces {
			continue
		}
		n := sp.root
		runes := []rune(e.piece)
		for _, r := range runes {
			c := n.children[r]
			if c == nil {
				c = newTrieNode()
				if n.children == nil {
					n.children = map[rune]*trieNode{}
				}
				n.children[r] = c
			}
			n = c
		}
		n.id, n.score = int32(i), e.score // a duplicate piece keeps the later id, as in JS
		sp.maxRune = max(sp.maxRune, len(runes))
	}
	return sp, nil
}

func newTrieNode() *trieNode { return &trieNode{id: -1} }

// encode tokenizes text into vocabulary ids. The steps follow the TF.js tokenizer exactly:
// NFKC, every U+0020 becomes "▁" and one "▁" is prepended (empty text stays empty), then a
// Viterbi pass over the lattice of vocabulary pieces, where a position with no piece starting
// at it gets a one-character unknown piece (id 0, score 0). A candidate replaces the best path
// ending at a position if that best is still exactly 0 or the candidate scores >= it, so among
// equals the last candidate (longest start offset) wins. Consecutive unknowns merge into one.
func (sp *sentencePiece) encode(text string) []int {
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	symbols := []rune("▁" + strings.ReplaceAll(text, " ", "▁"))
	n := len(symbols)

	// Forward Viterbi. Visiting start positions in increasing order updates each end position
	// in the same order as the JS code's loop over the lattice (ends, then starts ascending), and
	// best[i] is final when start i is visited because every edge into i starts before it.
	best := make([]float64, n+1) // float64, as JavaScript numbers are
	words := make([]int32, n+1)
	relax := func(start, end int, id int32, score float64) {
		s := score + best[start]
		if best[end] == 0 || s >= best[end] {
			best[end] = s
			words[end] = id
		}
	}
	for i := 0; i < n; i++ {
		node := sp.root.children[symbols[i]]
		found := false
		for j := i; node != nil; {
			if node.id >= 0 {
				relax(i, j+1, node.id, node.score)
				found = true
			}
			j++
			if j >= n {
				break
			}
			node = node.children[symbols[j]]
		}
		if !found {
			relax(i, i+1, 0, 0) // a one-character unknown piece
		}
	}

	var rev []int
	for i := n; i > 0; {
		id := words[i]
		rev = append(rev, int(id))
		i -= max(sp.jsLen[id], 1)
	}
	ids := make([]int, 0, len(rev))
	prevUnk := false
	for i := len(rev) - 1; i >= 0; i-- {
		id := rev[i]
		if !(prevUnk && id == 0) {
			ids = append(ids, id)
		}
		prevUnk = id == 0
	}
	return ids
}
