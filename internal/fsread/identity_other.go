//go:build !linux

package fsread

import "io/fs"

// fileIdentity is unavailable here: the line index is keyed by path, and
// size plus mtime decide whether it is stale.
func fileIdentity(fs.FileInfo) (dev, ino uint64, ctimeNs int64, ok bool) { return 0, 0, 0, false }

// fileID is unavailable here, so a Screen refuses every read it is asked to vet.
func fileID(fs.FileInfo) (FileID, bool) { return FileID{}, false }
