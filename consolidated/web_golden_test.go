package consolidated

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"toolhost/internal/golden"
)

// TestWebGolden pins what the model reads for representative web_operations results.
func TestWebGolden(t *testing.T) {
	h := newWebHarness(t, []string{"site.test"}, true)
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Etag", `"v1"`)
		io.WriteString(w, "{\n  \"items\": [1, 2, 3],\n  \"next\": null\n}\n")
	})
	mux.HandleFunc("/docs", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><html><head><title>Install — Example</title></head><body>
<header><a href="/">Example</a></header><nav><a href="/docs">Docs</a><a href="/blog">Blog</a></nav>
<main><article><h1>Install</h1><p>Download the archive and unpack it. The binary needs no other files; put it on your PATH
and run <code>example init</code> in a project. See <a href="/docs/config">configuration</a> for the options and
<a href="https://other.example/faq">the FAQ</a> for common problems.</p>
<pre><code><span class="k">$</span> example init
<span class="k">$</span> example run</code></pre>
<h2>Upgrading</h2><p>Replace the binary. Settings are kept in the project directory, so nothing else changes between
versions; read the <a href="/docs/changes">change log</a> before a major upgrade.</p></article></main>
<footer>© Example</footer><script>track()</script></body></html>`)
	})
	// The form page is the one whose accessibility tree is recorded with several Chromium
	// versions (internal/browser/testdata/axtree), so the snapshot below is version-proof.
	form, err := os.ReadFile("../internal/browser/testdata/axtree/form.html")
	if err != nil {
		t.Fatal(err)
	}
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) { w.Write(form) })
	base := h.serve("site.test", mux)
	norm := func(s string) string {
		s = regexp.MustCompile(`site\.test:\d+`).ReplaceAllString(s, "site.test:PORT")
		s = regexp.MustCompile(`· \d+ ms`).ReplaceAllString(s, "· N ms")
		s = regexp.MustCompile(`ref=e\d+`).ReplaceAllString(s, "ref=eN")
		return regexp.MustCompile(`"127\.0\.0\.1:\d+"`).ReplaceAllString(s, `"127.0.0.1:PORT"`)
	}
	for _, tc := range []struct {
		file string
		args map[string]any
	}{
		{"http_request.txt", map[string]any{"operation": "http_request", "url": base + "/api"}},
		{"fetch_page.txt", map[string]any{"operation": "fetch_page", "url": base + "/docs"}},
		{"refused.txt", map[string]any{"operation": "fetch_page", "url": "http://127.0.0.1:8080/admin"}},
		{"browser_open.txt", map[string]any{"operation": "browser_open", "url": base + "/form"}},
		{"browser_snapshot.txt", map[string]any{"operation": "browser_snapshot"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text, _ := h.web(tc.args)
			webGolden(t, tc.file, norm(text)+"\n")
		})
	}
}

func webGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.CheckString(t, filepath.Join("testdata", "web_operations", name), got)
}
