//go:build !linux

package fsread

import "io"

// openEntry opens the entry name of directory d through its root.
func openEntry(d *dirHandle, name string) (io.ReadCloser, int64, bool, FileID, error) {
	return openEntryRoot(d, name)
}
