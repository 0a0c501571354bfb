//go:build unix

package fsread

import "syscall"

// nonblockFlag makes opening a FIFO return at once instead of waiting for a
// writer; it has no effect on regular files.
const nonblockFlag = syscall.O_NONBLOCK

// nofollowFlag refuses a final symlink when opening a path that was
// resolved already.
const nofollowFlag = syscall.O_NOFOLLOW
