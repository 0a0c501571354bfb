//go:build !unix

package fsread

// nonblockFlag is zero where O_NONBLOCK does not exist; walks still check the
// type before opening.
const nonblockFlag = 0

// nofollowFlag is zero where O_NOFOLLOW does not exist.
const nofollowFlag = 0
