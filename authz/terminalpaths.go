package authz

import (
	"context"
	"slices"
	"sync"

	"toolhost/store"
)

// terminalPathsCache keeps TerminalPaths' last answer for each conversation and runner: every
// process start asks for it, and reading the grants is a store transaction (a lock, bbolt's
// begin, a decode of each grant), the larger part of the gate's own work per start. An answer
// holds while
//
//   - the grants bucket's store.Stamp has not moved: every grant created, used up or revoked
//     writes the bucket (putGrant, deleteGrant), a commit of this process that the stamp
//     notes, and a commit of any other process sharing the state directory moves every stamp;
//     reading it costs a mutex while this process keeps the file open, one open and two preads
//     when not, either way less than the transaction it saves;
//   - and none of the stored grants it was read from has expired: until is the earliest of
//     their deadlines, on both clocks.
//
// Configured grants never change in a running process.
type terminalPathsCache struct {
	mu sync.Mutex
	m  map[terminalPathsKey]*terminalPathsEntry
}

// maxTerminalPathsEntries bounds the cache: a server that has seen more conversations starts
// it afresh.
const maxTerminalPathsEntries = 256

type terminalPathsKey struct{ conversation, tool string }

type terminalPathsEntry struct {
	ops         []string // the runner's operations the answer is for
	stamp       store.Stamp
	until       Deadline // zero Wall: no stored grant expires
	write, read []GrantedPath
}

// TerminalPaths is WritePaths and ReadPaths from one read of the conversation's grants: a
// process start needs both. The answer is kept while the grants cannot have changed (see
// terminalPathsCache), so a start usually reads no grant at all.
func (g *Guard) TerminalPaths(ctx context.Context, conversation string, run Runner) (write, read []GrantedPath, err error) {
	if g.store == nil {
		list, err := g.grants.List(ctx, conversation)
		if err != nil {
			return nil, nil, err
		}
		return coveringPaths(list, run, ClassWrite), coveringPaths(list, run, ClassRead), nil
	}
	c := &g.terminalPaths
	key := terminalPathsKey{conversation, run.Tool}
	// The stamp is taken before the read: a change that lands during it shows at the next start.
	stamp := g.store.Stamp(grantsBucket)
	c.mu.Lock()
	e := c.m[key]
	c.mu.Unlock()
	if e != nil && !e.stamp.Changed(stamp) && slices.Equal(e.ops, run.Operations) &&
		(e.until.Wall.IsZero() || !g.grants.clock.passed(e.until)) {
		return slices.Clone(e.write), slices.Clone(e.read), nil
	}
	list, err := g.grants.List(ctx, conversation)
	if err != nil {
		return nil, nil, err
	}
	e = &terminalPathsEntry{ops: slices.Clone(run.Operations), stamp: stamp, until: earliest(list),
		write: coveringPaths(list, run, ClassWrite), read: coveringPaths(list, run, ClassRead)}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxTerminalPathsEntries {
		c.m = map[terminalPathsKey]*terminalPathsEntry{}
	}
	c.m[key] = e
	c.mu.Unlock()
	return slices.Clone(e.write), slices.Clone(e.read), nil
}

// earliest is the deadline that passes when the first of list's expiring grants expires: the
// earliest wall time and the earliest boot time (all of them live, so of this boot). Zero when
// none expires.
func earliest(list []Grant) Deadline {
	var d Deadline
	for _, gr := range list {
		e := gr.Expires
		if e.Wall.IsZero() {
			continue // a configured grant
		}
		if d.Wall.IsZero() {
			d = e
			continue
		}
		if e.Wall.Before(d.Wall) {
			d.Wall = e.Wall
		}
		d.Boot = min(d.Boot, e.Boot)
	}
	return d
}
