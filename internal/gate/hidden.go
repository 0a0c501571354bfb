package gate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"toolhost/internal/sandbox"
	"toolhost/internal/sysfile"
)

// What a confined process may not read: every path the guard protects or holds secret (the
// credential stores in HOME, toolhost's state, config and token, every credential file another
// process on the state directory announced) and the dotenv files of other projects. Landlock
// only grants, so the sandbox grants reads on everything else (see package sandbox); a path the
// conversation's grants open to terminals is readable again.

// maxEnvDirs bounds the directories searched for other projects' dotenv files per start.
const maxEnvDirs = 4096

// envScan finds dotenv files (.env, .env.local, ...) where other projects keep theirs: directly
// in HOME, in every directory above the working directory, and in each directory directly below
// those ancestors that lie under HOME or outside it (not below HOME itself or the root, where
// thousands of entries are usual). The working directory's own are its to read. Temp dirs are
// left out: every command may write there by design, so nothing kept there can be protected,
// and listing them (busy with every program's scratch files) would cost every start. Each directory
// listed is remembered with its inode and modification time and listed again only when they
// change; the process's sysfile.Watch says when that may be, so a start that finds every
// directory as it was costs one read of the pending change events.
type envScan struct {
	mu   sync.Mutex
	dirs map[string]envDir
	last lastScan
}

// lastScan is the last answer of files and what it depends on: while the arguments are the
// same and none of the directories it looked at (listed or missing) changed, it holds.
type lastScan struct {
	ok              bool // every directory looked at is watched
	workdir, home   string
	temp, dirs, out []string
	gens            []uint64
	seq             uint64 // for sysfile.Watch.UnchangedSince
}

type envDir struct {
	ino, mtime int64
	env        []string // dotenv file names
	subdirs    []string // subdirectory names
	// gen is the directory's generation in the process's sysfile.Watch when it was stamped
	// (watched false: it cannot be watched and is stat'ed at each start).
	gen     uint64
	watched bool
}

// files returns the dotenv files for a working directory and home, a list the caller must not
// change (the next call may return it again).
func (e *envScan) files(workdir, home string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dirs == nil {
		e.dirs = map[string]envDir{}
	}
	watch := sysfile.Watcher()
	temp := sandbox.TempDirs()
	if l := &e.last; l.ok && l.workdir == workdir && l.home == home && slices.Equal(l.temp, temp) {
		if seq, ok := watch.UnchangedSince(l.seq, l.dirs, l.gens); ok {
			l.seq = seq
			return l.out
		}
	}
	watch.Sync()
	var out []string
	seen := map[string]bool{}
	listed := 0
	last := lastScan{ok: true, workdir: workdir, home: home, temp: temp}
	list := func(dir string) (envDir, bool) {
		d, ok, gen, watched := e.list(watch, dir)
		last.ok = last.ok && watched
		last.dirs, last.gens = append(last.dirs, dir), append(last.gens, gen)
		return d, ok
	}
	inTemp := func(d string) bool {
		return slices.ContainsFunc(temp, func(t string) bool { return d == t || strings.HasPrefix(d, t+"/") })
	}
	look := func(dir string, children bool) {
		if seen[dir] || listed >= maxEnvDirs {
			return
		}
		seen[dir] = true
		listed++
		d, ok := list(dir)
		if !ok {
			return
		}
		for _, n := range d.env {
			out = append(out, filepath.Join(dir, n))
		}
		if !children {
			return
		}
		for _, sub := range d.subdirs {
			p := filepath.Join(dir, sub)
			if p == workdir || strings.HasPrefix(workdir, p+"/") || seen[p] || inTemp(p) || listed >= maxEnvDirs {
				continue
			}
			seen[p] = true
			listed++
			if sd, ok := list(p); ok {
				for _, n := range sd.env {
					out = append(out, filepath.Join(p, n))
				}
			}
		}
	}
	if home != "" && !inTemp(home) {
		look(home, false)
	}
	for a := filepath.Dir(workdir); a != "/" && a != "."; a = filepath.Dir(a) {
		if !inTemp(a) {
			look(a, a != home)
		}
	}
	// Entries not seen this time belong to directories no longer on the way: forget them.
	for d := range e.dirs {
		if !seen[d] {
			delete(e.dirs, d)
		}
	}
	last.out = out
	e.last = last
	return out
}

// list returns dir's dotenv files and subdirectories, from the cache while dir has not
// changed: while the watch (synced by the caller) vouches for it, or else its inode and
// modification time are those it was listed with.
func (e *envScan) list(watch *sysfile.Watch, dir string) (d envDir, ok bool, gen uint64, watched bool) {
	d, cached := e.dirs[dir]
	if cached && d.watched {
		if gen, ok := watch.Gen(dir); ok && gen == d.gen {
			return d, true, gen, true
		}
	}
	// Watch first, then stat: a change after the stat moves the generation.
	gen, watched = watch.Add(dir, true)
	ino, mtime, ok := sysfile.DirStamp(dir)
	if !ok {
		delete(e.dirs, dir)
		return envDir{}, false, gen, watched
	}
	if cached && d.ino == int64(ino) && d.mtime == mtime {
		d.gen, d.watched = gen, watched
		e.dirs[dir] = d
		return d, true, gen, watched
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return envDir{}, false, gen, false
	}
	d = envDir{ino: int64(ino), mtime: mtime, gen: gen, watched: watched}
	for _, en := range entries {
		name := en.Name()
		switch {
		case en.IsDir():
			d.subdirs = append(d.subdirs, name)
		case len(name) >= 4 && strings.EqualFold(name[:4], ".env"):
			d.env = append(d.env, name)
		}
	}
	e.dirs[dir] = d
	return d, true, gen, watched
}

// hiddenList is hide's last merged list and the lists it was merged from: they rarely change
// between starts, and sorting them again was half of hide's work.
type hiddenList struct {
	mu                    sync.Mutex
	ok                    bool
	own, secret, env, out []string
}

// merge returns own, secret and env as one sorted list without duplicates or empty entries, a
// list the caller must not change (the next call may return it again).
func (l *hiddenList) merge(own, secret, env []string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok && slices.Equal(own, l.own) && slices.Equal(secret, l.secret) && slices.Equal(env, l.env) {
		return l.out
	}
	// One sort and one pass instead of a search of the list for each entry.
	out := make([]string, 0, len(own)+len(secret)+len(env))
	out = append(append(append(out, own...), secret...), env...)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	l.ok, l.out = true, out
	l.own, l.secret, l.env = slices.Clone(own), slices.Clone(secret), slices.Clone(env)
	return out
}

// HiddenHere lists what a command of no particular conversation cannot read here, existing
// paths only: what `toolhost doctor` shows.
func (g *Gate) HiddenHere() []string {
	p, err := g.Policy(context.Background(), "")
	if err != nil || p == nil {
		return nil
	}
	var out []string
	for _, h := range p.Hidden {
		if _, err := os.Lstat(h); err == nil {
			out = append(out, h)
		}
	}
	return out
}
