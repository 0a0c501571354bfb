package browser

import (
	"slices"
	"testing"
)

func TestInstalledBrowsers(t *testing.T) {
	env := map[string]string{"ProgramFiles": `C:\Program Files`, "LocalAppData": `C:\Users\me\AppData\Local`}
	getenv := func(k string) string { return env[k] }
	mac := installedBrowsers("darwin", "/Users/me", getenv)
	for _, want := range []string{
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		"/Applications/Chromium.app/Contents/MacOS/Chromium",
		"/Users/me/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
	} {
		if !slices.Contains(mac, want) {
			t.Errorf("macOS candidates lack %q", want)
		}
	}
	if mac[0] != "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" {
		t.Errorf("macOS looks first at %q, want Google Chrome in /Applications", mac[0])
	}
	win := installedBrowsers("windows", `C:\Users\me`, getenv)
	for _, want := range []string{`C:\Program Files\Google\Chrome\Application\chrome.exe`, `C:\Users\me\AppData\Local\Google\Chrome\Application\chrome.exe`, `C:\Program Files\Microsoft\Edge\Application\msedge.exe`} {
		if !slices.Contains(win, want) {
			t.Errorf("Windows candidates lack %q", want)
		}
	}
	for _, c := range win {
		if len(c) > 0 && c[0] == '\\' {
			t.Errorf("candidate %q lost its drive (an unset variable)", c)
		}
	}
	if got := installedBrowsers("linux", "/home/me", getenv); got != nil {
		t.Errorf("Linux candidates = %v, want PATH only", got)
	}
}
