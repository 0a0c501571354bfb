package web

import (
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"golang.org/x/net/html"
	"toolhost/internal/golden"
)

func o200k(t testing.TB) *tiktoken.Tiktoken {
	t.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestFetchPageDocPage: a 500 KB documentation page keeps its article and drops navigation,
// scripts and the footer, and the Markdown costs at most a quarter of the HTML's tokens.
func TestFetchPageDocPage(t *testing.T) {
	page := docPage(1, 500<<10)
	f := newFixture(t, fixtureOpts{allow: []string{"docs.test"}})
	base := f.serve(t, "docs.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	p, err := f.c.FetchPage(ctxFor(), base+"/docs/transport", PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := p.Render()
	if p.Kind != "article" || p.Title == "" {
		t.Errorf("kind %q title %q, want an article with a title", p.Kind, p.Title)
	}
	kept := strings.Count(out, sentinelMain)
	if want := strings.Count(page, sentinelMain); kept < want*95/100 {
		t.Errorf("kept %d of %d main-content paragraphs", kept, want)
	}
	for _, s := range []string{sentinelNav, sentinelScript, sentinelFooter, "font-family", "window.track"} {
		if strings.Contains(out, s) {
			t.Errorf("output contains %q, which is page furniture", s)
		}
	}
	if !strings.Contains(out, "func handle3(ctx context.Context) error") || !strings.Contains(out, "| `field0` |") {
		t.Errorf("code blocks or tables lost")
	}
	if !strings.Contains(out, "\nLinks:\n[1] http://docs.test") {
		t.Errorf("no numbered links in\n%s", out[len(out)-min(len(out), 500):])
	}
	enc := o200k(t)
	in, got := len(enc.Encode(page, nil, nil)), len(enc.Encode(out, nil, nil))
	ratio := float64(got) / float64(in)
	t.Logf("HTML %d bytes, %d o200k tokens; Markdown %d bytes, %d tokens (%.1f%%)", len(page), in, len(out), got, 100*ratio)
	if ratio > 0.25 {
		t.Errorf("output is %.1f%% of the HTML's tokens, over 25%%", 100*ratio)
	}
}

// BenchmarkFetchPage measures fetch_page end to end on loopback (request, 500 KB body,
// readability, Markdown) and reports the median.
func BenchmarkFetchPage(b *testing.B) {
	page := docPage(1, 500<<10)
	f := newFixture(b, fixtureOpts{allow: []string{"docs.test"}})
	base := f.serve(b, "docs.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	var durs []time.Duration
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		start := time.Now()
		if _, err := f.c.FetchPage(ctxFor(), base+"/docs/transport", PageOptions{}); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkParseReference is the reference for BenchmarkFetchPage in the same run: only the
// HTML parse of the same page, the floor of any extraction.
func BenchmarkParseReference(b *testing.B) {
	page := docPage(1, 500<<10)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := html.Parse(strings.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPageVariants(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}})
	mux := http.NewServeMux()
	small := `<html><head><title>Small page</title></head><body><nav><a href="/home">Home</a></nav>
<main><h1>Install</h1><p>Run <code>make install</code>, then read <a href="/docs/next#part">the next page</a> and <a href="https://other.example/x">another site</a>.</p>
<p>Again <a href="/docs/next">the next page</a>. <img src="/a.png" alt="diagram of the flow"></p></main><script>var x=1</script></body></html>`
	mux.HandleFunc("/small", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, small) })
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, "%PDF-1.7\n...")
	})
	mux.HandleFunc("/readme.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		io.WriteString(w, "# Readme\n\nplain *markdown*\n")
	})
	mux.HandleFunc("/blob", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		io.WriteString(w, "PK\x03\x04")
	})
	base := f.serve(t, "site.test", mux)
	t.Run("small page golden", func(t *testing.T) {
		p, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(p.Render(), base, "http://site.test")
		checkGolden(t, "small_page.md", got)
	})
	t.Run("selector", func(t *testing.T) {
		p, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Selector: "nav, nav a"})
		if err != nil || p.Kind != "selection" || !strings.Contains(p.Text, "Home [1]") || strings.Contains(p.Text, "Install") {
			t.Errorf("selector: %+v %v", p, err)
		}
		if _, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Selector: "div[[["}); codeOf(err) != CodeInvalidValue {
			t.Errorf("bad selector: %v", err)
		}
		if _, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Selector: "table"}); codeOf(err) != CodeInvalidValue {
			t.Errorf("selector matching nothing: %v", err)
		}
	})
	t.Run("raw", func(t *testing.T) {
		p, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Raw: true})
		if err != nil || p.Text != small {
			t.Errorf("raw: %v", err)
		}
	})
	t.Run("raw with selector", func(t *testing.T) {
		p, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Raw: true, Selector: "nav, nav a, script"})
		want := "<nav><a href=\"/home\">Home</a></nav>\n<script>var x=1</script>"
		if err != nil || p.Kind != "html" || p.Text != want {
			t.Errorf("FetchPage(raw, selector) = %+v, %v; want text %q", p, err, want)
		}
		if _, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Raw: true, Selector: "table"}); codeOf(err) != CodeInvalidValue {
			t.Errorf("raw with a selector matching nothing: %v, want invalid_value", err)
		}
		if _, err := f.c.FetchPage(ctxFor(), base+"/small", PageOptions{Raw: true, Selector: "div[[["}); codeOf(err) != CodeInvalidValue {
			t.Errorf("raw with a bad selector: %v, want invalid_value", err)
		}
	})
	t.Run("selector on a text body", func(t *testing.T) {
		p, err := f.c.FetchPage(ctxFor(), base+"/readme.md", PageOptions{Selector: "main"})
		if err != nil || p.Text != "# Readme\n\nplain *markdown*\n" || !strings.Contains(p.Note, "selector not applied: the body is text/markdown") {
			t.Errorf("FetchPage(markdown, selector) = %+v, %v; want the text whole and a note", p, err)
		}
	})
	t.Run("markdown passes through", func(t *testing.T) {
		p, err := f.c.FetchPage(ctxFor(), base+"/readme.md", PageOptions{})
		if err != nil || p.Text != "# Readme\n\nplain *markdown*\n" {
			t.Errorf("markdown: %+v %v", p, err)
		}
	})
	for _, path := range []string{"/doc.pdf", "/blob"} {
		if _, err := f.c.FetchPage(ctxFor(), base+path, PageOptions{}); codeOf(err) != CodeUnsupportedContent {
			t.Errorf("%s: %v, want unsupported_content", path, err)
		}
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.CheckString(t, filepath.Join("testdata", name), got)
}
