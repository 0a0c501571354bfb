package authz

import (
	"path/filepath"
	"strings"
	"time"

	"toolhost/store"
)

// grantIndex is the decoded grants bucket, keyed for lookups that cost the same with 5 grants or
// 5,000: a path check looks at the grants on the path and on each of its parent directories, a host
// check at the grants on the host, its address and its parent domains. It is rebuilt when the
// bucket's sequence moves; every write to the bucket goes through putGrant or deleteGrant, which
// advance it, in whichever process makes the change.
type grantIndex struct {
	seq   uint64
	byKey map[string][]Grant
	// unreadable is set when a stored grant could not be decoded: a lookup then prunes.
	unreadable bool
	// nextExpiry is the earliest Expires.Wall among the indexed grants; once it has passed, a
	// lookup prunes (and the pruning write rebuilds the index).
	nextExpiry time.Time
}

// pathKey and hostKey name a grant's place in the index.
func pathKey(p string) string { return "p" + p }
func hostKey(h string) string { return "h" + h }

func (gr *Grant) indexKey() string {
	if gr.Host != "" {
		return hostKey(gr.Host)
	}
	return pathKey(gr.Path)
}

// pathKeys lists the index keys whose grants can cover canonical path p: p itself and each parent
// directory (recursive grants).
func pathKeys(p string) []string {
	keys := []string{pathKey(p)}
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return keys
		}
		p = parent
		keys = append(keys, pathKey(p))
	}
}

// hostKeys lists the index keys whose grants can cover host (and its address ip, if not empty):
// the host, the address, and for names each parent domain (recursive grants).
func hostKeys(host, ip string, isName bool) []string {
	keys := []string{hostKey(host)}
	if ip != "" && ip != host {
		keys = append(keys, hostKey(ip))
	}
	for isName {
		i := strings.IndexByte(host, '.')
		if i < 0 {
			break
		}
		host = host[i+1:]
		keys = append(keys, hostKey(host))
	}
	return keys
}

func buildGrantIndex(tx *store.Tx) (*grantIndex, error) {
	idx := &grantIndex{seq: tx.Sequence(grantsBucket), byKey: map[string][]Grant{}}
	err := tx.ForEach(grantsBucket, func(_ string, val []byte) error {
		gr, ok := decodeGrant(val)
		if !ok {
			idx.unreadable = true
			return nil
		}
		k := gr.indexKey()
		idx.byKey[k] = append(idx.byKey[k], gr)
		if idx.nextExpiry.IsZero() || gr.Expires.Wall.Before(idx.nextExpiry) {
			idx.nextExpiry = gr.Expires.Wall
		}
		return nil
	})
	return idx, err
}

// index returns the grants index current in tx, reusing the cached one while the bucket's
// sequence has not moved. Only read-only transactions fill the cache: a read-write one may roll
// back after advancing the sequence, and another process's later change would then reach the same
// number with different grants.
func (g *Grants) index(tx *store.Tx) (*grantIndex, error) {
	seq := tx.Sequence(grantsBucket)
	g.mu.Lock()
	idx := g.idx
	g.mu.Unlock()
	if idx != nil && idx.seq == seq {
		return idx, nil
	}
	idx, err := buildGrantIndex(tx)
	if err != nil || tx.Writable() {
		return idx, err
	}
	g.mu.Lock()
	g.idx = idx
	g.mu.Unlock()
	return idx, nil
}

// putGrant stores gr and advances the bucket's sequence, so every process's index sees the change.
func putGrant(tx *store.Tx, gr *Grant) error {
	if _, err := tx.NextSequence(grantsBucket); err != nil {
		return err
	}
	return tx.PutJSON(grantsBucket, gr.ID, gr)
}

// deleteGrant removes grant id and advances the bucket's sequence.
func deleteGrant(tx *store.Tx, id string) error {
	if _, err := tx.NextSequence(grantsBucket); err != nil {
		return err
	}
	return tx.Delete(grantsBucket, id)
}
