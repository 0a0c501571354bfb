package store

import (
	"time"

	"golang.org/x/sys/unix"
)

// fileBirth is when the file at path was created, where the file system records it (statx).
func fileBirth(path string) (time.Time, bool) {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_BTIME, &stx); err != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}, false
	}
	return time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec)), true
}
