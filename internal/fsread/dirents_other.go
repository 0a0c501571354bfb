//go:build !linux

package fsread

import (
	"context"
	"errors"
	"io"
	"os"
)

// readDirents lists a directory with os.File.ReadDir in batches.
func readDirents(ctx context.Context, _ *os.Root, f *os.File) ([]dirent, error) {
	var out []dirent
	for {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		batch, err := f.ReadDir(readDirBatch)
		for _, e := range batch {
			out = append(out, dirent{name: e.Name(), mode: e.Type()})
		}
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}
