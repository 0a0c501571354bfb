package fsread

import (
	"errors"
	"io/fs"
)

// Screen is the caller's say over what an operation may reveal, so that a listing, a glob and a
// search show exactly what a direct read of each entry would: the working-directory guard
// implements it on the target it opened. A nil Screen reveals everything the filters let
// through.
type Screen interface {
	// Withhold reports whether the entry rel (slash-separated, relative to the root) must be
	// left out: its name is not shown, a directory is not entered, a file is not searched.
	Withhold(rel string, isDir bool) bool
	// Opened vets a file opened to read its contents, by the identity of the open file (not
	// the name, which may have been swapped since the check). A non-nil error refuses the
	// read; Read returns it as is, Grep counts the file as withheld.
	Opened(rel string, id FileID) error
}

// FileID identifies an open file: device and inode, how many hard links it has (a file with
// several may also be reachable somewhere the caller may not read), and its status change time
// in nanoseconds (which every link and unlink updates). Mtime, the modification time, is not
// part of the identity: the working-directory index keeps it to tell a changed file.
type FileID struct {
	Dev, Ino, Nlink uint64
	Ctime           int64
	Mtime           int64
}

// ErrWithheld is what Opened returns (wrapped) for a file the screen refuses to reveal.
var ErrWithheld = errors.New("withheld")

// withhold is s.Withhold for a possibly nil screen.
func withhold(s Screen, rel string, isDir bool) bool {
	return s != nil && s.Withhold(rel, isDir)
}

// vet is s.Opened for a possibly nil screen and an os.File's FileInfo.
func vet(s Screen, rel string, fi fs.FileInfo) error {
	if s == nil {
		return nil
	}
	id, ok := fileID(fi)
	if !ok {
		return errors.New("cannot identify the opened file")
	}
	return s.Opened(rel, id)
}
