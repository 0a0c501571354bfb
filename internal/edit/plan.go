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
	// Adapted lists how added text was written in the file's style where a
	// hunk was placed ignoring Unicode punctuation ("“→\"").
	Adapted []string
	// codec, for a file in another encoding than UTF-8, decodes Old and New for the diff.
	codec *codec
}

// text returns b as the model reads it: decoded when the file is in another encoding.
func (c Change) text(b []byte) []byte {
	if c.codec == nil || !c.codec.decoded() || b == nil {
		return b
	}
	return []byte(c.codec.decode(b))
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
		d := UnifiedDiff("a/"+c.Path, "b/"+c.NewPath, c.text(c.Old), c.text(c.New), context)
		if d == "" {
			return fmt.Sprintf("rename %s -> %s\n", c.Path, c.NewPath)
		}
		return d
	}
	return UnifiedDiff("a/"+c.Path, "b/"+c.Path, c.text(c.Old), c.text(c.New), context)
}

// FileSummary is the per-file outcome the model sees.
type FileSummary struct {
	Op      Op       `json:"op"`
	Path    string   `json:"path"`
	NewPath string   `json:"new_path,omitempty"`
	Bytes   int      `json:"bytes"` // bytes written; 0 for a delete
	Adapted []string `json:"adapted,omitempty"`
}

// Summary lists what the plan does, file by file.
func (p *Plan) Summary() []FileSummary {
	out := make([]FileSummary, len(p.Changes))
	for i, c := range p.Changes {
		out[i] = FileSummary{Op: c.Op, Path: c.Path, NewPath: c.NewPath, Bytes: len(c.New), Adapted: c.Adapted}
	}
	return out
}

// Commit writes the plan as one transaction: every file is checked first to still hold
// Change.Old (ErrConflict otherwise), then all are written or none. With a journal j the
// transaction survives a crash too: the next process to open the journal finishes or undoes it
// (see txn.go). With j nil a crash in the middle can leave some files written.
func (p *Plan) Commit(ctx context.Context, root *os.Root, j *Journal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t, err := newTxn(root, p)
	if err != nil {
		return err
	}
	return t.commit(ctx, j)
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
