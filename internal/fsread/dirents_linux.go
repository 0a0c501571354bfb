//go:build linux

package fsread

import (
	"context"
	"encoding/binary"
	"io/fs"
	"os"
	"syscall"
)

// readDirents lists a directory with getdents64 on the descriptor of a
// Root-opened directory. os.File.ReadDir on a directory opened through an
// os.Root calls lstat for every entry (it cannot stat lazily by path), which
// doubles the syscalls of a walk; the types in the dirent records are all a
// walk needs. Entries with DT_UNKNOWN are stat'ed through the root.
func readDirents(ctx context.Context, dir *os.Root, f *os.File) ([]dirent, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var (
		out     []dirent
		unknown []int
		callErr error
	)
	buf := make([]byte, 32<<10)
	ctrlErr := rc.Control(func(fd uintptr) {
		for {
			if err := ctx.Err(); err != nil {
				callErr = err
				return
			}
			n, err := syscall.Getdents(int(fd), buf)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				callErr = err
				return
			}
			if n <= 0 {
				return
			}
			for b := buf[:n]; len(b) >= 19; {
				reclen := int(binary.NativeEndian.Uint16(b[16:18]))
				if reclen < 19 || reclen > len(b) {
					break
				}
				typ := b[18]
				name := b[19:reclen]
				for i, c := range name {
					if c == 0 {
						name = name[:i]
						break
					}
				}
				b = b[reclen:]
				if string(name) == "." || string(name) == ".." {
					continue
				}
				mode, known := direntMode(typ)
				if !known {
					unknown = append(unknown, len(out))
				}
				out = append(out, dirent{name: string(name), mode: mode})
			}
		}
	})
	if ctrlErr != nil {
		return nil, ctrlErr
	}
	if callErr != nil {
		return out, callErr
	}
	for _, i := range unknown {
		if fi, err := dir.Lstat(out[i].name); err == nil {
			out[i].mode = fi.Mode().Type()
		} else {
			out[i].mode = fs.ModeIrregular
		}
	}
	return out, nil
}

func direntMode(typ byte) (fs.FileMode, bool) {
	switch typ {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}
