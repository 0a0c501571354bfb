package browser

import (
	"path/filepath"
)

// installedBrowsers are where Chrome, Chromium and the other Chromium-based browsers install
// themselves outside PATH, for goos: macOS app bundles in /Applications and ~/Applications,
// Windows' Program Files and per-user AppData. toolhost starts them with a profile of its own
// (a temporary --user-data-dir), never the user's.
func installedBrowsers(goos, home string, getenv func(string) string) []string {
	switch goos {
	case "darwin":
		bundles := []string{
			"Google Chrome.app/Contents/MacOS/Google Chrome",
			"Chromium.app/Contents/MacOS/Chromium",
			"Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
			"Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"Brave Browser.app/Contents/MacOS/Brave Browser",
		}
		var out []string
		roots := []string{"/Applications"}
		if home != "" {
			roots = append(roots, filepath.Join(home, "Applications"))
		}
		for _, root := range roots {
			for _, b := range bundles {
				out = append(out, root+"/"+b)
			}
		}
		return out
	case "windows":
		var out []string
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			base := getenv(env)
			if base == "" {
				continue
			}
			out = append(out,
				base+`\Google\Chrome\Application\chrome.exe`,
				base+`\Chromium\Application\chrome.exe`,
				base+`\Microsoft\Edge\Application\msedge.exe`,
				base+`\BraveSoftware\Brave-Browser\Application\brave.exe`)
		}
		return out
	}
	return nil
}
