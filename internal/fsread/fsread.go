// Package fsread holds the read-side file engines behind file_operations:
// reading line ranges of files (read_file), listing directories (list_dir),
// finding files by glob (file_search) and searching contents (grep_search).
//
// Every operation works on an *os.Root plus a slash-separated path relative
// to it, as handed over by the working-directory guard, so the path that was
// checked is the path that is used and no symlink can lead out of the root.
// Walks never follow symlinks (which also makes symlink loops harmless),
// never open non-regular files (a FIFO would block), honour ctx cancellation
// and stop at documented caps, reporting in every result how much was left
// out. Results are plain structs; the MCP layer shapes them for the model.
package fsread

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Sentinel errors. The MCP layer maps them to model-fixable error codes.
var (
	// ErrNotRegular is returned when asked to read a FIFO, device, socket or
	// other non-regular file: opening those can block or have side effects.
	ErrNotRegular = errors.New("not a regular file")
	// ErrIsDir is returned by Read for a directory, so the caller can point
	// the model at list_dir.
	ErrIsDir = errors.New("is a directory")
	// ErrNotDir is returned by ListDir, Glob and Grep when the base is a file.
	ErrNotDir = errors.New("not a directory")
	// ErrInvalidOptions is returned for contradictory or out-of-range
	// options (for example both start_line and offset).
	ErrInvalidOptions = errors.New("invalid options")
	// ErrPastEnd is returned by Read when the first requested line is after
	// the last line of the file; the result still carries TotalLines.
	ErrPastEnd = errors.New("start line is past the end of the file")
	// ErrScanLimit is returned by Read when reaching the requested line
	// would mean scanning more than DefaultScanLimit bytes in one call (a
	// multi-GB file without newlines); byte-range reads still work.
	ErrScanLimit = errors.New("scan limit reached")
	// ErrBadPattern is returned for a glob or regular expression that does
	// not compile.
	ErrBadPattern = errors.New("bad pattern")
)

// EntryType names the kind of a directory entry in results.
type EntryType string

// Entry types. Symlinks are reported as such and never followed.
const (
	TypeFile    EntryType = "file"
	TypeDir     EntryType = "dir"
	TypeSymlink EntryType = "symlink"
	TypeOther   EntryType = "other"
)

func entryType(m fs.FileMode) EntryType {
	switch {
	case m.IsRegular():
		return TypeFile
	case m.IsDir():
		return TypeDir
	case m&fs.ModeSymlink != 0:
		return TypeSymlink
	default:
		return TypeOther
	}
}

// cleanRel normalises a caller-supplied relative path to the form used in
// results: no leading "./" or "/", "" for the root. It refuses paths that
// climb out with "..", which os.Root would refuse anyway, to give a clearer
// error. A backslash is an ordinary character in a file name here, never a
// separator: the path arrives as the guard decided it, and rewriting it
// would open a different file than the one that was checked.
func cleanRel(rel string) (string, error) {
	if rel == "" || rel == "." || rel == "/" {
		return "", nil
	}
	c := path.Clean(rel)
	c = strings.TrimPrefix(c, "/")
	if c == "." {
		return "", nil
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q leaves the root: %w", rel, ErrInvalidOptions)
	}
	return c, nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func osName(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// openRegular opens rel for reading and makes sure it is a regular file. It
// opens with O_NONBLOCK so a FIFO swapped in after a directory listing cannot
// block the caller, and with O_NOFOLLOW: the caller passes a resolved path,
// so a final symlink can only have been swapped in after the check. The
// screen vets the open file.
func openRegular(root *os.Root, rel string, s Screen) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(osName(rel), os.O_RDONLY|nonblockFlag|nofollowFlag, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if fi.Mode().IsRegular() {
		if err := vet(s, rel, fi); err != nil {
			f.Close()
			return nil, fi, err
		}
	}
	if fi.IsDir() {
		f.Close()
		return nil, fi, fmt.Errorf("read %s: %w", rel, ErrIsDir)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, fmt.Errorf("read %s: %w", rel, ErrNotRegular)
	}
	return f, fi, nil
}

// isHidden reports whether a base name is a dot file.
func isHidden(name string) bool { return strings.HasPrefix(name, ".") && name != "." && name != ".." }
