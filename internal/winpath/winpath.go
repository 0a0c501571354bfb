// Package winpath is a model of how Windows reads a path, in pure Go so that it runs and is
// tested on every platform. The guard (package authz) passes every path a model sends through
// it when toolhost runs on Windows, before anything touches the file system: a path either
// comes out in one canonical spelling or is refused with the reason.
//
// # The guard form
//
// The guard decides on slash-separated absolute paths that start with "/" and compares them
// component by component. A Windows path is put into that form with its volume as the first
// component:
//
//	C:\Users\me\proj         /C:/Users/me/proj
//	\\server\share\dir       /UNC/server/share/dir
//	\\?\C:\Users\me          /C:/Users/me
//	\\?\UNC\server\share     /UNC/server/share
//
// Native turns a guard-form path back into the path Windows APIs take.
//
// # What is refused
//
// Spellings whose meaning depends on state the guard does not see, or that Windows rewrites
// behind the name's back, are refused rather than guessed at:
//
//   - a drive-relative path ("C:foo", relative to that drive's current directory) and a rooted
//     path without a drive ("\foo", on the current drive);
//   - the device namespace ("\\.\", "\\?\GLOBALROOT", "\??\") and volume GUID paths;
//   - reserved device names in any component (CON, PRN, AUX, NUL, COM0-9, LPT0-9, CONIN$,
//     CONOUT$, with any extension, trailing spaces or superscript digits: "nul.txt" is NUL);
//   - a component that ends in a dot or a space (Win32 strips them: ".git." opens ".git");
//   - a colon after the volume (an alternate data stream: "notes.txt:hidden");
//   - characters Windows never allows in a name (< > " | ? * and control characters).
//
// # Case
//
// NTFS and ReFS compare names without regard to case (a per-directory case-sensitive flag
// exists but is rare). Within and Equal fold case as the file system does (simple upper-case
// mapping, one code point at a time), so ".GIT\hooks" is inside ".git".
package winpath

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrRefused is wrapped by every refusal from Parse.
var ErrRefused = errors.New("path refused")

// A RefusedError says why a path was refused; Reason is a short phrase for the model.
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return "windows path: " + e.Reason }

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Unwrap() error { return ErrRefused }

func refuse(format string, a ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, a...)}
}

// Kind is the kind of path Parse read.
type Kind int

// The kinds.
const (
	// Relative paths have no volume and no root: "src\main.go", "..\x".
	Relative Kind = iota
	// Drive paths start with a drive letter and a separator: "C:\x".
	Drive
	// UNC paths name a server and a share: "\\server\share\x".
	UNC
)

// A Path is a parsed Windows path.
type Path struct {
	Kind Kind
	// Volume is "C:" for a drive path (the letter upper-cased), "server\share" for UNC, "" for
	// a relative path.
	Volume string
	// Elems are the components after the volume, with "." removed; ".." is kept (it is
	// resolved against the real parent by the guard, after symbolic links).
	Elems []string
}

// Parse reads p as Windows would and refuses what the guard must not guess at (see the package
// comment). Both \ and / separate components.
func Parse(p string) (Path, error) {
	if p == "" {
		return Path{}, refuse("empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return Path{}, refuse("the path contains a NUL byte")
	}
	s := strings.ReplaceAll(p, "/", `\`)
	var out Path
	switch {
	case strings.HasPrefix(s, `\\?\`) || strings.HasPrefix(s, `\??\`):
		rest := s[4:]
		switch {
		case isDriveAbs(rest):
			out.Kind, out.Volume, s = Drive, driveOf(rest), rest[2:]
		case len(rest) >= 4 && strings.EqualFold(rest[:4], `UNC\`):
			v, r, err := uncVolume(rest[4:])
			if err != nil {
				return Path{}, err
			}
			out.Kind, out.Volume, s = UNC, v, r
		default:
			return Path{}, refuse("device namespace paths (%s) are not file paths", shortPrefix(s))
		}
	case strings.HasPrefix(s, `\\.\`) || s == `\\.` || s == `\\?`:
		return Path{}, refuse("device namespace paths (\\\\.\\) are not file paths")
	case strings.HasPrefix(s, `\\`):
		v, r, err := uncVolume(s[2:])
		if err != nil {
			return Path{}, err
		}
		out.Kind, out.Volume, s = UNC, v, r
	case isDriveAbs(s):
		out.Kind, out.Volume, s = Drive, driveOf(s), s[2:]
	case len(s) >= 2 && s[1] == ':' && isLetter(s[0]):
		return Path{}, refuse("drive-relative path %q: it depends on that drive's current directory; write %s\\...", shortPrefix(s), strings.ToUpper(s[:2]))
	case strings.HasPrefix(s, `\`):
		return Path{}, refuse("a path rooted without a drive (\\...) depends on the current drive; start it with a drive letter such as C:\\")
	}
	for _, e := range strings.Split(s, `\`) {
		if e == "" || e == "." {
			continue
		}
		if e != ".." {
			if err := CheckName(e); err != nil {
				return Path{}, err
			}
		}
		out.Elems = append(out.Elems, e)
	}
	return out, nil
}

// isDriveAbs reports whether s starts with "X:\".
func isDriveAbs(s string) bool {
	return len(s) >= 3 && isLetter(s[0]) && s[1] == ':' && s[2] == '\\'
}

func driveOf(s string) string { return strings.ToUpper(s[:1]) + ":" }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// uncVolume splits "server\share\rest" into the volume "server\share" and "\rest".
func uncVolume(s string) (vol, rest string, err error) {
	parts := strings.SplitN(s, `\`, 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", refuse("a UNC path needs a server and a share: \\\\server\\share\\...")
	}
	for _, n := range parts[:2] {
		if n == "." || n == ".." {
			return "", "", refuse("a UNC server or share cannot be %q", n)
		}
		if err := CheckName(n); err != nil {
			return "", "", err
		}
	}
	if len(parts) == 3 {
		rest = `\` + parts[2]
	}
	return parts[0] + `\` + parts[1], rest, nil
}

func shortPrefix(s string) string {
	if len(s) > 12 {
		return s[:12] + "..."
	}
	return s
}

// reserved are the device names Windows resolves in every directory.
var reserved = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true, "CLOCK$": true,
}

// CheckName refuses a single path component Windows would not take as the file it names.
func CheckName(name string) error {
	if name == "" {
		return refuse("empty path component")
	}
	if !utf8.ValidString(name) {
		return refuse("a path component is not valid UTF-8")
	}
	for _, r := range name {
		switch {
		case r < 0x20:
			return refuse("a path component contains a control character")
		case r == ':':
			return refuse("%q has a colon: an alternate data stream or a drive in the middle of a path", name)
		case strings.ContainsRune(`<>"|?*`, r):
			return refuse("%q contains %q, which Windows does not allow in a name", name, r)
		}
	}
	if name != "." && name != ".." {
		if last := name[len(name)-1]; last == '.' || last == ' ' {
			return refuse("%q ends in a dot or a space, which Windows strips (it would name %q)", name, strings.TrimRight(name, ". "))
		}
	}
	if IsReserved(name) {
		return refuse("%q is a reserved device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9), in any directory and with any extension", name)
	}
	return nil
}

// IsReserved reports whether name is one of the device names Windows resolves in every
// directory: the part before the first dot, without trailing spaces, is CON, PRN, AUX, NUL,
// COM0-9 or LPT0-9 (superscript ¹²³ count as digits), CONIN$, CONOUT$ or CLOCK$.
func IsReserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	if reserved[base] {
		return true
	}
	if strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT") {
		d := base[3:]
		switch d {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// Guard returns the guard form of an absolute path ("/C:/a/b", "/UNC/server/share/a"); a
// relative path is slash-separated ("a/b", "../x").
func (p Path) Guard() string {
	var b strings.Builder
	switch p.Kind {
	case Drive:
		b.WriteString("/" + p.Volume)
	case UNC:
		b.WriteString("/UNC/" + strings.ReplaceAll(p.Volume, `\`, "/"))
	}
	for i, e := range p.Elems {
		if i > 0 || p.Kind != Relative {
			b.WriteByte('/')
		}
		b.WriteString(e)
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

// ToGuard parses a native path and returns its guard form.
func ToGuard(p string) (string, error) {
	parsed, err := Parse(p)
	if err != nil {
		return "", err
	}
	return parsed.Guard(), nil
}

// Native turns a guard-form path back into a Windows path: "/C:/a" is C:\a, "/C:" is C:\,
// "/UNC/server/share/a" is \\server\share\a. "/" and the incomplete UNC prefixes ("/UNC",
// "/UNC/server") name nothing on Windows and come back as they are, so that opening them fails.
// A relative guard path gets backslashes.
func Native(g string) string {
	if !strings.HasPrefix(g, "/") {
		return strings.ReplaceAll(g, "/", `\`)
	}
	rest := g[1:]
	if len(rest) >= 2 && isLetter(rest[0]) && rest[1] == ':' && (len(rest) == 2 || rest[2] == '/') {
		if len(rest) == 2 {
			return rest + `\`
		}
		return rest[:2] + strings.ReplaceAll(rest[2:], "/", `\`)
	}
	if strings.HasPrefix(rest, "UNC/") {
		parts := strings.SplitN(rest[4:], "/", 3)
		if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
			return `\\` + strings.ReplaceAll(rest[4:], "/", `\`)
		}
	}
	return g
}

// Fold maps s to the form NTFS compares names in: each code point upper-cased on its own (the
// volume's up-case table is the simple mapping; no special casing such as ß to SS).
func Fold(s string) string {
	return strings.Map(unicode.ToUpper, s)
}

// Equal reports whether two guard-form paths name the same entry on a case-insensitive volume.
func Equal(a, b string) bool { return a == b || Fold(a) == Fold(b) }

// Within reports whether guard-form path p is dir or below it, folding case. Containment is
// separator-aware: /C:/w/proj does not contain /C:/w/proj_evil.
func Within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	fp, fd := Fold(p), Fold(dir)
	return fp == fd || len(fp) > len(fd) && fp[len(fd)] == '/' && strings.HasPrefix(fp, fd)
}
