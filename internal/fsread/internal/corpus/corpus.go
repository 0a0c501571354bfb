// Package corpus generates the benchmark inputs for fsread: a copy of Go's
// standard library sources and a large synthetic log. They are created in a
// temp dir by the benchmarks and never committed.
package corpus

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// GoSrc returns $(go env GOROOT)/src as seen by this binary.
func GoSrc() string { return filepath.Join(runtime.GOROOT(), "src") }

// CopyTree copies the regular files and directories under src to dst,
// skipping symlinks and special files, streaming each file.
func CopyTree(ctx context.Context, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// LogLineLen is the length of every generated log line, newline included,
// so line n starts at byte (n-1)*LogLineLen.
const LogLineLen = 100

// WriteLog writes a log of n lines of LogLineLen bytes each. Line i (1-based)
// holds the text "seq=i" so readers can check they got the right line.
func WriteLog(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("2026-11-21T23:%02d:%02d.%06dZ INFO svc=api seq=%d latency_ms=%d path=/v1/items/%d status=200",
			(i/60000)%60, (i/1000)%60, i%1000000, i, i%997, i%10007)
		if len(line) > LogLineLen-1 {
			line = line[:LogLineLen-1]
		}
		for len(line) < LogLineLen-1 {
			line += " "
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
