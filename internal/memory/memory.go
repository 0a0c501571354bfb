package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"toolhost/internal/embed"
	"toolhost/internal/lexicon"
	"toolhost/store"
)

// Defaults for Config fields left zero.
const (
	DefaultNearDuplicate   = 0.95
	DefaultMaxContentBytes = 16 << 10
	DefaultMaxDocumentSize = 4 << 20
	DefaultSearchLimit     = 5
	MaxSearchLimit         = 100
	// DefaultSnippetChars is how much of each hit's content Search returns unless told otherwise.
	DefaultSnippetChars = 600
	// DefaultLogKeep is how many change-log entries are kept for other processes to replay.
	DefaultLogKeep = 20000
)

// IndexKind selects the in-memory vector index.
type IndexKind string

// Index implementations. They give the same results (tested); they differ in speed and memory.
const (
	// IndexAuto, the default, keeps each scope in a chromem-go collection until it holds more
	// than 4,096 memories, and in a slab from then on, where the scan is clearly faster.
	IndexAuto IndexKind = "auto"
	// IndexChromem keeps one chromem-go collection per scope (no file persistence), queried
	// with our embedder's vectors, whatever its size.
	IndexChromem IndexKind = "chromem"
	// IndexSlab scans one contiguous []float32 per scope with an unrolled dot product, split
	// over the available cores for large scopes: faster than chromem-go from about 10,000
	// memories in a scope, and several times faster at 100,000 (see the package benchmarks).
	IndexSlab IndexKind = "slab"
)

// Config tunes a Service. The zero value uses the built-in USE-Lite embedder.
type Config struct {
	// Embedder produces the vectors; nil means embed.New("") (USE-Lite, offline, loaded lazily).
	Embedder embed.Embedder
	// NearDuplicate above 1 disables near-duplicate detection (a reworded memory is then stored
	// again). A near duplicate is the same words but for case, punctuation, small words and
	// inflections; the cosine alone no longer decides, since a near-identical text that says
	// something else is a correction or another fact. Zero means DefaultNearDuplicate.
	NearDuplicate float32
	// Threshold is the default minimum similarity of search hits. Zero means a value suited to
	// the embedder (DefaultThreshold).
	Threshold float32
	// MaxContentBytes caps one memory's content. Zero means DefaultMaxContentBytes.
	MaxContentBytes int
	// MaxDocumentBytes caps an imported document. Zero means DefaultMaxDocumentSize.
	MaxDocumentBytes int
	// Index selects the in-memory vector index; empty means IndexAuto.
	Index IndexKind
	// Hybrid fuses the lexical side (BM25 and exact identifiers) with the vectors. Nil means
	// on; see rank.go and docs/memory.md for the measured effect.
	Hybrid *bool
	// Lexicon supplies stems, synonyms, word vectors and translations; nil means
	// lexicon.New with the OS packages' default places.
	Lexicon *lexicon.Lexicon
	// off switches ranking signals off by name (Signal*), for the retrieval set's figures.
	off map[string]bool
	// LogKeep is how many change-log entries are kept for other processes' indexes to replay;
	// a process further behind rebuilds its index. Zero means DefaultLogKeep.
	LogKeep int
	// Now is the clock; nil means time.Now. Tests inject one.
	Now func() time.Time
}

// DefaultThreshold is the search threshold used for an embedder when Config.Threshold is zero.
// Measured on testdata/retrieval.json (paraphrase query against every fact): USE-Lite gives the
// right fact a cosine of 0.16 at worst, 0.28 at the 10th percentile and 0.43 at the median, and
// unrelated facts 0.18 at the median and 0.36 at the 90th percentile, so 0.2 drops most noise and
// keeps nearly every true match (ranking does the rest). The lexical embedder scores unrelated
// texts below 0.08 nine times out of ten. Remote models vary; they get a low floor.
func DefaultThreshold(embedderID string) float32 {
	switch {
	case embedderID == embed.USELiteID:
		return 0.2
	case strings.HasPrefix(embedderID, "lexical"):
		return 0.08
	default:
		return 0.2
	}
}

// Errors the model can act on. Each is wrapped with details; match with errors.Is.
var (
	// ErrEmptyContent reports a memory or query that is empty after trimming white space.
	ErrEmptyContent = errors.New("memory: content is empty")
	// ErrTooLarge reports content or a document over the configured size cap.
	ErrTooLarge = errors.New("memory: content too large")
	// ErrNotFound reports a delete by ID of a memory that does not exist (or is in a scope the
	// conversation cannot see).
	ErrNotFound = errors.New("memory: no such memory")
	// ErrBadRequest reports arguments that do not fit together (e.g. delete with neither ID nor
	// tag, an invalid scope name).
	ErrBadRequest = errors.New("memory: invalid request")
	// ErrEmbedderChanged reports that stored vectors come from another embedder than the
	// configured one; the concrete error is an *EmbedderChangedError.
	ErrEmbedderChanged = errors.New("memory: embedder changed")
)

// EmbedderChangedError says which embedders disagree and how to fix it. It matches
// ErrEmbedderChanged with errors.Is.
type EmbedderChangedError struct {
	// Stored is the embedder ID of (one group of) stale vectors.
	Stored string
	// Configured is the ID of the embedder the service uses now.
	Configured string
	// Stale is the number of memories that need re-embedding.
	Stale int
}

func (e *EmbedderChangedError) Error() string {
	return fmt.Sprintf("memory: %d stored memories were embedded with %q but the configured embedder is %q; "+
		"vector spaces are never mixed, so re-embed them (toolhost memory reembed, or Service.Reembed) "+
		"or configure the embedder %q again", e.Stale, e.Stored, e.Configured, e.Stored)
}

// Is makes errors.Is(err, ErrEmbedderChanged) true.
func (e *EmbedderChangedError) Is(target error) bool { return target == ErrEmbedderChanged }

// Service is the memory engine. It is safe for concurrent use; several Services (in one or many
// processes) may share a store.
type Service struct {
	st        *store.Store
	emb       embed.Embedder
	near      float32
	threshold float32
	maxBytes  int
	maxDoc    int
	hybrid    bool
	kind      IndexKind
	lex       *lexicon.Lexicon
	off       map[string]bool
	w         rankWeights
	logKeep   int
	now       func() time.Time
	// beforeWrite runs in Store between the index's catch-up and the write (tests: another
	// writer lands in that gap).
	beforeWrite func()
	// onFuse, if set, sees every search's plan and its candidates in ranked order, with their
	// signals (the retrieval set's runner prints why a question missed).
	onFuse func(p queryPlan, cands []*candidate)

	// base is the context of background imports, cancelled by Close.
	base   context.Context
	stop   context.CancelFunc
	jobsMu sync.Mutex
	jobs   map[jobKey]*ImportJob
	jobsWG sync.WaitGroup

	// mu guards the index state below. Embedding never happens under it.
	mu      sync.Mutex
	built   bool
	lastSeq uint64
	idx     index
	lexIdx  *lexIndex
	stale   map[uint64]string // ID → embedder ID of vectors from another space
}

// New returns a Service on st. It does no I/O and loads no model: the index is built on the first
// operation that needs it.
func New(st *store.Store, cfg Config) *Service {
	e := cfg.Embedder
	if e == nil {
		var err error
		if e, err = embed.New(""); err != nil {
			// embed.New("") has no failure path; keep a usable fallback rather than panicking.
			e = embed.NewUSELite()
		}
	}
	s := &Service{
		st:        st,
		emb:       e,
		near:      cfg.NearDuplicate,
		threshold: cfg.Threshold,
		maxBytes:  cfg.MaxContentBytes,
		maxDoc:    cfg.MaxDocumentBytes,
		hybrid:    cfg.Hybrid == nil || *cfg.Hybrid,
		kind:      cfg.Index,
		lex:       cfg.Lexicon,
		off:       map[string]bool{},
		w:         defaultWeights,
		now:       cfg.Now,
	}
	for k, v := range cfg.off {
		s.off[k] = v
	}
	if !s.hybrid {
		s.off[SignalLexical], s.off[SignalExact] = true, true
	}
	if s.lex == nil {
		s.lex = lexicon.New(lexicon.Config{})
	}
	if s.near == 0 {
		s.near = DefaultNearDuplicate
	}
	if s.threshold == 0 {
		s.threshold = DefaultThreshold(e.ID())
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxContentBytes
	}
	if s.maxDoc <= 0 {
		s.maxDoc = DefaultMaxDocumentSize
	}
	if s.kind == "" {
		s.kind = IndexAuto
	}
	if s.logKeep = cfg.LogKeep; s.logKeep <= 0 {
		s.logKeep = DefaultLogKeep
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.base, s.stop = context.WithCancel(context.Background())
	return s
}

// Lexicon returns the word knowledge the ranking uses, for toolhost doctor.
func (s *Service) Lexicon() *lexicon.Lexicon { return s.lex }

// Embedder returns the configured embedder, for diagnostics and the tool description.
func (s *Service) Embedder() embed.Embedder { return s.emb }
