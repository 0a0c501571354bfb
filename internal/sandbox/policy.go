package sandbox

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is how terminals are confined: the [terminal] sandbox setting.
type Mode string

// The modes. ModeWorkspaceWrite is the default where Landlock is available.
const (
	ModeWorkspaceWrite Mode = "workspace-write"
	ModeReadOnly       Mode = "read-only"
	ModeOff            Mode = "off"
)

// ParseMode checks a configured mode; "" means the default, workspace-write.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return ModeWorkspaceWrite, nil
	case ModeWorkspaceWrite, ModeReadOnly, ModeOff:
		return Mode(s), nil
	}
	return "", fmt.Errorf("sandbox mode %q: want workspace-write, read-only or off", s)
}

// Policy is what one command may touch. Paths are absolute; Build canonicalises them.
type Policy struct {
	Mode Mode
	// Writable trees and files: the working directory, granted paths, build caches. Used in
	// workspace-write only. A directory covers everything below it; a file only itself.
	Writable []string
	// Temp directories are writable in every confined mode.
	Temp []string
	// Protected paths are never writable, even inside Writable or Temp, whether or not they
	// exist yet.
	Protected []string
	// Hidden paths have unreadable contents (files below a hidden directory too); their
	// names stay listable.
	Hidden []string
}

// Landlock filesystem access rights (the kernel's LANDLOCK_ACCESS_FS_* bits).
const (
	accessExecute    uint64 = 1 << 0
	accessWriteFile  uint64 = 1 << 1
	accessReadFile   uint64 = 1 << 2
	accessReadDir    uint64 = 1 << 3
	accessRemoveDir  uint64 = 1 << 4
	accessRemoveFile uint64 = 1 << 5
	accessMakeChar   uint64 = 1 << 6
	accessMakeDir    uint64 = 1 << 7
	accessMakeReg    uint64 = 1 << 8
	accessMakeSock   uint64 = 1 << 9
	accessMakeFifo   uint64 = 1 << 10
	accessMakeBlock  uint64 = 1 << 11
	accessMakeSym    uint64 = 1 << 12
	accessRefer      uint64 = 1 << 13 // ABI 2
	accessTruncate   uint64 = 1 << 14 // ABI 3
)

const (
	rightsRead     = accessExecute | accessReadFile | accessReadDir
	rightsContents = accessExecute | accessReadFile // what Hidden withholds
	rightsWrite    = accessWriteFile | accessRemoveDir | accessRemoveFile | accessMakeChar | accessMakeDir |
		accessMakeReg | accessMakeSock | accessMakeFifo | accessMakeBlock | accessMakeSym | accessRefer | accessTruncate
	rightsAll = rightsRead | rightsWrite
	// rightsFile are the rights a rule on a non-directory may carry.
	rightsFile = accessExecute | accessWriteFile | accessReadFile | accessTruncate
)

// handledFor returns the rights a kernel of this Landlock ABI restricts (and toolhost
// handles): ABI 1 has neither refer (renames across directories are then always refused)
// nor truncate (truncate(2) is then not restricted).
func handledFor(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return rightsAll &^ (accessRefer | accessTruncate)
	case abi == 2:
		return rightsAll &^ accessTruncate
	}
	return rightsAll
}

// devices are the device files and directories every command may use for reading and
// writing: the bit buckets, the random sources and terminals.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// rule is one landlock_add_rule: rights on a file or directory tree.
type rule struct {
	path   string
	rights uint64
}

// grant is a tree or file that gets rights before exclusions apply.
type grant struct {
	path   string
	rights uint64
}

// plan turns a policy into Landlock rules: read everywhere, write where allowed, with the
// protected and hidden paths cut out by granting siblings along the way (see the package
// comment). dirs records every directory whose entries were listed, so a cached ruleset
// can be checked for staleness.
type plan struct {
	rules []rule
	dirs  []string
	excl  []grant // path, rights withheld
}

func (p *Policy) plan() (*plan, error) {
	pl := &plan{}
	var grants []grant
	grants = append(grants, grant{"/", rightsRead})
	if p.Mode == ModeWorkspaceWrite {
		for _, w := range p.Writable {
			grants = append(grants, grant{w, rightsAll})
		}
	}
	for _, t := range p.Temp {
		grants = append(grants, grant{t, rightsAll})
	}
	for _, d := range devices {
		grants = append(grants, grant{d, accessReadFile | accessWriteFile | accessReadDir | accessTruncate})
	}
	for _, h := range p.Hidden {
		pl.excl = append(pl.excl, grant{h, rightsContents})
	}
	for _, pr := range p.Protected {
		pl.excl = append(pl.excl, grant{pr, rightsWrite})
	}
	for _, g := range grants {
		if err := pl.emit(g.path, g.rights); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// maxRules bounds the rules one policy may produce; a protected path below a directory with
// a huge number of entries is refused rather than left unconfined.
const maxRules = 20000

// emit adds rules giving rights on path, minus what exclusions at or above it withhold,
// and descends towards exclusions below it.
func (pl *plan) emit(path string, rights uint64) error {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // nothing there to grant; a later command sees it
		}
		return fmt.Errorf("sandbox: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		// A rule on a symlink would land on its target; the target gets rights where it lives.
		if path != "/" && !slices.Contains(devices, path) {
			return nil
		}
		if fi, err = os.Stat(path); err != nil {
			return nil
		}
	}
	below := uint64(0)
	for _, e := range pl.excl {
		switch {
		case within(path, e.path):
			rights &^= e.rights
		case within(e.path, path):
			below |= e.rights
		}
	}
	if !fi.IsDir() {
		below = 0
		rights &= rightsFile
	}
	if keep := rights &^ below; keep != 0 {
		if len(pl.rules) >= maxRules {
			return fmt.Errorf("sandbox: more than %d rules needed to exclude protected paths below %s", maxRules, path)
		}
		pl.rules = append(pl.rules, rule{path, keep})
	}
	push := rights & below
	if push == 0 {
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		// Unlistable: nothing below it is granted those rights, which is the safe side.
		return nil
	}
	pl.dirs = append(pl.dirs, path)
	for _, e := range entries {
		if err := pl.emit(filepath.Join(path, e.Name()), push); err != nil {
			return err
		}
	}
	return nil
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// Canonical resolves symlinks in the existing part of p (a path that does not exist yet is
// decided where it would be created), so that containment checks compare like with like.
func Canonical(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// normalized returns a copy of p with canonical, de-duplicated paths.
func (p *Policy) normalized() *Policy {
	clean := func(in []string) []string {
		var out []string
		for _, s := range in {
			if s == "" {
				continue
			}
			c := Canonical(s)
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		slices.Sort(out)
		return out
	}
	return &Policy{Mode: p.Mode, Writable: clean(p.Writable), Temp: clean(p.Temp), Protected: clean(p.Protected), Hidden: clean(p.Hidden)}
}

// hash identifies p for the ruleset cache, which keeps the policy to compare on a hit: a start
// hashes its policy (a user's has some forty paths) instead of building a key string of it.
func (p *Policy) hash() uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	h.WriteString(string(p.Mode))
	for _, l := range [][]string{p.Writable, p.Temp, p.Protected, p.Hidden} {
		h.WriteByte(0)
		for _, s := range l {
			h.WriteString(s)
			h.WriteByte(1)
		}
	}
	return h.Sum64()
}

var hashSeed = maphash.MakeSeed()

// equal reports whether p and o are the same policy, path lists in the same order.
func (p *Policy) equal(o *Policy) bool {
	return p.Mode == o.Mode && slices.Equal(p.Writable, o.Writable) && slices.Equal(p.Temp, o.Temp) &&
		slices.Equal(p.Protected, o.Protected) && slices.Equal(p.Hidden, o.Hidden)
}

// clone returns a copy of p that shares no slice with it.
func (p *Policy) clone() Policy {
	return Policy{Mode: p.Mode, Writable: slices.Clone(p.Writable), Temp: slices.Clone(p.Temp),
		Protected: slices.Clone(p.Protected), Hidden: slices.Clone(p.Hidden)}
}

// CanWrite reports whether a command under p may write path (ignoring ordinary file
// permissions), and whether path is one of toolhost's protected paths, which no grant opens.
func (p *Policy) CanWrite(path string) (ok, protected bool) {
	if p == nil || p.Mode == ModeOff {
		return true, false
	}
	c := Canonical(path)
	for _, pr := range p.Protected {
		if within(c, Canonical(pr)) {
			return false, true
		}
	}
	roots := slices.Clone(p.Temp)
	if p.Mode == ModeWorkspaceWrite {
		roots = append(roots, p.Writable...)
	}
	roots = append(roots, devices...)
	for _, r := range roots {
		if within(c, Canonical(r)) {
			return true, false
		}
	}
	return false, false
}

// WithWritable returns a copy of p under which paths are writable too (protected paths stay
// excluded): for a process that must write where the guard approved an operation, such as git
// committing in a repository the terminal itself may not write. In read-only mode the copy
// writes in paths and the temp directories only, not in p.Writable. Paths p already lets
// commands write are not added, so the common case keeps p's cached ruleset. Nil (unconfined)
// stays nil; p is not changed.
func (p *Policy) WithWritable(paths ...string) *Policy {
	if p == nil || p.Mode == ModeOff {
		return p
	}
	cp := *p
	if cp.Mode == ModeReadOnly {
		cp.Mode, cp.Writable = ModeWorkspaceWrite, nil
	}
	cp.Writable = slices.Clone(cp.Writable)
	for _, w := range paths {
		if ok, protected := cp.CanWrite(w); !ok && !protected && w != "" {
			cp.Writable = append(cp.Writable, w)
		}
	}
	return &cp
}

// BuildCaches are the usual per-user build and package caches commands may write under
// workspace-write: the Go build and module caches, npm's, pip's and cargo's. getenv reads the
// environment (GOCACHE, GOMODCACHE, GOPATH, XDG_CACHE_HOME, CARGO_HOME).
func BuildCaches(home string, getenv func(string) string) []string {
	var out []string
	for _, c := range buildCaches(home, getenv) {
		out = append(out, c.dir)
	}
	return out
}

// A buildCache is a cache directory and the program that fills it.
type buildCache struct {
	dir     string
	program string
}

func buildCaches(home string, getenv func(string) string) []buildCache {
	if home == "" {
		return nil
	}
	cache := getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	gocache := getenv("GOCACHE")
	if gocache == "" {
		gocache = filepath.Join(cache, "go-build")
	}
	modcache := getenv("GOMODCACHE")
	if modcache == "" {
		gopath, _, _ := strings.Cut(getenv("GOPATH"), string(filepath.ListSeparator))
		if gopath == "" {
			gopath = filepath.Join(home, "go")
		}
		modcache = filepath.Join(gopath, "pkg", "mod")
	}
	cargo := getenv("CARGO_HOME")
	if cargo == "" {
		cargo = filepath.Join(home, ".cargo")
	}
	return []buildCache{{gocache, "go"}, {modcache, "go"}, {filepath.Join(home, ".npm"), "npm"},
		{filepath.Join(cache, "pip"), "pip3"}, {filepath.Join(cargo, "registry"), "cargo"}, {filepath.Join(cargo, "git"), "cargo"}}
}

// MakeBuildCaches creates the build caches of the programs lookPath finds that do not exist
// yet: Landlock grants only what exists when a command starts, so a first `go test` on a fresh
// machine could not create its own cache. Caches of programs the machine lacks are left alone.
// It returns the directories it could not create, with why.
func MakeBuildCaches(home string, getenv func(string) string, lookPath func(string) (string, error)) []error {
	var errs []error
	for _, c := range buildCaches(home, getenv) {
		if _, err := os.Lstat(c.dir); err == nil {
			continue
		}
		if _, err := lookPath(c.program); err != nil {
			continue
		}
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("build cache %s: %w", c.dir, err))
		}
	}
	return errs
}

// TempDirs are the temporary directories every confined mode may write.
func TempDirs() []string {
	out := []string{os.TempDir()}
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
