package authz

import (
	"errors"
	"fmt"
	"strings"
)

// Limits on the paths the guard accepts. They mirror Linux PATH_MAX, NAME_MAX and the kernel's
// symlink-follow limit, so anything the guard resolves the kernel could resolve too.
const (
	MaxPathLen     = 4096
	MaxNameLen     = 255
	MaxSymlinkHops = 40
)

// resolved is a path after canonicalisation: absolute, clean, free of symlinks as far as the
// path exists at the time of the check.
type resolved struct {
	path   string
	exists bool  // every component exists
	st     statT // lstat of path when exists
}

// pathErr is a resolution failure the model can fix; code is a Denial code.
type pathErr struct {
	code string
	msg  string
}

func (e *pathErr) Error() string { return e.msg }

// resolve canonicalises the absolute path p component by component, like the kernel does:
// every existing symlink is replaced by its target, ".." applies to the real (resolved) parent,
// and the first missing component ends the lookups (the rest is appended lexically, since nothing
// below a missing directory can be a symlink). followLast=false keeps a final symlink as is, which
// is what delete and rename act on. start, when not empty, is a canonical directory known to be a
// prefix of p (e.g. the working directory for relative paths); rest is p below it.
func resolve(start, rest string, followLast bool) (resolved, error) {
	var r resolved
	cur := start // "" means "/"
	if cur == "/" {
		cur = ""
	}
	exists := true
	missingAt := -1 // len(cur) when the first missing component was appended
	hops := 0
	haveStat := false
	for {
		var comp string
		comp, rest = nextComponent(rest)
		if comp == "" {
			break
		}
		if len(cur)+len(comp)+len(rest) > MaxPathLen {
			return r, &pathErr{"invalid_path", fmt.Sprintf("path is longer than %d bytes once resolved", MaxPathLen)}
		}
		switch comp {
		case ".":
			continue
		case "..":
			if i := strings.LastIndexByte(cur, '/'); i >= 0 {
				cur = cur[:i]
			}
			haveStat = false
			if !exists && len(cur) <= missingAt {
				exists, missingAt = true, -1
			}
			continue
		}
		if len(comp) > MaxNameLen {
			return r, &pathErr{"invalid_path", fmt.Sprintf("a path component is longer than %d bytes", MaxNameLen)}
		}
		next := cur + "/" + comp
		if !exists {
			cur = next
			continue
		}
		err := lstat(next, &r.st)
		if err != nil {
			switch {
			case isMissing(err):
				// Missing, under a non-directory, or not searchable: the kernel could not follow a
				// symlink here either, so the remainder is taken literally.
				exists, missingAt, haveStat = false, len(cur), false
				cur = next
				continue
			case isLoop(err):
				return r, &pathErr{"symlink_loop", "too many levels of symbolic links"}
			case isTooLong(err):
				return r, &pathErr{"invalid_path", "path or component too long"}
			default:
				return r, fmt.Errorf("lstat during path resolution: %w", err)
			}
		}
		isLast := strings.TrimLeft(rest, "/") == ""
		if r.st.Mode&sIFMT == sIFLNK && (!isLast || followLast) {
			hops++
			if hops > MaxSymlinkHops {
				return r, &pathErr{"symlink_loop", "too many levels of symbolic links"}
			}
			target, err := readlink(next)
			if err != nil {
				return r, fmt.Errorf("readlink during path resolution: %w", err)
			}
			if target == "" {
				return r, &pathErr{"invalid_path", "empty symbolic link"}
			}
			if len(target)+len(rest)+1 > MaxPathLen {
				return r, &pathErr{"invalid_path", fmt.Sprintf("path is longer than %d bytes once resolved", MaxPathLen)}
			}
			if target[0] == '/' {
				cur = ""
			}
			rest = target + "/" + rest
			haveStat = false
			continue
		}
		if n := diskName(next, comp); n != comp {
			// The stored name (its case, its long form): rules compare against that.
			next = cur + "/" + n
		}
		cur = next
		haveStat = true
	}
	if cur == "" {
		cur = "/"
	}
	r.path = cur
	r.exists = exists
	if exists && !haveStat {
		// The path ended with "." or ".." (or is "/"): stat what it names now.
		if err := lstat(cur, &r.st); err != nil {
			r.exists = false
		}
	}
	return r, nil
}

// nextComponent splits the first slash-separated component off p.
func nextComponent(p string) (comp, rest string) {
	p = strings.TrimLeft(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

// readlink reads a symlink's target without a size guess loop for the common case.
func readlink(p string) (string, error) {
	buf := make([]byte, 256)
	for {
		n, err := readlinkInto(p, buf)
		if err != nil {
			return "", err
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		if len(buf) > MaxPathLen {
			return "", errors.New("symbolic link target too long")
		}
		buf = make([]byte, len(buf)*4)
	}
}

// within reports whether p is dir or inside it. Both must be clean absolute paths. Containment is
// separator-aware: /w/proj does not contain /w/proj_evil.
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || (len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir))
}

// parentDir returns the parent of a clean absolute path ("/" for "/").
func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// relTo returns p relative to dir, slash-separated, "." for dir itself. p must be within dir.
func relTo(p, dir string) string {
	if p == dir {
		return "."
	}
	if dir == "/" {
		return p[1:]
	}
	return p[len(dir)+1:]
}

// checkInput refuses inputs that cannot be a path before anything touches the file system.
// Messages never echo the input: it may be huge or contain control bytes.
func checkInput(p string) error {
	if len(p) > MaxPathLen {
		return &pathErr{"invalid_path", fmt.Sprintf("path is %d bytes; the limit is %d", len(p), MaxPathLen)}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return &pathErr{"invalid_path", "path contains a NUL byte"}
	}
	return nil
}

// shorten elides the middle of long paths in messages.
func shorten(p string) string {
	const max = 160
	if len(p) <= max {
		return p
	}
	return p[:max/2-2] + "..." + p[len(p)-max/2+1:]
}
