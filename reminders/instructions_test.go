package reminders

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"toolhost/internal/golden"
	"toolhost/internal/todo"
	"toolhost/store"
	"toolhost/store/storetest"
)

// storedInstructions is an InstructionSource over a bucket of the test's store, as the memory
// feature keeps them: the Builder notices changes through the bucket's stamp.
type storedInstructions struct {
	staticMemories
	st *store.Store
}

var instrTestPath = store.Path{store.BucketMemories, "instructions-test"}

func (s *storedInstructions) InstructionBucket() store.Path { return instrTestPath }

func (s *storedInstructions) StandingInstructions(ctx context.Context, _ string) ([]Instruction, error) {
	var out []Instruction
	err := s.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(instrTestPath, func(_ string, v []byte) error {
			var in Instruction
			if err := json.Unmarshal(v, &in); err != nil {
				return err
			}
			out = append(out, in)
			return nil
		})
	})
	return out, err
}

func (s *storedInstructions) put(t *testing.T, in Instruction) {
	t.Helper()
	if err := s.st.Update(t.Context(), func(tx *store.Tx) error {
		return tx.PutJSON(instrTestPath, fmt.Sprintf("%08d", in.ID), in)
	}); err != nil {
		t.Fatal(err)
	}
}

func (s *storedInstructions) remove(t *testing.T, id uint64) {
	t.Helper()
	if err := s.st.Update(t.Context(), func(tx *store.Tx) error {
		return tx.Delete(instrTestPath, fmt.Sprintf("%08d", id))
	}); err != nil {
		t.Fatal(err)
	}
}

var testInstructions = []Instruction{
	{ID: 7, Text: "Always run the tests before committing.", Scope: "project"},
	{ID: 9, Text: "Answer in German.", Scope: "user"},
}

// The blocks with instructions are pinned like the others.
func TestInstructionsGolden(t *testing.T) {
	many := make([]Instruction, 12)
	for i := range many {
		many[i] = Instruction{ID: uint64(i + 1), Scope: "project",
			Text: fmt.Sprintf("Rule %d: before touching the %d-th migration, ask the user and run make db-migrate-all against a scratch database first.", i+1, i+1)}
	}
	capped := DefaultConfig()
	capped.MaxTokens = 220
	for _, v := range []struct {
		name  string
		list  todo.List
		notes []MemoryNote
		instr []Instruction
		cfg   Config
	}{
		{"instructions_only", todo.List{}, nil, testInstructions, DefaultConfig()},
		{"instructions_with_plan", tenSteps(3, true), notes(2), testInstructions, DefaultConfig()},
		{"instructions_capped", tenSteps(3, true), notes(3), many, capped},
	} {
		t.Run(v.name, func(t *testing.T) {
			got := BuildWith(v.list, v.notes, v.instr, v.cfg)
			golden.CheckString(t, "testdata/"+v.name+".golden", got+"\n")
			if v.cfg.MaxTokens > 0 && EstimateTokens(got) > v.cfg.MaxTokens {
				t.Errorf("%s: %d estimated tokens over the cap %d", v.name, EstimateTokens(got), v.cfg.MaxTokens)
			}
			if !strings.Contains(got, v.instr[0].Text[:20]) {
				t.Errorf("%s: the first instruction is gone:\n%s", v.name, got)
			}
		})
	}
}

// TestInstructionCadence: instructions come back when they change, at a session's start (a
// new Builder, as in a new process), every N calls, and their removal is said once.
func TestInstructionCadence(t *testing.T) {
	dir := t.TempDir()
	const conv = "c"
	src := &storedInstructions{st: storetest.OpenDir(t, dir)}
	cfg := DefaultConfig()
	cfg.EveryNCalls = 3
	newBuilder := func() *Builder {
		b := New(storetest.OpenDir(t, dir), cfg, src)
		b.now = func() time.Time { return t0 }
		return b
	}
	b := newBuilder()
	next := func(want bool, contains, lacks string) {
		t.Helper()
		block, ok, err := b.Next(t.Context(), conv)
		if err != nil {
			t.Fatal(err)
		}
		if ok != want {
			t.Fatalf("Next = %v (%q), want %v", ok, block, want)
		}
		if contains != "" && !strings.Contains(block, contains) {
			t.Errorf("block lacks %q:\n%s", contains, block)
		}
		if lacks != "" && strings.Contains(block, lacks) {
			t.Errorf("block has %q:\n%s", lacks, block)
		}
	}
	next(false, "", "")                                                 // nothing to say
	src.put(t, testInstructions[0])                                     // stored
	next(true, "Always run the tests before committing. [project]", "") // on change
	next(false, "", "")                                                 // quiet 1
	next(false, "", "")                                                 // quiet 2
	next(false, "", "")                                                 // quiet 3
	next(true, "Always run the tests before committing.", "")           // every N calls
	b = newBuilder()                                                    // another session
	next(true, "Always run the tests before committing.", "")           // at its start
	next(false, "", "")                                                 // then quiet
	src.put(t, testInstructions[1])                                     // a second one
	next(true, "Answer in German. [user]", "")                          // on change
	src.remove(t, 7)                                                    // one removed
	next(true, "Answer in German.", "Always run the tests")             // on change
	src.remove(t, 9)                                                    // all removed
	next(true, "removed the standing instructions", "Answer in German") // said once
	next(false, "", "")                                                 // then nothing
}
