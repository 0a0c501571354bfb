//go:build !unix

package ignore

// nonblockFlag is zero where O_NONBLOCK does not exist; the Lstat check
// before opening still refuses non-regular files.
const nonblockFlag = 0
