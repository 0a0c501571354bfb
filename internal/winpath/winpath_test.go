package winpath

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"drive", `C:\Users\me\proj`, "/C:/Users/me/proj"},
		{"drive letter lower-case", `c:\x`, "/C:/x"},
		{"forward slashes", `C:/Users/me`, "/C:/Users/me"},
		{"mixed separators", `C:\Users/me\proj`, "/C:/Users/me/proj"},
		{"drive root", `C:\`, "/C:"},
		{"doubled separators", `C:\\a\\\b`, "/C:/a/b"},
		{"dot components", `C:\a\.\b\.`, "/C:/a/b"},
		{"dot-dot kept for the guard", `C:\a\..\b`, "/C:/a/../b"},
		{"UNC", `\\server\share\dir\f.txt`, "/UNC/server/share/dir/f.txt"},
		{"UNC share root", `\\server\share`, "/UNC/server/share"},
		{"UNC forward slashes", `//server/share/x`, "/UNC/server/share/x"},
		{"long drive", `\\?\C:\Users\me`, "/C:/Users/me"},
		{"long UNC", `\\?\UNC\server\share\x`, "/UNC/server/share/x"},
		{"NT object drive", `\??\D:\x`, "/D:/x"},
		{"relative", `src\main.go`, "src/main.go"},
		{"relative up", `..\other`, "../other"},
		{"dot", `.`, "."},
		{"name like a device but longer", `CONSOLE.txt`, "CONSOLE.txt"},
		{"COM10 is not a device", `COM10`, "COM10"},
		{"LPT without digit", `LPT`, "LPT"},
		{"dots inside a name", `a..b\c.d`, "a..b/c.d"},
		{"leading dot", `C:\.git\config`, "/C:/.git/config"},
		{"unicode", `C:\Benutzer\Jürgen`, "/C:/Benutzer/Jürgen"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToGuard(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("ToGuard(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	cases := []struct {
		name, in, reason string
	}{
		{"empty", ``, "empty"},
		{"NUL byte", "C:\\a\x00b", "NUL byte"},
		{"drive-relative", `C:foo\bar`, "drive-relative"},
		{"bare drive", `C:`, "drive-relative"},
		{"rooted without drive", `\Windows\System32`, "without a drive"},
		{"rooted with slash", `/etc/passwd`, "without a drive"},
		{"device namespace", `\\.\PhysicalDrive0`, "device namespace"},
		{"device namespace pipe", `\\.\pipe\toolhost`, "device namespace"},
		{"globalroot", `\\?\GLOBALROOT\Device\HarddiskVolume1\x`, "device namespace"},
		{"volume GUID", `\\?\Volume{01234567-89ab-cdef-0123-456789abcdef}\x`, "device namespace"},
		{"UNC without share", `\\server`, "server and a share"},
		{"UNC empty server", `\\\share\x`, "server and a share"},
		{"UNC dot-dot share", `\\server\..\x`, "cannot be"},
		{"long UNC without share", `\\?\UNC\server`, "server and a share"},
		{"NUL", `C:\proj\NUL`, "reserved"},
		{"nul lower-case", `nul`, "reserved"},
		{"NUL with extension", `C:\proj\nul.txt`, "reserved"},
		{"CON with trailing space", `C:\proj\CON .txt`, "reserved"},
		{"COM1", `COM1`, "reserved"},
		{"COM9 with extension", `com9.log`, "reserved"},
		{"COM0", `COM0`, "reserved"},
		{"LPT superscript", `LPT¹`, "reserved"},
		{"COM superscript with extension", `COM³.txt`, "reserved"},
		{"CONIN$", `CONIN$`, "reserved"},
		{"AUX in the middle", `C:\a\aux\b`, "reserved"},
		{"UNC server reserved", `\\srv\prn\x`, "reserved"},
		{"alternate data stream", `C:\proj\notes.txt:hidden`, "colon"},
		{"ADS default stream", `secret.txt::$DATA`, "colon"},
		{"colon in the middle", `C:\a\C:\b`, "colon"},
		{"trailing dot", `C:\proj\.git.\config`, "ends in a dot"},
		{"trailing space", `C:\proj\.git \hooks`, "ends in a dot or a space"},
		{"trailing dots", `secret...`, "ends in a dot"},
		{"wildcard", `C:\a\*.txt`, "does not allow"},
		{"question mark", `C:\a?`, "does not allow"},
		{"pipe", `a|b`, "does not allow"},
		{"control character", "a\x01b", "control character"},
		{"invalid UTF-8", "a\xffb", "UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToGuard(tc.in)
			if err == nil {
				t.Fatalf("ToGuard(%q) = %q, want a refusal (%s)", tc.in, got, tc.reason)
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("ToGuard(%q) error = %v, want one that says %q", tc.in, err, tc.reason)
			}
		})
	}
}

func TestNative(t *testing.T) {
	cases := []struct{ in, want string }{
		{"/C:/Users/me", `C:\Users\me`},
		{"/C:", `C:\`},
		{"/UNC/server/share/x", `\\server\share\x`},
		{"/UNC/server/share", `\\server\share`},
		// Prefixes that name nothing on Windows stay unusable.
		{"/UNC/server", "/UNC/server"},
		{"/UNC", "/UNC"},
		{"/", "/"},
		{"/CC:/x", "/CC:/x"},
		{"a/b", `a\b`},
	}
	for _, tc := range cases {
		if got := Native(tc.in); got != tc.want {
			t.Errorf("Native(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Native undoes ToGuard for every absolute path ToGuard accepts.
	for _, in := range []string{`C:\Users\me\proj`, `\\server\share\dir`, `D:\`} {
		g, err := ToGuard(in)
		if err != nil {
			t.Fatal(err)
		}
		if back := Native(g); back != in {
			t.Errorf("Native(ToGuard(%q)) = %q", in, back)
		}
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		p, dir string
		want   bool
	}{
		{"/C:/w/proj", "/C:/w/proj", true},
		{"/C:/w/proj/a", "/C:/w/proj", true},
		{"/C:/W/PROJ/A", "/C:/w/proj", true},
		{"/C:/w/proj/.GIT/hooks", "/C:/w/proj/.git", true},
		{"/c:/w/proj", "/C:/w/proj", true},
		{"/C:/w/proj_evil", "/C:/w/proj", false},
		{"/C:/w/pro", "/C:/w/proj", false},
		{"/C:/w", "/C:/w/proj", false},
		{"/D:/w/proj", "/C:/w/proj", false},
		{"/UNC/srv/share/w", "/C:/w", false},
		{"/UNC/SRV/Share/w/x", "/UNC/srv/share/w", true},
		{"/C:/Benutzer/JÜRGEN/x", "/C:/Benutzer/jürgen", true},
		{"/C:/x", "/", true},
	}
	for _, tc := range cases {
		if got := Within(tc.p, tc.dir); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.p, tc.dir, got, tc.want)
		}
	}
	if !Equal("/C:/A", "/c:/a") || Equal("/C:/a", "/C:/b") {
		t.Error("Equal does not fold case")
	}
}

func TestIsReservedLimits(t *testing.T) {
	// Each side of each limit: the digit range, the extension, the trailing spaces.
	cases := []struct {
		name string
		want bool
	}{
		{"COM1", true}, {"COM9", true}, {"COM10", false}, {"COMA", false}, {"COM", false},
		{"LPT0", true}, {"LPT9.txt", true}, {"LPT09", false},
		{"NUL", true}, {"NUL.", true}, {"NUL.tar.gz", true}, {"NULL", false}, {"xNUL", false},
		{"CON  ", true}, {" CON", false}, {"CLOCK$", true}, {"CLOCK", false},
	}
	for _, tc := range cases {
		if got := IsReserved(tc.name); got != tc.want {
			t.Errorf("IsReserved(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`C:\a\b`, `\\s\sh\x`, `\\?\C:\x`, `a\..\b`, `NUL`, `x:y`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ToGuard(s)
		if err != nil {
			return
		}
		// What is accepted never holds a character Windows rewrites or a stream.
		for _, e := range strings.Split(g, "/") {
			if e == "" || e == ".." || e == "." {
				continue
			}
			if strings.HasSuffix(e, ".") || strings.HasSuffix(e, " ") || IsReserved(e) {
				t.Fatalf("ToGuard(%q) = %q keeps component %q", s, g, e)
			}
		}
		// An absolute guard path maps back to a native path that parses to the same guard form.
		if strings.HasPrefix(g, "/") {
			if again, err := ToGuard(Native(g)); err != nil || again != g {
				t.Fatalf("ToGuard(Native(%q)) = %q, %v", g, again, err)
			}
		}
	})
}
