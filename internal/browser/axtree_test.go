package browser

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"

	"toolhost/internal/golden"
)

// TestSnapshotAgreesAcrossChromiumVersions: every page under testdata/axtree was recorded
// with several Chromium versions (cmd/axrecord); each recording must render to the one
// snapshot the golden pins, so what the model reads does not change when the OS updates its
// browser. Refs are backend node ids, which differ between runs, so they are normalised.
func TestSnapshotAgreesAcrossChromiumVersions(t *testing.T) {
	pages, err := filepath.Glob("testdata/axtree/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under testdata/axtree (%v)", err)
	}
	refs := regexp.MustCompile(`ref=e\d+`)
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".html")
		t.Run(name, func(t *testing.T) {
			recordings, _ := filepath.Glob("testdata/axtree/" + name + ".chromium-*.json")
			if len(recordings) < 2 {
				t.Fatalf("%d recordings of %s, want at least two Chromium versions (go run ./internal/browser/cmd/axrecord)", len(recordings), name)
			}
			first, firstText := "", ""
			for _, rec := range recordings {
				b, err := os.ReadFile(rec)
				if err != nil {
					t.Fatal(err)
				}
				var r struct {
					Browser string                `json:"browser"`
					Nodes   []*accessibility.Node `json:"nodes"`
				}
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatalf("%s: %v", rec, err)
				}
				text := refs.ReplaceAllString(renderTree(r.Nodes), "ref=eN") + "\n"
				if first == "" {
					first, firstText = r.Browser, text
					golden.CheckString(t, filepath.Join("testdata", "axtree", name+".snapshot"), text)
					continue
				}
				if text != firstText {
					t.Errorf("%s renders\n%s\n%s renders\n%s", first, firstText, r.Browser, text)
				}
			}
		})
	}
}
