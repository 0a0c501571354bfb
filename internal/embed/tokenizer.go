package embed

import (
	"encoding/json"
	"fmt"
	"slices"
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
	trie    flatTrie
	jsLen   []int // UTF-16 length of each vocabulary piece, used by the backward pass
	maxRune int   // longest piece in runes
}

// trieNode is the build-time form of the vocabulary trie.
type trieNode struct {
	children map[rune]*trieNode
	id       int32 // -1 if no piece ends here
	score    float64
}

// flatTrie is the vocabulary trie packed into arrays: node i's children are
// keys/child[first[i] : first[i]+count[i]], sorted by rune for binary search. Map lookups per
// character made the pointer form several times slower, and CountTokens runs over whole
// documents.
type flatTrie struct {
	keys         []rune
	child        []int32
	first, count []int32
	id           []int32 // -1 if no piece ends at the node
	score        []float64
}

// next returns the child of node for r, or -1.
func (t *flatTrie) next(node int32, r rune) int32 {
	lo, hi := t.first[node], t.first[node]+t.count[node]
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		switch k := t.keys[mid]; {
		case k < r:
			lo = mid + 1
		case k > r:
			hi = mid
		default:
			return t.child[mid]
		}
	}
	return -1
}

// flatten packs the pointer trie breadth-first; the root becomes node 0.
func flatten(root *trieNode) flatTrie {
	var t flatTrie
	queue := []*trieNode{root}
	for i := 0; i < len(queue); i++ {
		n := queue[i]
		t.id = append(t.id, n.id)
		t.score = append(t.score, n.score)
		t.first = append(t.first, int32(len(t.keys)))
		t.count = append(t.count, int32(len(n.children)))
		keys := make([]rune, 0, len(n.children))
		for r := range n.children {
			keys = append(keys, r)
		}
		slices.Sort(keys)
		for _, r := range keys {
			t.keys = append(t.keys, r)
			t.child = append(t.child, int32(len(queue)))
			queue = append(queue, n.children[r])
		}
	}
	return t
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
	root := newTrieNode()
	sp := &sentencePiece{jsLen: make([]int, len(entries))}
	for i, e := range entries {
		sp.jsLen[i] = len(utf16.Encode([]rune(e.piece)))
		if i < reservedPieces {
			continue
		}
		n := root
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
	sp.trie = flatten(root)
	return sp, nil
}

func newTrieNode() *trieNode { return &trieNode{id: -1} }

// encode tokenizes text into vocabulary ids. The steps follow the TF.js tokenizer exactly:
// NFKC, every U+0020 becomes "▁" and one "▁" is prepended (empty text stays empty), then a
// Viterbi pass over the lattice of vocabulary pieces, where a position with no piece starting
// at it gets a one-character unknown piece (id 0, score 0). A candidate replaces the best path
// ending at a position if that best is still exactly 0 or the candidate scores >= it, so among
// equals the candidate starting last (the shortest piece) wins. Consecutive unknowns merge into
// one.
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
	t := &sp.trie
	for i := 0; i < n; i++ {
		node := t.next(0, symbols[i])
		found := false
		for j := i; node >= 0; {
			if id := t.id[node]; id >= 0 {
				relax(i, j+1, id, t.score[node])
				found = true
			}
			j++
			if j >= n {
				break
			}
			node = t.next(node, symbols[j])
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
