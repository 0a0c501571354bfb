package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Keys in the meta bucket.
const (
	metaSchemaVersion = "schema_version" // decimal text, e.g. "1"
	metaMigrations    = "migrations"     // nested bucket: SeqKey(version) -> appliedMigration JSON
)

// migration is one step of the schema history. Steps are never edited or reordered once released:
// a new need is a new step, so every file reaches the same shape whatever version created it.
type migration struct {
	version int
	name    string
	apply   func(tx *Tx) error
}

// appliedMigration records when a step ran, for support and debugging.
type appliedMigration struct {
	Name      string    `json:"name"`
	AppliedAt time.Time `json:"applied_at"`
}

// migrations returns the schema history in order. A function rather than a variable so the list
// cannot be mutated at run time.
func migrations() []migration {
	return []migration{
		{version: 1, name: "create top-level buckets", apply: func(tx *Tx) error {
			for _, name := range []string{
				BucketMeta, BucketConversations, BucketGrants,
				BucketApprovals, BucketExecutions, BucketMemories,
			} {
				if _, err := tx.createBucket(Path{name}); err != nil {
					return err
				}
			}
			return nil
		}},
	}
}

// checkMigrations rejects a history whose versions are not 1, 2, 3, ... so a typo cannot skip or
// repeat a step.
func checkMigrations(ms []migration) error {
	for i, m := range ms {
		if m.version != i+1 {
			return fmt.Errorf("migration %d (%q) has version %d, want %d", i, m.name, m.version, i+1)
		}
		if m.apply == nil {
			return fmt.Errorf("migration %d (%q) has no function", m.version, m.name)
		}
	}
	return nil
}

// errNoChange rolls back the migration transaction when the file is already current, which avoids
// an fsync on every Open.
var errNoChange = errors.New("schema current")

// migrate brings the file to the latest schema in one transaction: either every pending step and
// the new version are committed, or nothing is.
func (s *Store) migrate(ctx context.Context, ms []migration) error {
	latest := len(ms)
	// Most starts find the schema current: a read answers that without a write, so a state
	// directory that is read-only or full still opens (its writes fail later, naming the cause).
	if _, err := os.Stat(s.path); err == nil {
		var current int
		// s.run, not View: a creation in the background runs this before View may.
		err := s.run(ctx, false, func(tx *Tx) error {
			var err error
			current, err = schemaVersion(tx)
			return err
		})
		if err == nil && current == latest {
			return nil
		}
	}
	err := s.run(ctx, true, func(tx *Tx) error {
		current, err := schemaVersion(tx)
		if err != nil {
			return err
		}
		if current > latest {
			return fmt.Errorf("%w: %s has schema version %d, this toolhost knows up to %d; upgrade toolhost",
				ErrNewerSchema, s.path, current, latest)
		}
		if current == latest {
			return errNoChange
		}
		for _, m := range ms[current:] {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := m.apply(tx); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
			rec := appliedMigration{Name: m.name, AppliedAt: time.Now().UTC()}
			if err := tx.PutJSON(Path{BucketMeta, metaMigrations}, SeqKey(uint64(m.version)), rec); err != nil {
				return err
			}
		}
		return tx.Put(Path{BucketMeta}, metaSchemaVersion, []byte(strconv.Itoa(latest)))
	})
	if err != nil && !errors.Is(err, errNoChange) {
		return fmt.Errorf("open state store: %w", err)
	}
	return nil
}

// schemaVersion reads the recorded version; a new, empty file is version 0.
func schemaVersion(tx *Tx) (int, error) {
	raw, ok := tx.Get(Path{BucketMeta}, metaSchemaVersion)
	if !ok {
		return 0, nil
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("corrupt %s %q in %s bucket", metaSchemaVersion, raw, BucketMeta)
	}
	return v, nil
}
