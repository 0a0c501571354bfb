package authz

import (
	"errors"
	"runtime"
	"strings"

	"toolhost/internal/winpath"
)

// foldNames is set where the usual file system compares names without regard to case (APFS
// and HFS+ on macOS, NTFS on Windows): a protected or secret path then also matches every other
// spelling of its case (~/.SSH is ~/.ssh), which only ever refuses more. Containment in the
// working directory and in grants stays exact: resolution reads the stored names of what exists
// (diskName), and a missing component spelled differently is outside, the safe side.
const foldNames = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// ruleWithin is within for the deny side: protected and secret rules. fold is foldNames.
func ruleWithin(p, dir string, fold bool) bool {
	return within(p, dir) || fold && winpath.Within(p, dir)
}

// windowsGuardPath is guardPath on Windows, kept free of system calls so that it runs in tests on
// every platform: a native path goes through the Windows path model (package winpath), a
// guard-form path ("/C:/...", as the guard hands out) is checked the same way, and a refusal is a
// path error the model can fix.
func windowsGuardPath(p string) (string, error) {
	in := p
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		if n := winpath.Native(p); n != p {
			in = n
		}
	}
	g, err := winpath.ToGuard(in)
	if err != nil {
		var re *winpath.RefusedError
		if errors.As(err, &re) {
			return "", &pathErr{"invalid_path", re.Reason}
		}
		return "", err
	}
	return g, nil
}
