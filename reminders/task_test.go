package reminders

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"toolhost/internal/golden"
	"toolhost/internal/todo"
	"toolhost/store/storetest"
)

// TestTenStepTask plays a model through a ten-step task the way the tool layer would see it: the
// model's todo_operations arguments as raw JSON (camelCase, as models send them), three other
// tool calls per step, and one stretch where the model works for twelve calls without touching
// its list. Every tool result goes through Builder.Next; the transcript and the reminder token
// cost are pinned in testdata/ten_step_task.golden, once with the tool layer marking
// todo_operations results as delivered (MarkDelivered) and once without.
func TestTenStepTask(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, mark := range []bool{true, false} {
		fmt.Fprintf(&out, "=== mark todo_operations results delivered: %v\n", mark)
		playTask(t, mark, enc, &out)
	}
	golden.CheckString(t, "testdata/ten_step_task.golden", out.String())
}

func playTask(t *testing.T, mark bool, enc *tiktoken.Tiktoken, out *strings.Builder) {
	ctx := t.Context()
	st := storetest.OpenDir(t, t.TempDir())
	const conv = "task"
	b := New(st, DefaultConfig(), nil)
	calls, reminders, tokens := 0, 0, 0
	deliver := func(what string) {
		block, ok, err := b.Next(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			reminders++
			n := len(enc.Encode(block, nil, nil))
			tokens += n
			fmt.Fprintf(out, "call %d (%s): reminder, %d tokens\n%s\n", calls, what, n, block)
		}
	}
	other := func(what string) {
		calls++
		deliver(what)
	}
	todoOp := func(raw string) todo.List {
		calls++
		args, err := todo.DecodeArgs(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("DecodeArgs(%s): %v", raw, err)
		}
		l, err := todo.Run(ctx, st, conv, args)
		if err != nil {
			t.Fatalf("Run(%s): %v", raw, err)
		}
		if mark {
			if err := b.MarkDelivered(ctx, conv); err != nil {
				t.Fatal(err)
			}
		} else {
			deliver("todo_operations")
		}
		return l
	}

	var plan []string
	for i, title := range []string{"Read the config loader", "Write a failing test for nested tables", "Fix nested table parsing",
		"Handle inline arrays", "Add error positions", "Update the parser docs", "Run the full test suite",
		"Benchmark the parser", "Update the changelog", "Open the pull request"} {
		status := "not-started"
		if i == 0 {
			status = "in-progress"
		}
		plan = append(plan, fmt.Sprintf(`{"id":%d,"title":%q,"status":%q}`, i+1, title, status))
	}
	todoOp(`{"operation":"write","todoList":[` + strings.Join(plan, ",") + `]}`)
	for step := 1; step <= 10; step++ {
		for _, what := range []string{"read_file", "replace_string", "run_command"} {
			other(what)
		}
		if step == 7 {
			// The model gets absorbed and works twelve calls without updating its list.
			for range 12 {
				other("run_command")
			}
		}
		if step == 4 {
			todoOp(`{"operation":"add","newTodos":[{"title":"Address review comments","dependencies":["10"]}]}`)
		}
		upd := fmt.Sprintf(`{"id":%d,"status":"completed"}`, step)
		if step < 10 {
			upd += fmt.Sprintf(`,{"id":%d,"status":"in_progress"}`, step+1)
		}
		todoOp(`{"operation":"update","todoUpdates":[` + upd + `]}`)
	}
	todoOp(`{"operation":"update","todoUpdates":[{"id":11,"status":"in-progress"}]}`)
	other("read_file")
	l := todoOp(`{"operation":"update","todoUpdates":[{"id":11,"status":"completed"}]}`)
	if s := l.Stats(); s.Completed != 11 {
		t.Fatalf("task ended with %+v, want 11 completed", s)
	}
	fmt.Fprintf(out, "total: %d tool calls, %d reminders, %d o200k tokens of reminders (%.1f per call)\n\n",
		calls, reminders, tokens, float64(tokens)/float64(calls))
	t.Logf("mark=%v: %d tool calls, %d reminders, %d o200k tokens", mark, calls, reminders, tokens)
}
