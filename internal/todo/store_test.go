package todo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"

	"toolhost/store"
	"toolhost/store/storetest"
)

// TestMain lets the test binary double as the worker process of the multi-process tests: with
// workerEnv set it runs worker() instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(worker())
	}
	os.Exit(m.Run())
}

const (
	workerEnv  = "TODO_TEST_WORKER" // worker name
	workerDir  = "TODO_TEST_DIR"    // state directory
	workerConv = "TODO_TEST_CONV"   // conversation id
	workerOps  = "TODO_TEST_OPS"    // number of rounds; 0 = until killed
)

// worker adds one todo per round and then moves it through in-progress to completed, printing
// one line per acknowledged (committed) change: "add|start|done <id> <version> <title>".
// Starting may be refused (the other worker's todo is in progress): that is a rejected change,
// not printed, and the worker goes straight to completing.
func worker() int {
	ctx := context.Background()
	name := os.Getenv(workerEnv)
	conv := os.Getenv(workerConv)
	rounds, _ := strconv.Atoi(os.Getenv(workerOps))
	st, err := store.Open(ctx, os.Getenv(workerDir), store.Options{LockTimeout: 30 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	ack := func(op string, id int, l List, title string) {
		fmt.Fprintf(out, "%s %d %d %s\n", op, id, l.Version, title)
		out.Flush()
	}
	for i := 0; rounds == 0 || i < rounds; i++ {
		title := fmt.Sprintf("%s-%d", name, i)
		l, err := Add(ctx, st, conv, []Todo{{Title: title}})
		if err != nil {
			fmt.Fprintln(os.Stderr, "add:", err)
			return 1
		}
		id := l.Todos[len(l.Todos)-1].ID
		ack("add", id, l, title)
		if l, err = Update(ctx, st, conv, []Patch{{ID: id, Status: ptr(StatusInProgress)}}); err == nil {
			ack("start", id, l, title)
			// Hold the in-progress slot for one more transaction, so the other worker's start
			// has a window in which the at-most-one rule must refuse it.
			if l, err = Update(ctx, st, conv, []Patch{{ID: id, Progress: ptr(0.5)}}); err != nil {
				fmt.Fprintln(os.Stderr, "progress:", err)
				return 1
			}
			ack("progress", id, l, title)
		} else if _, ok := AsValidationError(err); ok {
			fmt.Fprintf(out, "refused %d %d %s\n", id, l.Version, title)
			out.Flush()
		} else {
			fmt.Fprintln(os.Stderr, "start:", err)
			return 1
		}
		if l, err = Update(ctx, st, conv, []Patch{{ID: id, Status: ptr(StatusCompleted)}}); err != nil {
			fmt.Fprintln(os.Stderr, "done:", err)
			return 1
		}
		ack("done", id, l, title)
	}
	return 0
}

type ackLine struct {
	op      string
	id      int
	version uint64
	title   string
}

func parseAcks(t *testing.T, text string) []ackLine {
	t.Helper()
	var acks []ackLine
	for line := range strings.Lines(text) {
		if !strings.HasSuffix(line, "\n") {
			break // cut short by a kill: not acknowledged as a whole line
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("bad worker line %q", line)
		}
		if f[0] == "refused" {
			continue // a rejected change: nothing to find in the list
		}
		id, _ := strconv.Atoi(f[1])
		v, _ := strconv.ParseUint(f[2], 10, 64)
		acks = append(acks, ackLine{f[0], id, v, f[3]})
	}
	return acks
}

func workerCmd(t *testing.T, dir, conv, name string, rounds int) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+name, workerDir+"="+dir, workerConv+"="+conv, workerOps+"="+strconv.Itoa(rounds))
	cmd.Stderr = &strings.Builder{}
	return cmd
}

func openStore(t testing.TB, dir string, noSync bool) *store.Store {
	t.Helper()
	return storetest.OpenWith(t, dir, store.Options{NoSync: noSync})
}

// checkAcks verifies that every acknowledged change is in l.
func checkAcks(t *testing.T, l List, acks []ackLine) {
	t.Helper()
	byID := map[int]Todo{}
	for _, td := range l.Todos {
		byID[td.ID] = td
	}
	for _, a := range acks {
		td, ok := byID[a.id]
		if !ok || td.Title != a.title {
			t.Errorf("acknowledged %s of todo %d %q lost: stored %+v", a.op, a.id, a.title, td)
			continue
		}
		if a.op == "done" && td.Status != StatusCompleted {
			t.Errorf("acknowledged completion of todo %d lost: status %s", a.id, td.Status)
		}
		if l.Version < a.version {
			t.Errorf("stored version %d is older than acknowledged version %d", l.Version, a.version)
		}
	}
}

func TestStoredOperations(t *testing.T) {
	ctx := t.Context()
	st := openStore(t, t.TempDir(), true)
	const conv = "conv-a"

	l, err := Read(ctx, st, conv)
	if err != nil || l.Version != 0 || len(l.Todos) != 0 {
		t.Fatalf("Read(new conversation) = %+v, %v, want empty list", l, err)
	}
	if _, err := Write(ctx, st, conv, []Todo{{Title: "plan"}, {Title: "build", Dependencies: []int{1}}}); err != nil {
		t.Fatalf("Write() error: %v", err)
	}
	if _, err := Update(ctx, st, conv, []Patch{{ID: 1, Status: ptr(StatusCompleted)}, {ID: 2, Status: ptr(StatusInProgress)}}); err != nil {
		t.Fatalf("Update() error: %v", err)
	}
	// A rejected call changes nothing, not even the version.
	_, err = Write(ctx, st, conv, []Todo{{Title: "other"}})
	if _, ok := AsValidationError(err); !ok {
		t.Fatalf("Write(dropping completed) error = %v, want *ValidationError", err)
	}
	if _, err := Add(ctx, st, conv, []Todo{{Title: "ship", Dependencies: []int{2}}}); err != nil {
		t.Fatalf("Add() error: %v", err)
	}
	got, err := Read(ctx, st, conv)
	if err != nil {
		t.Fatalf("Read() error: %v", err)
	}
	want := []Todo{
		{ID: 1, Title: "plan", Status: StatusCompleted},
		{ID: 2, Title: "build", Status: StatusInProgress, Dependencies: []int{1}},
		{ID: 3, Title: "ship", Status: StatusNotStarted, Dependencies: []int{2}},
	}
	if diff := cmp.Diff(want, got.Todos, ignoreHistory); diff != "" {
		t.Errorf("Read() todos (-want +got):\n%s", diff)
	}
	if got.Version != 3 {
		t.Errorf("Read().Version = %d, want 3 (three accepted changes)", got.Version)
	}
	if got.UpdatedAt.IsZero() {
		t.Errorf("Read().UpdatedAt is zero")
	}
	// Conversations are separate.
	if other, _ := Read(ctx, st, "conv-b"); len(other.Todos) != 0 {
		t.Errorf("Read(conv-b) = %+v, want empty", other)
	}
	// The list survives reopening the state directory.
	st2 := openStore(t, st.Dir(), true)
	again, err := Read(ctx, st2, conv)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("Read() after reopen (-want +got):\n%s", diff)
	}
}

func TestRun(t *testing.T) {
	ctx := t.Context()
	st := openStore(t, t.TempDir(), true)
	tests := []struct {
		name    string
		args    Args
		wantErr string
	}{
		{"write", Args{Operation: OpWrite, TodoList: []Todo{{Title: "a"}}}, ""},
		{"add", Args{Operation: OpAdd, NewTodos: []Todo{{Title: "b"}}}, ""},
		{"update", Args{Operation: OpUpdate, TodoUpdates: []Patch{{ID: 2, Status: ptr(StatusInProgress)}}}, ""},
		{"read", Args{Operation: OpRead}, ""},
		{"write without list", Args{Operation: OpWrite}, "todo list unchanged: todo_list: is required for write: the whole new list, completed todos included"},
		{"add without todos", Args{Operation: OpAdd}, "todo list unchanged: new_todos: is required for add: the todos to append"},
		{"update without updates", Args{Operation: OpUpdate}, "todo list unchanged: todo_updates: is required for update: a list of {id, fields to change}"},
		{"unknown operation", Args{Operation: "delete"}, `todo: unknown operation "delete": use read, write, update or add`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(ctx, st, "c", tt.args)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("Run(%s) error = %q, want %q", tt.args.Operation, got, tt.wantErr)
			}
		})
	}
	if _, err := Read(ctx, st, ""); !errors.Is(err, ErrNoConversation) {
		t.Errorf("Read(\"\") error = %v, want ErrNoConversation", err)
	}
}

// Goroutines of one process, each with its own Store handle, add concurrently: the version
// counts every acknowledged change, so a lost update would show as a gap.
func TestConcurrentAddsOneProcess(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		st := openStore(t, dir, true)
		wg.Go(func() {
			for i := range each {
				if _, err := Add(ctx, st, "c", []Todo{{Title: fmt.Sprintf("w%d-%d", w, i)}}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Add() error: %v", err)
	}
	l, err := Read(ctx, openStore(t, dir, true), "c")
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != workers*each || len(l.Todos) != workers*each {
		t.Errorf("after %d adds: version %d, %d todos", workers*each, l.Version, len(l.Todos))
	}
	if err := Validate(l.Todos); err != nil {
		t.Errorf("final list invalid: %v", err)
	}
}

// Two toolhost-like processes change one conversation's list at once while this process keeps
// reading it: every read is a valid list, every acknowledged change survives, and the version
// equals the number of acknowledged changes (no lost update).
func TestTwoProcesses(t *testing.T) {
	rounds := 15
	if testing.Short() {
		rounds = 5
	}
	dir := t.TempDir()
	st := openStore(t, dir, false)
	const conv = "shared"
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for _, name := range []string{"p1", "p2"} {
		cmd := workerCmd(t, dir, conv, name, rounds)
		out := &strings.Builder{}
		cmd.Stdout = out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	done := make(chan error, len(cmds))
	for _, cmd := range cmds {
		go func() { done <- cmd.Wait() }()
	}
	reads := 0
	for finished := 0; finished < len(cmds); {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker failed: %v", err)
			}
			finished++
		default:
			l, err := Read(t.Context(), st, conv)
			if err != nil {
				t.Fatalf("Read() during the run: %v", err)
			}
			if err := Validate(l.Todos); err != nil {
				t.Fatalf("Read() during the run saw an invalid list (v%d): %v", l.Version, err)
			}
			reads++
		}
	}
	for _, cmd := range cmds {
		if s := cmd.Stderr.(*strings.Builder).String(); s != "" {
			t.Logf("worker stderr: %s", s)
		}
	}
	var acks []ackLine
	refused := 0
	for _, out := range outs {
		acks = append(acks, parseAcks(t, out.String())...)
		refused += strings.Count(out.String(), "refused ")
	}
	l, err := Read(t.Context(), st, conv)
	if err != nil {
		t.Fatal(err)
	}
	checkAcks(t, l, acks)
	if l.Version != uint64(len(acks)) {
		t.Errorf("final version %d, want %d (one per acknowledged change)", l.Version, len(acks))
	}
	if len(l.Todos) != 2*rounds {
		t.Errorf("final list has %d todos, want %d", len(l.Todos), 2*rounds)
	}
	if err := Validate(l.Todos); err != nil {
		t.Errorf("final list invalid: %v", err)
	}
	t.Logf("%d acknowledged changes, %d starts refused by the one-in-progress rule, %d concurrent reads", len(acks), refused, reads)
}

// A worker killed with SIGKILL in the middle of a stream of synced changes loses none of the
// changes it acknowledged, and the database opens and checks cleanly afterwards.
func TestCrashKeepsAcknowledgedChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes and waits for synced commits")
	}
	for _, killAfter := range []int{7, 30, 61} {
		t.Run(fmt.Sprint(killAfter), func(t *testing.T) { crashAfter(t, killAfter) })
	}
}

// crashAfter kills a worker with SIGKILL once it has acknowledged killAfter changes (it is then
// usually inside its next transaction) and checks the state it leaves.
func crashAfter(t *testing.T, killAfter int) {
	dir := t.TempDir()
	const conv = "crash"
	// The worker finds the database made, and this process holds nothing of it open while
	// the worker is killed.
	openStore(t, dir, false).Close()
	cmd := workerCmd(t, dir, conv, "k", 0)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	r := bufio.NewReader(stdout)
	for lines := 0; lines < killAfter; lines++ {
		line, err := r.ReadString('\n')
		seen.WriteString(line)
		if err != nil {
			t.Fatalf("worker output ended after %d lines: %v; stderr: %s", lines, err, cmd.Stderr)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r) // lines the worker wrote before it died
	seen.Write(rest)
	_ = cmd.Wait()
	acks := parseAcks(t, seen.String())

	// The file must be consistent before anything else touches it.
	db, err := bbolt.Open(filepath.Join(dir, "toolhost.db"), 0o600, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatalf("bbolt.Open after SIGKILL: %v", err)
	}
	err = db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatalf("database check after SIGKILL: %v", err)
	}
	st := openStore(t, dir, false)
	l, err := Read(t.Context(), st, conv)
	if err != nil {
		t.Fatalf("Read() after SIGKILL: %v", err)
	}
	checkAcks(t, l, acks)
	if err := Validate(l.Todos); err != nil {
		t.Errorf("list after SIGKILL invalid: %v", err)
	}
	t.Logf("%d acknowledged changes before the kill, stored version %d", len(acks), l.Version)
}
