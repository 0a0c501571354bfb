package memory

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"toolhost/store"
)

// Bucket paths under store.BucketMemories (see doc.go).
var (
	itemsPath  = store.Path{store.BucketMemories, "items"}
	vecsPath   = store.Path{store.BucketMemories, "vecs"}
	hashPath   = store.Path{store.BucketMemories, "hash"}
	scopesPath = store.Path{store.BucketMemories, "scopes"}
	docsPath   = store.Path{store.BucketMemories, "docs"}
	recentPath = store.Path{store.BucketMemories, "recent"}
	instrPath  = store.Path{store.BucketMemories, "instructions"}
	logPath    = store.Path{store.BucketMemories, "log"}
	rootPath   = store.Path{store.BucketMemories}
)

const headKey = "head"

// Scope prefixes. A scope key is prefix + name; the same strings are shown to callers.
const (
	conversationPrefix = "conversation:"
	topicPrefix        = "topic:"
	projectPrefix      = "project:"
	// UserScope is the scope of what holds for the user everywhere (standing instructions).
	UserScope   = "user"
	maxTopicLen = 100
)

// record is one memory as stored in items.
type record struct {
	ID           uint64            `json:"id"`
	Scope        string            `json:"scope"`
	Conversation string            `json:"conversation,omitempty"`
	Content      string            `json:"content"`
	Tags         []string          `json:"tags,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	Created      time.Time         `json:"created"`
	Hash         string            `json:"hash"`
	Embedder     string            `json:"embedder"`
	Dim          int               `json:"dim"`
	Document     string            `json:"document,omitempty"`
	Chunk        int               `json:"chunk,omitempty"`
	// Supersedes is the earlier version this memory replaces; SupersededBy the newer version
	// that replaced this one (which then no longer appears in searches), at Replaced.
	Supersedes   uint64    `json:"supersedes,omitempty"`
	SupersededBy uint64    `json:"superseded_by,omitempty"`
	Replaced     time.Time `json:"replaced,omitzero"`
	// Kind is "" for a fact, KindInstruction for a standing instruction; UserWords are the
	// user's own words the model quoted when it stored the instruction.
	Kind      string `json:"kind,omitempty"`
	UserWords string `json:"user_words,omitempty"`
}

// KindInstruction marks a memory that is a standing instruction of the user ("always run the
// tests before committing"): reminders bring it back to the model until the user removes it.
const KindInstruction = "instruction"

// scopeEntry is the value of scopes/<scope>/<id>.
type scopeEntry struct {
	Tags     []string `json:"tags,omitempty"`
	Bytes    int      `json:"bytes"`
	Embedder string   `json:"embedder"`
	// Superseded marks an earlier version, which the index leaves out.
	Superseded bool `json:"superseded,omitempty"`
}

// logEntry is one change in the log.
type logEntry struct {
	Op string `json:"op"` // "put" or "delete"
	ID uint64 `json:"id"`
}

// docEntry is the value of docs/<scope>\x00<name>.
type docEntry struct {
	Name         string    `json:"name"`
	Scope        string    `json:"scope"`
	Hash         string    `json:"hash"`
	IDs          []uint64  `json:"ids"`
	Bytes        int       `json:"bytes"`
	Imported     time.Time `json:"imported"`
	Conversation string    `json:"conversation,omitempty"`
}

// resolveScope turns a caller's scope ("" or "conversation" for the conversation's own, "topic:NAME"
// or a bare NAME for a topic, or a full "conversation:ID" naming the caller's own) into a scope key.
func resolveScope(conversation, scope string) (string, error) {
	scope = strings.TrimSpace(scope)
	switch {
	case scope == "" || scope == "conversation":
		if conversation == "" {
			return "", fmt.Errorf("%w: no conversation for the conversation scope; name a topic", ErrBadRequest)
		}
		return conversationPrefix + conversation, nil
	case strings.HasPrefix(scope, conversationPrefix):
		if scope != conversationPrefix+conversation {
			return "", fmt.Errorf("%w: scope %q belongs to another conversation; use a topic to share memories", ErrBadRequest, scope)
		}
		return scope, nil
	}
	name := strings.TrimSpace(strings.TrimPrefix(scope, topicPrefix))
	if name == "" || len(name) > maxTopicLen || strings.ContainsFunc(name, unicode.IsControl) {
		return "", fmt.Errorf("%w: topic name %q must be 1-%d printable characters", ErrBadRequest, name, maxTopicLen)
	}
	return topicPrefix + name, nil
}

// instructionScope resolves the scope of a standing instruction: "user" (everywhere), or
// "project" (the default when there is a project: the working directory).
func instructionScope(project, scope string) (string, error) {
	switch strings.TrimSpace(scope) {
	case UserScope:
		return UserScope, nil
	case "", "project":
		if project == "" {
			if scope == "" {
				return UserScope, nil
			}
			return "", fmt.Errorf("%w: no project (working directory) for the project scope; use user", ErrBadRequest)
		}
		return projectPrefix + project, nil
	}
	return "", fmt.Errorf("%w: an instruction goes in the user or the project scope, not %q", ErrBadRequest, scope)
}

// normalizeTags trims, lower-cases, de-duplicates and sorts tags, so filters match regardless of
// how the model spelled the case.
func normalizeTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func contentHash(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

func hashKey(scope, hash string) string { return scope + "\x00" + hash }

func docKey(scope, name string) string { return scope + "\x00" + name }

func recentKey(created time.Time, id uint64) string {
	return fmt.Sprintf("%016x", uint64(created.UnixNano())) + store.SeqKey(id)
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) (string, bool) {
	if n <= 0 || len(s) <= n {
		return s, false
	}
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]) + "…", true
}
