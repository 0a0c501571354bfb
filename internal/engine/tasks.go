package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"toolhost/store"
)

// tasksBucket holds the MCP tasks: execution id -> TaskEntry. A task is an execution a client
// asked to run as a task; its status is the execution's, its result is kept here once it ends,
// so that a client polls and fetches it across server restarts.
var tasksBucket = store.Path{store.BucketExecutions, "tasks"}

// Task retention: a task's ttl (what the client asked for, within these bounds) runs from its
// creation; expired tasks are pruned when a new one is created.
const (
	DefaultTaskTTL = time.Hour
	MaxTaskTTL     = 24 * time.Hour
	// MaxTaskResultBytes bounds a kept result; a larger one is replaced by an error result
	// (results are budgeted well below it).
	MaxTaskResultBytes = 4 << 20
)

// ErrNoStore: tasks need the history's store.
var ErrNoStore = errors.New("execution engine has no store")

// TaskEntry is one task as the store keeps it.
type TaskEntry struct {
	ID           string    `json:"id"`
	Principal    string    `json:"principal"`
	Conversation string    `json:"conversation"`
	Created      time.Time `json:"created"`
	TTL          int64     `json:"ttl_ms"`
	// Result is the request's answer (a CallToolResult) once the execution ended; nil before.
	Result json.RawMessage `json:"result,omitempty"`
	// Cancelled says tasks/cancel ended it: it stays cancelled whatever the work did.
	Cancelled bool `json:"cancelled,omitempty"`
}

// Expired reports whether the entry's ttl has passed at now.
func (t TaskEntry) Expired(now time.Time) bool {
	return now.Sub(t.Created) > time.Duration(t.TTL)*time.Millisecond
}

// TaskTTL clamps a requested ttl (milliseconds; 0 means the default).
func TaskTTL(ms int64) int64 {
	switch {
	case ms <= 0:
		return DefaultTaskTTL.Milliseconds()
	case ms > MaxTaskTTL.Milliseconds():
		return MaxTaskTTL.Milliseconds()
	}
	return ms
}

// PutTask records a new task (or rewrites one), pruning expired tasks.
func (e *Engine) PutTask(ctx context.Context, t TaskEntry) error {
	if e.opts.Store == nil {
		return ErrNoStore
	}
	now := e.opts.Now()
	return e.opts.Store.Update(ctx, func(tx *store.Tx) error {
		var expired []string
		_ = tx.ForEach(tasksBucket, func(k string, v []byte) error {
			var old TaskEntry
			if json.Unmarshal(v, &old) != nil || old.Expired(now) {
				expired = append(expired, k)
			}
			return nil
		})
		for _, k := range expired {
			if err := tx.Delete(tasksBucket, k); err != nil {
				return err
			}
		}
		return tx.PutJSON(tasksBucket, t.ID, t)
	})
}

// UpdateTask changes a stored task with f; found is false when there is none.
func (e *Engine) UpdateTask(ctx context.Context, id string, f func(*TaskEntry)) (found bool, err error) {
	if e.opts.Store == nil {
		return false, ErrNoStore
	}
	err = e.opts.Store.Update(ctx, func(tx *store.Tx) error {
		var t TaskEntry
		ok, err := tx.GetJSON(tasksBucket, id, &t)
		if err != nil || !ok {
			return err
		}
		found = true
		f(&t)
		return tx.PutJSON(tasksBucket, id, t)
	})
	return found, err
}

// Task reads one task; an expired one is not found.
func (e *Engine) Task(ctx context.Context, id string) (TaskEntry, bool, error) {
	var t TaskEntry
	if e.opts.Store == nil {
		return t, false, ErrNoStore
	}
	var found bool
	err := e.opts.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		found, err = tx.GetJSON(tasksBucket, id, &t)
		return err
	})
	if found && t.Expired(e.opts.Now()) {
		found = false
	}
	return t, found, err
}

// Tasks lists the live tasks of principal in conversation, oldest first (ids sort by start).
func (e *Engine) Tasks(ctx context.Context, principal, conversation string) ([]TaskEntry, error) {
	if e.opts.Store == nil {
		return nil, ErrNoStore
	}
	now := e.opts.Now()
	var out []TaskEntry
	err := e.opts.Store.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(tasksBucket, func(k string, v []byte) error {
			var t TaskEntry
			if json.Unmarshal(v, &t) == nil && t.Principal == principal && t.Conversation == conversation && !t.Expired(now) {
				t.Result = nil // listing needs no results
				out = append(out, t)
			}
			return nil
		})
	})
	return out, err
}
