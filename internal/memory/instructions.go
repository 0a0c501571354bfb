package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"toolhost/reminders"
	"toolhost/store"
)

// Standing instructions. The user says "always run the tests before committing" or "answer in
// German"; the model stores that with kind instruction, quoting the user's words, in the user's
// scope (everywhere) or the project's (this working directory). Reminders repeat the current
// instructions to the model (see reminders.Builder), and the user lists and removes them from
// the CLI (toolhost memory instructions, toolhost memory forget) and the console's memory page.
//
// The instructions bucket keeps one small entry per current instruction (scope NUL SeqKey(id)),
// written and deleted with the record, so listing them reads neither the records nor the index.

// Instruction is one standing instruction.
type Instruction struct {
	ID uint64 `json:"id"`
	// Scope is "user" or "project:DIR".
	Scope     string    `json:"scope"`
	Text      string    `json:"text"`
	UserWords string    `json:"user_words,omitempty"`
	Created   time.Time `json:"created"`
}

func instrKey(scope string, id uint64) string { return scope + "\x00" + store.SeqKey(id) }

func instructionOf(r *record, id uint64) Instruction {
	return Instruction{ID: id, Scope: r.Scope, Text: r.Content, UserWords: r.UserWords, Created: r.Created}
}

// Instructions returns the current standing instructions for project (a working directory):
// the user's, then the project's, oldest first. An empty project gives the user's and every
// project's (for the CLI and the console).
func (s *Service) Instructions(ctx context.Context, project string) ([]Instruction, error) {
	var out []Instruction
	err := s.st.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		return tx.ForEach(instrPath, func(k string, v []byte) error {
			scope, _, _ := strings.Cut(k, "\x00")
			if project != "" && scope != UserScope && scope != projectPrefix+project {
				return nil
			}
			var in Instruction
			if err := json.Unmarshal(v, &in); err != nil {
				return fmt.Errorf("decode instruction %q: %w", k, err)
			}
			out = append(out, in)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list instructions: %w", err)
	}
	// The user's first, then by age.
	slices.SortStableFunc(out, func(a, b Instruction) int {
		if (a.Scope == UserScope) != (b.Scope == UserScope) {
			if a.Scope == UserScope {
				return -1
			}
			return 1
		}
		return a.Created.Compare(b.Created)
	})
	return out, nil
}

// Forget deletes a standing instruction (with its earlier versions) for the user, from the CLI
// or the console. It refuses a memory that is not an instruction.
func (s *Service) Forget(ctx context.Context, id uint64) error {
	var r record
	err := s.st.View(ctx, func(tx *store.Tx) error {
		found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: id %d", ErrNotFound, id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r.Kind != KindInstruction {
		return fmt.Errorf("%w: memory %d is not a standing instruction", ErrBadRequest, id)
	}
	_, err = s.Delete(ctx, DeleteRequest{ID: id})
	return err
}

// The reminder channel reads instructions through this interface.
var _ reminders.InstructionSource = (*Service)(nil)

// StandingInstructions implements reminders.InstructionSource.
func (s *Service) StandingInstructions(ctx context.Context, project string) ([]reminders.Instruction, error) {
	ins, err := s.Instructions(ctx, project)
	if err != nil {
		return nil, err
	}
	out := make([]reminders.Instruction, len(ins))
	for i, in := range ins {
		where := "project"
		if in.Scope == UserScope {
			where = "user"
		}
		out[i] = reminders.Instruction{ID: in.ID, Text: in.Text, Scope: where}
	}
	return out, nil
}

// InstructionBucket implements reminders.InstructionSource: Instructions reads only this bucket.
func (s *Service) InstructionBucket() store.Path { return slices.Clone(instrPath) }
