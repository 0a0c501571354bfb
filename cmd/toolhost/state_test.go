package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.etcd.io/bbolt"

	"toolhost/internal/logtest"
)

// freeUp writes 40 MiB into the state file of state and deletes it again: bbolt keeps the
// pages, so the file stays 40 MiB larger than its data, as after a long history was pruned.
func freeUp(t *testing.T, state string) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(state, "toolhost.db"), 0o600, &bbolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	val := bytes.Repeat([]byte("x"), 4000)
	for chunk := range 10 {
		err := db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("ballast"))
			if err != nil {
				return err
			}
			for i := range 1000 {
				if err := b.Put([]byte{byte(chunk), byte(i >> 8), byte(i)}, val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket([]byte("ballast")) }); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestCompactCommand: `toolhost compact` refuses while a server uses the state directory, and
// once it has stopped gives the free space back with everything kept; doctor shows the state
// directory by part.
func TestCompactCommand(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := commandIn(t, state, work, args...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"title": "keep me", "status": "in-progress"}}})
	if out, err := run("compact"); err == nil || !strings.Contains(out, "toolhost servers use this state directory") {
		t.Errorf("compact beside a running server = %v\n%s\nwant a refusal", err, out)
	}
	cs.Close()
	db := filepath.Join(state, "toolhost.db")
	freeUp(t, state)
	before := fileSize(t, db)
	out, err := run("doctor")
	for _, want := range []string{"state directory " + state, "database", "of it free (toolhost compact gives it back)", "audit log", "execution journals"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if out, err = run("compact"); err != nil || !strings.Contains(out, "compacted "+db) {
		t.Fatalf("compact = %v\n%s", err, out)
	}
	if after := fileSize(t, db); after > before/4 {
		t.Errorf("compact left %s at %d bytes (was %d)", db, after, before)
	}
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := mustCall(t, cs, "todo_operations", map[string]any{"operation": "read"}); !strings.Contains(got, "keep me") {
		t.Errorf("todos after compact = %s", got)
	}
}

// TestServerCompactsAtStart: a server alone on a state file that is mostly free compacts it in
// the background after it started, and serves on.
func TestServerCompactsAtStart(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"title": "keep me"}}})
	cs.Close()
	db := filepath.Join(state, "toolhost.db")
	freeUp(t, state)
	before := fileSize(t, db)
	cmd := commandIn(t, state, work, "stdio")
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deadline := time.Now().Add(20 * time.Second)
	for (fileSize(t, db) > before/4 || !strings.Contains(stderr.String(), "compacted the state file")) && time.Now().Before(deadline) {
		mustCall(t, cs, "think", map[string]any{"thoughts": "waiting"})
		time.Sleep(100 * time.Millisecond)
	}
	if after := fileSize(t, db); after > before/4 {
		t.Fatalf("the server left %s at %d bytes (was %d):\n%s", db, after, before, stderr.String())
	}
	if !strings.Contains(stderr.String(), "compacted the state file") {
		t.Errorf("the server's log does not say it compacted:\n%s", stderr.String())
	}
	if got := mustCall(t, cs, "todo_operations", map[string]any{"operation": "read"}); !strings.Contains(got, "keep me") {
		t.Errorf("todos after the compaction = %s", got)
	}
	mustCall(t, cs, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"title": "written after"}}})
}

// TestExecutionIDThroughBinary: a result's _meta carries the execution id over stdio, and the
// same id is the call's record in `toolhost history`.
func TestExecutionIDThroughBinary(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "which id?"}})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.Meta["toolhost/execution_id"].(string)
	cs.Close()
	if !strings.HasPrefix(id, "exec_") {
		t.Fatalf("_meta = %v, want toolhost/execution_id", res.Meta)
	}
	out, err := commandIn(t, state, work, "history", "--json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"id": "`+id+`"`) && !strings.Contains(string(out), `"id":"`+id+`"`) {
		t.Errorf("toolhost history --json = %v, want execution %s:\n%s", err, id, out)
	}
}
