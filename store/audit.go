package store

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The audit log. audit.jsonl takes one JSON line per append. It is rotated when it reaches
// Options.AuditMaxBytes or once it is Options.AuditMaxAge old (auditStarted): renamed to
// audit-TIME.jsonl (TIME is when it was rotated, so names sort by age), then compressed to
// audit-TIME.jsonl.gz in the background, and only the newest Options.AuditKeep rotated files
// are kept. So the log takes at most about AuditMaxBytes plus AuditKeep compressed files (audit
// lines compress about tenfold).

// Defaults of the audit options.
const (
	DefaultAuditMaxBytes = 10 << 20
	DefaultAuditMaxAge   = 7 * 24 * time.Hour
	DefaultAuditKeep     = 10
)

// Rotated audit files: auditRotatedPrefix, the rotation time in auditRotatedTime, then
// auditRotatedExt (and ".gz" once compressed).
const (
	auditRotatedPrefix = "audit-"
	auditRotatedTime   = "20060102T150405.000000000Z"
	auditRotatedExt    = ".jsonl"
)

// AppendAudit appends v as one JSON line to audit.jsonl in the state directory. Each line is a
// single O_APPEND write, so lines from concurrent processes never interleave. Rotation is done
// under the database's exclusive lock so that two processes cannot rotate twice and discard a
// fresh file. A failed rotation is logged, not returned: the line itself was written, and the
// next append tries again.
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
	if serr == nil && s.auditDue(name, info) {
		if err := s.rotateAudit(ctx, name, info); err != nil && ctx.Err() == nil {
			slog.Warn("rotate audit log", "path", name, "err", err)
		}
	}
	return nil
}

// auditDue reports whether the audit file written as info should be rotated: by size, or by
// its age, which is read once per file and remembered.
func (s *Store) auditDue(name string, info fs.FileInfo) bool {
	if info.Size() >= s.opts.AuditMaxBytes {
		return true
	}
	s.auditMu.Lock()
	defer s.auditMu.Unlock()
	// The file only grows: one that is smaller than the remembered one is a new file that
	// reuses the inode of a rotated file compressed and removed meanwhile.
	if s.auditFile == nil || !os.SameFile(s.auditFile, info) || info.Size() < s.auditFile.Size() {
		s.auditStart = auditStarted(s.dir, name, info.ModTime())
	}
	s.auditFile = info
	return time.Since(s.auditStart) >= s.opts.AuditMaxAge
}

// auditStarted is when the audit file began: when the last rotation made way for it (the
// newest rotated file's name says), else when it was created (the file system's birth time),
// else the time of its first line, else fallback. The lines' own times are the last resort: a
// clock that was wrong when they were written would rotate a young file.
func auditStarted(dir, name string, fallback time.Time) time.Time {
	if files, err := AuditFiles(dir); err == nil && len(files) > 0 {
		base := filepath.Base(files[len(files)-1])
		stamp := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(base, auditRotatedPrefix), ".gz"), auditRotatedExt)
		if t, err := time.Parse(auditRotatedTime, stamp); err == nil {
			return t
		}
	}
	if t, ok := fileBirth(name); ok {
		return t
	}
	return firstLineTime(name, fallback)
}

// firstLineTime is the "time" of the file's first line, or fallback when it has none.
func firstLineTime(name string, fallback time.Time) time.Time {
	f, err := os.Open(name)
	if err != nil {
		return fallback
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 64<<10)).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return fallback
	}
	var first struct {
		Time time.Time `json:"time"`
	}
	if json.Unmarshal(line, &first) != nil || first.Time.IsZero() {
		return fallback
	}
	return first.Time
}

// rotateAudit moves the audit file written as written aside, unless another process rotated
// it already, then compresses and prunes the rotated files in the background.
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
	if !os.SameFile(cur, written) || !s.auditDue(name, cur) {
		return nil
	}
	rotated := filepath.Join(s.dir, auditRotatedPrefix+time.Now().UTC().Format(auditRotatedTime)+auditRotatedExt)
	if err := os.Rename(name, rotated); err != nil {
		return err
	}
	s.auditMu.Lock()
	s.auditFile = nil // the next file may get this one's inode once it is compressed
	s.auditMu.Unlock()
	s.auditJobs.Go(func() {
		// One at a time: a listing taken while another job renames its compressed file into
		// place may see neither name, and then prunes one file too few.
		s.compressMu.Lock()
		defer s.compressMu.Unlock()
		if err := compressAudit(s.dir, s.opts.AuditKeep); err != nil {
			slog.Warn("compress audit log", "dir", s.dir, "err", err)
		}
	})
	return nil
}

// AuditFiles returns the rotated audit files of the state directory dir, oldest first.
func AuditFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, auditRotatedPrefix) && (strings.HasSuffix(n, auditRotatedExt) || strings.HasSuffix(n, auditRotatedExt+".gz")) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	slices.Sort(out)
	return out, nil
}

// compressAudit gzips every rotated audit file that is not compressed yet (one another process
// is compressing too ends the same: both write the same file and rename it into place), then
// removes all but the newest keep.
func compressAudit(dir string, keep int) error {
	files, err := AuditFiles(dir)
	if err != nil {
		return err
	}
	var errs []error
	for i, f := range files {
		if strings.HasSuffix(f, ".gz") {
			continue
		}
		if err := gzipFile(f); err != nil {
			errs = append(errs, err)
			continue
		}
		files[i] = f + ".gz"
	}
	files = slices.Compact(files)
	for _, f := range files[:max(0, len(files)-keep)] {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// gzipFile writes path.gz, synced, and removes path.
func gzipFile(path string) error {
	in, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // compressed by another process meanwhile
	}
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".gz.tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw := gzip.NewWriter(tmp)
	zw.Name = filepath.Base(path)
	_, err = io.Copy(zw, in)
	err = errors.Join(err, zw.Close())
	if err == nil {
		err = tmp.Chmod(fileMode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err != nil {
		return fmt.Errorf("compress %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path+".gz"); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
