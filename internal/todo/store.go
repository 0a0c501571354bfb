package todo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"toolhost/store"
)

// StoreKey is the key of a conversation's list in the conversation's bucket (see [BucketPath]):
// one JSON document, so one transaction reads and replaces the whole list and a reader never sees
// half a change.
const StoreKey = "todos"

// ErrNoConversation is returned when the conversation id is empty: todo lists are per
// conversation, and the tool layer must resolve the default id before calling in.
var ErrNoConversation = errors.New("todo: empty conversation id")

// ErrUnknownOperation is returned by [Run] for an operation other than read, write, update, add.
var ErrUnknownOperation = errors.New("todo: unknown operation")

// BucketPath is where conversation conv keeps its state, shared with the other per-conversation
// features (reminder bookkeeping, terminals).
func BucketPath(conv string) store.Path {
	return store.Path{store.BucketConversations, conv}
}

// storedTodo decodes with the standard rules (no alias handling, unknown fields ignored), so a
// list written by a newer toolhost with more fields still reads.
type storedTodo Todo

type storedList struct {
	Version   uint64       `json:"version"`
	UpdatedAt time.Time    `json:"updated_at,omitzero"`
	Todos     []storedTodo `json:"todos"`
}

func load(tx *store.Tx, conv string) (List, error) {
	var sl storedList
	if _, err := tx.GetJSON(BucketPath(conv), StoreKey, &sl); err != nil {
		return List{}, fmt.Errorf("read todo list: %w", err)
	}
	l := List{Version: sl.Version, UpdatedAt: sl.UpdatedAt, Todos: make([]Todo, len(sl.Todos))}
	for i, t := range sl.Todos {
		l.Todos[i] = Todo(t)
	}
	return l, nil
}

func save(tx *store.Tx, conv string, l List) error {
	sl := storedList{Version: l.Version, UpdatedAt: l.UpdatedAt, Todos: make([]storedTodo, len(l.Todos))}
	for i, t := range l.Todos {
		sl.Todos[i] = storedTodo(t)
	}
	if err := tx.PutJSON(BucketPath(conv), StoreKey, sl); err != nil {
		return fmt.Errorf("save todo list: %w", err)
	}
	return nil
}

// Load reads conversation conv's list inside a transaction the caller already runs, for features
// (reminders) that combine it with their own state atomically. A missing list is the empty List.
func Load(tx *store.Tx, conv string) (List, error) {
	if conv == "" {
		return List{}, ErrNoConversation
	}
	return load(tx, conv)
}

// Read returns conversation conv's list; a conversation without one has the empty List (Version 0).
func Read(ctx context.Context, st *store.Store, conv string) (List, error) {
	if conv == "" {
		return List{}, ErrNoConversation
	}
	var l List
	err := st.View(ctx, func(tx *store.Tx) error {
		var err error
		l, err = load(tx, conv)
		return err
	})
	return l, err
}

// change runs apply on the stored list in one read-write transaction: the store serialises
// writers across goroutines and processes, so the list apply sees is the latest and no concurrent
// change is lost. A rejected change writes nothing.
func change(ctx context.Context, st *store.Store, conv string, apply func(old List, now time.Time) (List, error)) (List, error) {
	if conv == "" {
		return List{}, ErrNoConversation
	}
	var next List
	err := st.Update(ctx, func(tx *store.Tx) error {
		old, err := load(tx, conv)
		if err != nil {
			return err
		}
		next, err = apply(old, time.Now().UTC())
		if err != nil {
			return err
		}
		return save(tx, conv, next)
	})
	if err != nil {
		return List{}, err
	}
	return next, nil
}

// Write replaces conversation conv's list (see [ApplyWrite]) and returns the stored result.
func Write(ctx context.Context, st *store.Store, conv string, todos []Todo) (List, error) {
	return change(ctx, st, conv, func(old List, now time.Time) (List, error) { return ApplyWrite(old, todos, now) })
}

// Add appends todos to conversation conv's list (see [ApplyAdd]) and returns the stored result.
func Add(ctx context.Context, st *store.Store, conv string, todos []Todo) (List, error) {
	return change(ctx, st, conv, func(old List, now time.Time) (List, error) { return ApplyAdd(old, todos, now) })
}

// Update applies partial updates to conversation conv's list (see [ApplyUpdate]) and returns the
// stored result.
func Update(ctx context.Context, st *store.Store, conv string, patches []Patch) (List, error) {
	return change(ctx, st, conv, func(old List, now time.Time) (List, error) { return ApplyUpdate(old, patches, now) })
}

// Run performs the operation named in a (decoded with [DecodeArgs]) so the tool handler is one
// call. Missing arguments are reported as a [*ValidationError] naming the argument.
func Run(ctx context.Context, st *store.Store, conv string, a Args) (List, error) {
	missing := func(arg, what string) error {
		return &ValidationError{Problems: []Problem{{Field: arg, Reason: "is required for " + a.Operation + ": " + what}}}
	}
	switch a.Operation {
	case OpRead:
		return Read(ctx, st, conv)
	case OpWrite:
		if a.TodoList == nil {
			return List{}, missing("todo_list", "the whole new list, completed todos included")
		}
		return Write(ctx, st, conv, a.TodoList)
	case OpAdd:
		if a.NewTodos == nil {
			return List{}, missing("new_todos", "the todos to append")
		}
		return Add(ctx, st, conv, a.NewTodos)
	case OpUpdate:
		if a.TodoUpdates == nil {
			return List{}, missing("todo_updates", "a list of {id, fields to change}")
		}
		return Update(ctx, st, conv, a.TodoUpdates)
	}
	return List{}, fmt.Errorf("%w %q: use read, write, update or add", ErrUnknownOperation, a.Operation)
}
