package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"
)

func newStoreAt(t *testing.T, dir string, ms []migration) (*Store, error) {
	t.Helper()
	return open(context.Background(), dir, Options{NoSync: true}, ms)
}

func readSchema(t *testing.T, s *Store) (version string, applied map[uint64]appliedMigration) {
	t.Helper()
	applied = map[uint64]appliedMigration{}
	mustView(t, s, func(tx *Tx) error {
		v, _ := tx.Get(Path{BucketMeta}, metaSchemaVersion)
		version = string(v)
		return tx.ForEach(Path{BucketMeta, metaMigrations}, func(k string, raw []byte) error {
			n, _ := ParseSeqKey(k)
			var m appliedMigration
			_, err := tx.GetJSON(Path{BucketMeta, metaMigrations}, k, &m)
			applied[n] = m
			return err
		})
	})
	return version, applied
}

func TestOpenFresh(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "toolhost")
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("Open(%s) = %v", dir, err)
	}
	if s.Dir() != dir || s.Path() != filepath.Join(dir, "toolhost.db") {
		t.Errorf("Dir(), Path() = %s, %s, want %s, %s/toolhost.db", s.Dir(), s.Path(), dir, dir)
	}
	for path, want := range map[string]os.FileMode{dir: dirMode, s.Path(): fileMode} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %v, want %v", path, got, want)
		}
	}
	version, applied := readSchema(t, s)
	if version != "1" {
		t.Errorf("schema_version = %q, want %q", version, "1")
	}
	if m, ok := applied[1]; !ok || m.Name != "create top-level buckets" || m.AppliedAt.IsZero() {
		t.Errorf("applied migrations = %+v, want migration 1 recorded", applied)
	}
	mustView(t, s, func(tx *Tx) error {
		got, err := tx.Buckets(Path{})
		want := []string{BucketApprovals, BucketConversations, BucketExecutions, BucketGrants, BucketMemories, BucketMeta}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("top-level buckets (-want +got):\n%s", diff)
		}
		return err
	})

	// Relative directories are made absolute, so a later chdir cannot move the state.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, filepath.Join(t.TempDir(), "rel"))
	if err == nil && !strings.HasPrefix(rel, "..") {
		if s, err := Open(context.Background(), rel, Options{}); err != nil || !filepath.IsAbs(s.Dir()) {
			t.Errorf("Open(%s) = %v, %v, want an absolute Dir", rel, s, err)
		}
	}
	if _, err := Open(context.Background(), "", Options{}); err == nil {
		t.Errorf("Open(\"\") = nil error, want error")
	}
}

// TestReopenIsNoOp checks that opening a current file neither reruns migrations nor writes.
func TestReopenIsNoOp(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, migrations())
	_, before := readSchema(t, s)
	raw, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	s2 := mustOpen(t, dir, migrations())
	_, after := readSchema(t, s2)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("applied migrations changed on reopen (-before +after):\n%s", diff)
	}
	raw2, _ := os.ReadFile(s.Path())
	if !bytes.Equal(raw, raw2) {
		t.Errorf("reopening a current file modified it")
	}
}

// mustOpen opens dir with the given migration history or fails the test.
func mustOpen(t *testing.T, dir string, ms []migration) *Store {
	t.Helper()
	s, err := newStoreAt(t, dir, ms)
	if err != nil {
		t.Fatalf("open(%s) = %v", dir, err)
	}
	return s
}

func TestMigrationRunsOnce(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir, migrations())
	runs := 0
	v2 := append(migrations(), migration{version: 2, name: "add widgets", apply: func(tx *Tx) error {
		runs++
		return tx.Put(Path{"widgets"}, "k", []byte("v"))
	}})
	for range 3 {
		s, err := newStoreAt(t, dir, v2)
		if err != nil {
			t.Fatalf("open with migration 2 = %v", err)
		}
		version, applied := readSchema(t, s)
		if version != "2" || applied[2].Name != "add widgets" || applied[1].Name == "" {
			t.Errorf("after migration 2: version %q, applied %+v", version, applied)
		}
	}
	if runs != 1 {
		t.Errorf("migration 2 ran %d times over 3 opens, want 1", runs)
	}
}

// TestFailedMigrationRollsBack checks that a failing step leaves the file exactly as before: the
// earlier steps of the same Open are undone too.
func TestFailedMigrationRollsBack(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("boom")
	ms := append(migrations(),
		migration{version: 2, name: "ok", apply: func(tx *Tx) error { return tx.Put(Path{"two"}, "k", []byte("v")) }},
		migration{version: 3, name: "fails", apply: func(*Tx) error { return boom }},
	)
	_, err := newStoreAt(t, dir, ms)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "migration 3 (fails)") {
		t.Fatalf("open with failing migration = %v, want boom naming migration 3", err)
	}
	db, err := bbolt.Open(filepath.Join(dir, dbFileName), fileMode, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error {
		if err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			t.Errorf("bucket %q exists after a failed first migration", name)
			return nil
		}); err != nil {
			t.Error(err)
		}
		return nil
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	future := append(migrations(), migration{version: 2, name: "future", apply: func(*Tx) error { return nil }})
	mustOpen(t, dir, future)
	_, err := Open(context.Background(), dir, Options{})
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open(file at schema 2) = %v, want ErrNewerSchema", err)
	}
	if !strings.Contains(err.Error(), "schema version 2") || !strings.Contains(err.Error(), "up to 1") {
		t.Errorf("Open(file at schema 2) = %q, want both versions named", err)
	}
}

func TestCorruptSchemaVersion(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, migrations())
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{BucketMeta}, metaSchemaVersion, []byte("one")) })
	if _, err := Open(context.Background(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "corrupt schema_version") {
		t.Errorf("Open(corrupt schema_version) = %v, want a corrupt schema_version error", err)
	}
}

func TestCheckMigrations(t *testing.T) {
	fn := func(*Tx) error { return nil }
	tests := []struct {
		name    string
		ms      []migration
		wantErr bool
	}{
		{"real list", migrations(), false},
		{"empty", nil, false},
		{"contiguous", []migration{{1, "a", fn}, {2, "b", fn}}, false},
		{"starts at zero", []migration{{0, "a", fn}}, true},
		{"gap", []migration{{1, "a", fn}, {3, "c", fn}}, true},
		{"duplicate", []migration{{1, "a", fn}, {1, "b", fn}}, true},
		{"out of order", []migration{{2, "b", fn}, {1, "a", fn}}, true},
		{"nil func", []migration{{1, "a", nil}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkMigrations(tt.ms); (err != nil) != tt.wantErr {
				t.Errorf("checkMigrations(%s) = %v, want error %v", tt.name, err, tt.wantErr)
			}
		})
	}
}

func TestOpenTightensFileMode(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, migrations())
	if err := os.Chmod(s.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, dir, migrations())
	info, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != fileMode {
		t.Errorf("mode after reopening a 0644 file = %v, want %v", got, fileMode)
	}
}
