package codeindex

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The manifest is the index's table of contents: the walk snapshot, every file with the size
// and times it was indexed at, and the segments. It is written atomically (temporary file,
// fsync, rename) after a build and when a process closes; segments are written before the
// manifest that names them.

const manifestName = "manifest"

// manifestVersion changes when the format does; an older manifest is rebuilt.
const manifestVersion = 2

type manifest struct {
	Version  int
	Root     string
	BuiltAt  time.Time
	Build    time.Duration
	Files    []manifestFile
	Dirs     []manifestDir
	Segments []manifestSegment
	Depth    bool
	Bytes    int64
	// Symbols says defined names were indexed (Config.Symbols).
	Symbols bool
}

type manifestFile struct {
	Rel                string
	Size, Mtime, Ctime int64
	Ino                uint64
	Sid                uint32
	Flags              uint8
}

type manifestDir struct {
	Rel      string
	Names    []string
	Kinds    []uint8
	IDs      []uint32
	Hidden   int
	Ignored  int
	Withheld []string
	HasIgn   bool
}

type manifestSegment struct {
	Sid  uint32
	Name string // base name in the index directory
}

// saveLocked writes the state in use (with ix.mu held). In-memory segments are written to
// disk first, so the manifest only names files.
func (ix *Index) saveLocked() error {
	if !ix.persist || ix.st == nil {
		return nil
	}
	if len(ix.st.mem) > 0 {
		return ix.flushLocked()
	}
	return ix.writeManifestLocked()
}

// flushLocked writes the in-memory segments' files as one on-disk segment, then the manifest.
func (ix *Index) flushLocked() error {
	st := ix.st
	b := &segmentBuilder{}
	var ids []uint32
	for id := range st.mem {
		if st.files[id].flags&fGone == 0 {
			ids = append(ids, id)
		}
	}
	var keep []*segment
	for _, s := range st.segs {
		if s.name != "" {
			keep = append(keep, s)
		}
	}
	if len(ids) > 0 {
		for _, id := range ids {
			b.add(id, st.mem[id])
		}
		sid := ix.serial.Add(1)
		name := filepath.Join(ix.cfg.Dir, fmt.Sprintf("seg-%08x-%d.tri", sid, time.Now().UnixNano()))
		if err := b.write(name); err != nil {
			return err
		}
		s, err := openSegment(name)
		if err != nil {
			return err
		}
		s.sid = sid
		for _, id := range ids {
			st.files[id].sid = sid
		}
		keep = append(keep, s)
	}
	st.segs = keep
	st.mem = map[uint32][]uint32{}
	return ix.writeManifestLocked()
}

func (ix *Index) writeManifestLocked() error {
	st := ix.st
	m := manifest{Version: manifestVersion, Root: ix.cfg.RootPath, BuiltAt: ix.builtAt, Build: ix.buildTime, Depth: st.depthLimit, Bytes: st.bytes, Symbols: ix.cfg.Symbols != nil}
	m.Files = make([]manifestFile, len(st.files))
	for i, f := range st.files {
		m.Files[i] = manifestFile{Rel: f.rel, Size: f.size, Mtime: f.mtime, Ctime: f.ctime, Ino: f.ino, Sid: f.sid, Flags: f.flags}
		if _, dirty := st.dirty[uint32(i)]; dirty {
			m.Files[i].Sid = 0 // its content is not what was indexed
		}
	}
	for _, d := range st.dirs {
		md := manifestDir{Rel: d.rel, Hidden: d.hidden, Ignored: d.ignored, Withheld: d.withheld, HasIgn: d.hasIgn}
		for _, e := range d.entries {
			md.Names = append(md.Names, e.name)
			md.Kinds = append(md.Kinds, e.kind)
			md.IDs = append(md.IDs, e.id)
		}
		m.Dirs = append(m.Dirs, md)
	}
	for _, s := range st.segs {
		if s.name != "" {
			m.Segments = append(m.Segments, manifestSegment{Sid: s.sid, Name: filepath.Base(s.name)})
		}
	}
	return writeAtomic(filepath.Join(ix.cfg.Dir, manifestName), 0o600, func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(&m)
	})
}

// writeAtomic writes a file through encode, synced, into a temporary file renamed into place:
// a crash leaves the old file or the new one, never half of one.
func writeAtomic(path string, perm os.FileMode, encode func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = encode(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// readManifest reads the manifest of dir.
func readManifest(dir string) (*manifest, error) {
	f, err := os.Open(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m manifest
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("index manifest: %w", err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("index manifest version %d, want %d", m.Version, manifestVersion)
	}
	return &m, nil
}

// Exists reports whether an index was written for this working directory.
func (ix *Index) Exists() bool {
	_, err := os.Stat(filepath.Join(ix.cfg.Dir, manifestName))
	return err == nil
}

// Load opens the index on disk and brings it up to date: every file is checked against its
// size and times (a reconciling walk), and what changed while no process watched is indexed
// again. Without an index on disk it returns fs.ErrNotExist.
func (ix *Index) Load(ctx context.Context) error {
	if !ix.begin("loading") {
		return errors.New("a build is already under way")
	}
	err := ix.load(ctx)
	ix.end(err)
	return err
}

func (ix *Index) load(ctx context.Context) error {
	m, err := readManifest(ix.cfg.Dir)
	if err != nil {
		return err
	}
	if m.Root != ix.cfg.RootPath {
		return fmt.Errorf("the index in %s is of %s, not %s", ix.cfg.Dir, m.Root, ix.cfg.RootPath)
	}
	if m.Symbols != (ix.cfg.Symbols != nil) {
		return errors.New("the stored index was built with other options")
	}
	st := newState()
	st.depthLimit, st.bytes = m.Depth, m.Bytes
	st.files = make([]fileNode, len(m.Files))
	maxSid := uint32(0)
	for i, f := range m.Files {
		st.files[i] = fileNode{rel: f.Rel, size: f.Size, mtime: f.Mtime, ctime: f.Ctime, ino: f.Ino, sid: f.Sid, flags: f.Flags}
		if f.Flags&fGone == 0 {
			st.byRel[f.Rel] = uint32(i)
		}
	}
	for _, d := range m.Dirs {
		n := &dirNode{rel: d.Rel, hidden: d.Hidden, ignored: d.Ignored, withheld: d.Withheld, hasIgn: d.HasIgn}
		for i := range d.Names {
			n.entries = append(n.entries, entry{name: d.Names[i], kind: d.Kinds[i], id: d.IDs[i]})
		}
		st.dirs[d.Rel] = n
	}
	for _, s := range m.Segments {
		if strings.ContainsAny(s.Name, `/\`) {
			return errors.New("index manifest names a segment outside its directory")
		}
		seg, err := openSegment(filepath.Join(ix.cfg.Dir, s.Name))
		if err != nil {
			for _, o := range st.segs {
				o.close()
			}
			return err
		}
		seg.sid = s.Sid
		maxSid = max(maxSid, s.Sid)
		st.segs = append(st.segs, seg)
	}
	if ix.serial.Load() < maxSid {
		ix.serial.Store(maxSid)
	}
	ix.mu.Lock()
	ix.builtAt, ix.buildTime = m.BuiltAt, m.Build
	ix.mu.Unlock()
	// Whatever happened while nobody watched: a reconciling build keeps what is unchanged.
	return ix.build(ctx, st)
}

// removeStale deletes segment files no manifest of this state names (left by an older build
// or a crash), and temporary files.
func (ix *Index) removeStale(st *state) {
	if !ix.persist {
		return
	}
	keep := map[string]bool{}
	for _, s := range st.segs {
		if s.name != "" {
			keep[filepath.Base(s.name)] = true
		}
	}
	ents, _ := os.ReadDir(ix.cfg.Dir)
	for _, e := range ents {
		n := e.Name()
		if (strings.HasPrefix(n, "seg-") && !keep[n]) || strings.HasSuffix(n, ".tmp") {
			os.Remove(filepath.Join(ix.cfg.Dir, n))
		}
	}
}

// Drop removes the index from disk and stops serving queries from it.
func (ix *Index) Drop() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.st != nil {
		for _, s := range ix.st.segs {
			s.close()
		}
		ix.st = nil
	}
	if ix.w != nil {
		ix.w.close()
		ix.w = nil
	}
	if ix.unlock != nil {
		ix.unlock()
		ix.unlock, ix.persist = nil, false
	}
	return os.RemoveAll(ix.cfg.Dir)
}
