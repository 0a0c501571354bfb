//go:build !unix

package fsread

import "io/fs"

// nonblockFlag is zero where O_NONBLOCK does not exist; walks still check the
// type before opening.
const nonblockFlag = 0

func fileIdentity(fs.FileInfo) (dev, ino uint64, ctimeNs int64, ok bool) { return 0, 0, 0, false }
