package edit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Op is what a Change does to a file.
type Op string

// The operations a Plan can hold.
const (
	OpAdd    Op = "add"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
	OpMove   Op = "move" // Path's content, possibly updated, moves to NewPath
)

// Change is one file's part of a Plan: the bytes expected on disk now (Old,
// nil when the file must not exist) and the bytes to leave there (New).
type Change struct {
	Op      Op
	Path    string
	NewPath string // destination of OpMove
	Old     []byte
	New     []byte
}

// Plan is a multi-file edit computed entirely in memory before anything is
// written, so validation failures leave the disk untouched.
type Plan struct {
	Changes []Change
}

// Diff returns the unified diff of the whole plan, git style, with context
// lines around each change.
func (p *Plan) Diff(context int) string {
	var b strings.Builder
	for _, c := range p.Changes {
		b.WriteString(c.Diff(context))
	}
	return b.String()
}

// Diff returns the unified diff of one change.
func (c Change) Diff(context int) string {
	switch c.Op {
	case OpAdd:
		return UnifiedDiff("/dev/null", "b/"+c.Path, nil, c.New, context)
	case OpDelete:
		return UnifiedDiff("a/"+c.Path, "/dev/null", c.Old, nil, context)
	case OpMove:
		d := UnifiedDiff("a/"+c.Path, "b/"+c.NewPath, c.Old, c.New, context)
		if d == "" {
			return fmt.Sprintf("rename %s -> %s\n", c.Path, c.NewPath)
		}
		return d
	}
	return UnifiedDiff("a/"+c.Path, "b/"+c.Path, c.Old, c.New, context)
}

// FileSummary is the per-file outcome the model sees.
type FileSummary struct {
	Op      Op     `json:"op"`
	Path    string `json:"path"`
	NewPath string `json:"new_path,omitempty"`
	Bytes   int    `json:"bytes"` // bytes written; 0 for a delete
}

// Summary lists what the plan does, file by file.
func (p *Plan) Summary() []FileSummary {
	out := make([]FileSummary, len(p.Changes))
	for i, c := range p.Changes {
		out[i] = FileSummary{Op: c.Op, Path: c.Path, NewPath: c.NewPath, Bytes: len(c.New)}
	}
	return out
}

// undo restores one committed step.
type undo func() error

// Commit writes the plan. Before touching each file it checks that the
// file still holds Change.Old (ErrConflict otherwise); every write is
// atomic; if any step fails, the steps already done are undone in reverse
// order, so the files end byte-identical to before. The error of the
// failing step is returned (joined with any rollback failure).
func (p *Plan) Commit(ctx context.Context, root *os.Root) error {
	var undos []undo
	rollback := func(cause error) error {
		var errs []error
		for i := len(undos) - 1; i >= 0; i-- {
			if err := undos[i](); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return errors.Join(cause, fmt.Errorf("rollback incomplete: %w", errors.Join(errs...)))
		}
		return cause
	}
	for _, c := range p.Changes {
		if err := ctx.Err(); err != nil {
			return rollback(err)
		}
		u, err := commitOne(root, c)
		undos = append(undos, u...)
		if err != nil {
			return rollback(err)
		}
	}
	return nil
}

// expect checks that rel holds want (nil: does not exist) and returns its
// mode.
func expect(root *os.Root, rel string, want []byte) (fs.FileMode, error) {
	target, err := resolve(root, rel)
	if err != nil {
		return 0, err
	}
	got, info, err := readRegular(root, target)
	if errors.Is(err, fs.ErrNotExist) {
		if want == nil {
			return 0, nil
		}
		return 0, fmt.Errorf("%s: %w (deleted by someone else)", rel, ErrConflict)
	}
	if err != nil {
		return 0, err
	}
	if want == nil {
		return 0, fmt.Errorf("%s: %w", rel, ErrExists)
	}
	if !bytes.Equal(got, want) {
		return 0, fmt.Errorf("%s: %w; read it again and redo the edit", rel, ErrConflict)
	}
	return info.Mode().Perm(), nil
}

func commitOne(root *os.Root, c Change) ([]undo, error) {
	var undos []undo
	restore := func(rel string, data []byte, mode fs.FileMode) undo {
		return func() error { return WriteAtomic(root, rel, data, mode) }
	}
	unwrite := func(rel string, dirs []string) undo {
		return func() error {
			err := root.Remove(rel)
			removeDirs(root, dirs)
			return err
		}
	}
	switch c.Op {
	case OpAdd:
		if _, err := expect(root, c.Path, nil); err != nil {
			return nil, err
		}
		dirs, err := writeAtomic(root, c.Path, c.New, DefaultFileMode)
		if err != nil {
			return nil, err
		}
		return []undo{unwrite(c.Path, dirs)}, nil
	case OpUpdate:
		mode, err := expect(root, c.Path, c.Old)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(c.Old, c.New) {
			return nil, nil // leave the file and its mtime alone
		}
		if _, err := writeAtomic(root, c.Path, c.New, mode); err != nil {
			return nil, err
		}
		return []undo{restore(c.Path, c.Old, mode)}, nil
	case OpDelete:
		mode, err := expect(root, c.Path, c.Old)
		if err != nil {
			return nil, err
		}
		if err := root.Remove(c.Path); err != nil {
			return nil, fmt.Errorf("delete %s: %w", c.Path, err)
		}
		return []undo{restore(c.Path, c.Old, mode)}, nil
	case OpMove:
		mode, err := expect(root, c.Path, c.Old)
		if err != nil {
			return nil, err
		}
		if _, err := expect(root, c.NewPath, nil); err != nil {
			return nil, err
		}
		dirs, err := writeAtomic(root, c.NewPath, c.New, mode)
		if err != nil {
			return nil, err
		}
		undos = append(undos, unwrite(c.NewPath, dirs))
		if err := root.Remove(c.Path); err != nil {
			return undos, fmt.Errorf("move %s: %w", c.Path, err)
		}
		return append(undos, restore(c.Path, c.Old, mode)), nil
	}
	return nil, fmt.Errorf("%w: unknown change op %q", ErrInvalidArgument, c.Op)
}
