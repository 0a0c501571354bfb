package consolidated

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"toolhost/internal/lazyregexp"
	"unicode/utf8"
)

// Spill keeps the full text of results that were cut to fit the budget, so read_tool_result can
// page through them. Texts are files in the state directory, so any toolhost process sharing it
// (and a restarted one) can serve them. A text belongs to the conversation whose call produced
// it: its file name starts with a hash of the conversation, so an id read in one conversation
// names nothing in another.
type Spill struct {
	dir string
	// MaxAge and MaxBytes bound what is kept; older and excess files are removed on Put.
	MaxAge   time.Duration
	MaxBytes int64
}

// ErrNoSpill means no spilled result has that id (never stored, or expired).
var ErrNoSpill = errors.New("no spilled result with that id")

var spillID = lazyregexp.New(`^r[0-9a-f]{12}$`)

// NewSpill uses dir (created 0700) for spilled results.
func NewSpill(dir string) (*Spill, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create spill dir: %w", err)
	}
	return &Spill{dir: dir, MaxAge: 24 * time.Hour, MaxBytes: 256 << 20}, nil
}

// Put stores text for conversation conv and returns its id.
func (s *Spill) Put(conv, text string) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := "r" + hex.EncodeToString(b[:])
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("spill: %w", err)
	}
	if _, err := io.WriteString(tmp, text); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("spill: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("spill: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(conv, id)); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("spill: %w", err)
	}
	s.prune(s.path(conv, id))
	return id, nil
}

// spillFailure says, for the model, why Put failed: the state directory's condition when the
// user can fix it (ENOSPC, EROFS, EACCES) and the next step, else that the write failed.
func spillFailure(err error) string {
	if cause, next := diskCause(err); cause != "" {
		return "the state directory " + cause + "; " + next
	}
	return "writing it to the state directory failed (the server's log says why)"
}

// path is the file of conv's spilled text id.
func (s *Spill) path(conv, id string) string {
	sum := sha256.Sum256([]byte(conv))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:8])+"-"+id+".txt")
}

// Page returns up to length bytes of conv's spilled text id from offset, moved back to a UTF-8
// boundary, with the total size. Another conversation's id is ErrNoSpill.
func (s *Spill) Page(conv, id string, offset, length int64) (text string, start, total int64, err error) {
	if !spillID.MatchString(id) {
		return "", 0, 0, ErrNoSpill
	}
	f, err := os.Open(s.path(conv, id))
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, 0, ErrNoSpill
	}
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, 0, err
	}
	total = st.Size()
	if offset < 0 {
		offset = max(0, total+offset)
	}
	if offset >= total {
		return "", total, total, nil
	}
	// Read a few bytes before offset so the page can start on a rune boundary.
	back := min(offset, 3)
	buf := make([]byte, min(length+back, total-offset+back))
	n, err := f.ReadAt(buf, offset-back)
	if err != nil && err != io.EOF {
		return "", 0, 0, err
	}
	buf = buf[:n]
	i := back
	for i > 0 && !utf8.RuneStart(buf[i]) {
		i--
	}
	for int(i) < len(buf) && !utf8.RuneStart(buf[i]) {
		i++
	}
	buf = buf[i:]
	start = offset - back + i
	// Do not end in the middle of a rune unless it is the end of the text.
	if start+int64(len(buf)) < total {
		j := len(buf)
		for j > 0 && j > len(buf)-4 && !utf8.RuneStart(buf[j-1]) {
			j--
		}
		if j > 0 && !utf8.FullRune(buf[j-1:]) {
			buf = buf[:j-1]
		}
	}
	return string(buf), start, total, nil
}

// prune removes the texts older than MaxAge, then the oldest until the rest fit in MaxBytes;
// never keep, the text just put, whose id its caller is about to hand out.
func (s *Spill) prune(keep string) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	type item struct {
		path string
		mod  time.Time
		size int64
	}
	var items []item
	var sum int64
	cutoff := time.Now().Add(-s.MaxAge)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		p := filepath.Join(s.dir, e.Name())
		if p == keep {
			sum += info.Size()
			continue
		}
		if info.ModTime().Before(cutoff) {
			os.Remove(p)
			continue
		}
		items = append(items, item{p, info.ModTime(), info.Size()})
		sum += info.Size()
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].mod.Before(items[j].mod) })
	for _, it := range items {
		if sum <= s.MaxBytes {
			break
		}
		os.Remove(it.path)
		sum -= it.size
	}
}
