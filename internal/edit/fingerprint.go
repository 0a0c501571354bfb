package edit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Fingerprint identifies the content of a file as the model last read it.
// The MCP layer stores one per read and passes it back with the next edit,
// so an edit made on a stale picture of the file is refused instead of
// applied blindly.
type Fingerprint struct {
	Size    int64
	ModTime time.Time
	// SHA256 is the hex digest of the content; it alone decides equality,
	// so touching a file without changing it is not a conflict.
	SHA256 string
}

// FingerprintOf fingerprints content read from a file with the given info
// (info may be nil when only the content is known).
func FingerprintOf(content []byte, info fs.FileInfo) Fingerprint {
	sum := sha256.Sum256(content)
	fp := Fingerprint{Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])}
	if info != nil {
		fp.ModTime = info.ModTime()
	}
	return fp
}

// Same reports whether two fingerprints describe the same content.
func (f Fingerprint) Same(g Fingerprint) bool { return f.SHA256 == g.SHA256 }

// String is a compact stable form for storage and logs.
func (f Fingerprint) String() string { return "sha256:" + f.SHA256 }

// FingerprintFile reads the regular file at rel and fingerprints it.
func FingerprintFile(root *os.Root, rel string) (Fingerprint, error) {
	data, info, err := readRegular(root, rel)
	if err != nil {
		return Fingerprint{}, err
	}
	return FingerprintOf(data, info), nil
}

// CheckFresh returns a *StaleError when the file at rel no longer has the
// content fingerprinted by want.
func CheckFresh(root *os.Root, rel string, want Fingerprint) error {
	got, err := FingerprintFile(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return &StaleError{Path: rel, Want: want, Deleted: true}
	}
	if err != nil {
		return err
	}
	return checkFingerprint(rel, want, got)
}

func checkFingerprint(rel string, want, got Fingerprint) error {
	if want.Same(got) {
		return nil
	}
	return &StaleError{Path: rel, Want: want, Got: got}
}

// StaleError reports that a file changed since the model read it.
type StaleError struct {
	Path    string
	Want    Fingerprint // as last read
	Got     Fingerprint // now
	Deleted bool
	// Detail says where the model's text stands in the file now: where old_string or a hunk
	// still matches, or the first line where it no longer does.
	Detail string
	// current is the file's content now, for the operation to fill in Detail.
	current []byte
}

func (e *StaleError) Error() string {
	if e.Deleted {
		return fmt.Sprintf("%s was deleted since you last read it; check before recreating it", e.Path)
	}
	when := ""
	if !e.Got.ModTime.IsZero() {
		when = " (modified " + e.Got.ModTime.UTC().Format(time.RFC3339) + ")"
	}
	msg := fmt.Sprintf("%s changed since you last read it%s, %d -> %d bytes", e.Path, when, e.Want.Size, e.Got.Size)
	if e.Detail != "" {
		msg += "; " + e.Detail
	}
	return msg + "; nothing was written"
}

// Next is the step after a stale read.
func (e *StaleError) Next() string {
	if e.Deleted {
		return "check with the user if unsure; a second create_file recreates it"
	}
	return "read_file it again, then redo the edit on what is there now"
}

func (e *StaleError) Unwrap() error { return ErrStale }

// readRegular reads a regular file through root, refusing directories,
// devices, FIFOs and sockets (which could block or be huge).
// Files larger than MaxEditSize are refused with ErrTooLarge.
func readRegular(root *os.Root, rel string) ([]byte, fs.FileInfo, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return nil, nil, err
	}
	// O_NONBLOCK keeps a FIFO swapped in after a check from blocking the
	// open; the type is checked on the opened file itself.
	f, err := root.OpenFile(rel, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrNotRegular)
	}
	if fi.Size() > MaxEditSize {
		return nil, nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", rel, ErrTooLarge, fi.Size(), MaxEditSize)
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if len(data) > MaxEditSize {
			return nil, nil, fmt.Errorf("%s: %w (limit %d bytes)", rel, ErrTooLarge, MaxEditSize)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", rel, err)
		}
	}
	return data, fi, nil
}
