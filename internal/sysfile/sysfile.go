// Package sysfile answers the questions about files that the operating systems answer
// differently: a file's identity (inode or file index), its owner, the free space of a disk,
// and the flags that open a file for reading without blocking on a FIFO or following a final
// symbolic link. One file per platform; callers stay free of syscall.Stat_t and friends.
package sysfile

import (
	"context"
	"io/fs"
	"path/filepath"
)

// TreeSize adds up the sizes of the regular files at or under path. A file removed while walking,
// or one that cannot be read, is not counted; ctx ends the walk early.
func TreeSize(ctx context.Context, path string) (int64, error) {
	var total int64
	err := filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total, err
}
