package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultFileMode is the permission of files created by the engine.
const DefaultFileMode fs.FileMode = 0o644

// MaxEditSize is the largest file the engines read, edit or fingerprint.
const MaxEditSize = 32 << 20

// maxSymlinkHops bounds symlink resolution, like the kernel's ELOOP limit.
const maxSymlinkHops = 40

// tempPrefix marks temporary files so a crashed writer's leftovers are
// recognisable (and never match a real file name).
const tempPrefix = ".toolhost-tmp-"

// cleanRel validates a slash-separated path relative to the root and
// returns it cleaned. The root itself, absolute paths and paths that climb
// out with ".." are refused before os.Root would refuse them, with a text
// the model can act on.
func cleanRel(rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("%w: empty path", ErrInvalidPath)
	}
	if path.IsAbs(rel) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%w: %q is absolute; use a path relative to the working directory", ErrInvalidPath, rel)
	}
	c := path.Clean(rel)
	if c == "." {
		return "", fmt.Errorf("%w: %q is the working directory itself", ErrInvalidPath, rel)
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: %q leaves the working directory", ErrInvalidPath, rel)
	}
	return c, nil
}

// resolve follows symlinks at rel (the last element only; os.Root resolves
// the parents safely) so that a write replaces the link's target and keeps
// the link. Links leading outside the root are refused.
func resolve(root *os.Root, rel string) (string, error) {
	cur := rel
	for range maxSymlinkHops {
		fi, err := root.Lstat(cur)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return cur, nil
		}
		target, err := root.Readlink(cur)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", cur, err)
		}
		if filepath.IsAbs(target) {
			base, err := rootDir(root)
			if err != nil {
				return "", fmt.Errorf("resolve root: %w", err)
			}
			r, err := filepath.Rel(base, target)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", fmt.Errorf("%w: %s is a symlink to %s, outside the working directory", ErrInvalidPath, rel, target)
			}
			target = filepath.ToSlash(r)
		} else {
			target = path.Join(path.Dir(cur), filepath.ToSlash(target))
		}
		if target == "." || target == ".." || strings.HasPrefix(target, "../") {
			return "", fmt.Errorf("%w: %s is a symlink leading outside the working directory", ErrInvalidPath, rel)
		}
		cur = target
	}
	return "", fmt.Errorf("%s: %w", rel, ErrSymlinkLoop)
}

// mkdirParents creates the missing parent directories of rel and returns
// the ones it created, outermost first, so a rollback can remove them.
func mkdirParents(root *os.Root, rel string) ([]string, error) {
	dir := path.Dir(rel)
	if dir == "." {
		return nil, nil
	}
	var created []string
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		err := root.Mkdir(p, 0o755)
		switch {
		case err == nil:
			created = append(created, p)
		case errors.Is(err, fs.ErrExist):
			fi, serr := root.Stat(p)
			if serr != nil {
				return created, fmt.Errorf("create directory %s: %w", p, serr)
			}
			if !fi.IsDir() {
				return created, fmt.Errorf("create directory %s: %w: a file is in the way", p, ErrExists)
			}
		default:
			return created, fmt.Errorf("create directory %s: %w", p, err)
		}
	}
	return created, nil
}

// WriteAtomic replaces the file at rel (relative to root) with data so
// that readers see either the old or the new content, never a mix: it
// writes a uniquely named temporary file in the same directory, fsyncs it
// and renames it over the target. An existing file keeps its permission
// bits; a new one gets mode (DefaultFileMode when 0). Missing parent
// directories are created. A symlink at rel is followed (its target is
// replaced, the link kept) only when the target is inside the root. On
// failure the temporary file is removed.
func WriteAtomic(root *os.Root, rel string, data []byte, mode fs.FileMode) error {
	rel, err := cleanRel(rel)
	if err != nil {
		return err
	}
	target, err := resolve(root, rel)
	if err != nil {
		return err
	}
	op := txnOp{Op: opWrite, Path: target, Mode: mode.Perm(), data: data, Temp: tempName(target, "")}
	switch fi, err := root.Stat(target); {
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("write %s: %w", rel, ErrNotRegular)
	case err == nil:
		op.Mode, op.Backup = fi.Mode().Perm(), tempName(target, ".old")
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("write %s: %w", rel, err)
	}
	t := &txn{root: root, rec: txnRecord{V: txnVersion, Ops: []txnOp{op}}}
	if t.rec.Dirs, err = missingDirs(root, t.rec.Ops); err != nil {
		return err
	}
	return t.commit(context.Background(), nil)
}

// removeDirs removes directories created by mkdirParents, innermost first,
// leaving any that are no longer empty.
func removeDirs(root *os.Root, dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = root.Remove(dirs[i])
	}
}

// procFD is the prefix of the name of a root opened through a descriptor (authz opens the
// working directory that way, so that no symlink is followed on the way).
const procFD = "/proc/self/fd/"

// rootDir returns the absolute directory root refers to. A root opened through procFD is named
// after a descriptor that was closed once the root was open, and that number means something
// else later or in another process (the journal records the directory for the process that
// recovers it): the directory is read from a descriptor of the root's own.
func rootDir(root *os.Root) (string, error) {
	name := root.Name()
	if !strings.HasPrefix(name, procFD) {
		return filepath.Abs(name)
	}
	f, err := root.Open(".")
	if err != nil {
		return "", err
	}
	defer f.Close()
	dir, err := os.Readlink(procFD + strconv.FormatUint(uint64(f.Fd()), 10))
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("the working directory is no longer reachable by a path (%s)", dir)
	}
	return dir, nil
}
