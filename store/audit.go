package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// AppendAudit appends v as one JSON line to audit.jsonl in the state directory. Each line is a
// single O_APPEND write, so lines from concurrent processes never interleave. Once the file reaches
// Options.AuditMaxBytes it is renamed to audit.jsonl.1 (replacing the previous one); the rename is
// done under the database's exclusive lock so two processes cannot rotate twice and discard a fresh
// file. A failed rotation is logged, not returned: the line itself was written, and the next append
// tries again.
func (s *Store) AppendAudit(ctx context.Context, v any) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("append audit: encode: %w", err)
	}
	// json.Marshal escapes newlines inside strings, so the record stays one line.
	line = append(line, '\n')
	name := filepath.Join(s.dir, auditFileName)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	_, werr := f.Write(line)
	info, serr := f.Stat()
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	if serr == nil && info.Size() >= s.opts.AuditMaxBytes {
		if err := s.rotateAudit(ctx, name, info); err != nil && ctx.Err() == nil {
			slog.Warn("rotate audit log", "path", name, "err", err)
		}
	}
	return nil
}

// rotateAudit renames the audit file written as written to name+".1", unless another process
// rotated it already.
func (s *Store) rotateAudit(ctx context.Context, name string, written fs.FileInfo) error {
	// Any read-write handle holds the file's exclusive lock, which serialises rotation across
	// processes.
	_, release, err := s.acquire(ctx, true)
	if err != nil {
		return err
	}
	defer release(true)
	cur, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !os.SameFile(cur, written) || cur.Size() < s.opts.AuditMaxBytes {
		return nil
	}
	return os.Rename(name, name+".1")
}
