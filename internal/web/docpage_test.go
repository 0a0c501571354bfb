package web

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Sentinels mark where text comes from in the generated page, so tests can tell kept content
// from dropped furniture.
const (
	sentinelMain   = "MAINCONTENTMARK"
	sentinelNav    = "NAVMARK"
	sentinelScript = "SCRIPTMARK"
	sentinelFooter = "FOOTERMARK"
)

var docWords = strings.Fields(`the server client request response handler context deadline cancel
configuration option value returns error nil string bytes buffer stream reader writer close
connection transport proxy header body status redirect timeout retry backoff limit cache key
index query result page token budget model tool operation parameter schema validation field
default optional required example note warning see also section function method type struct
interface package module version release build test benchmark profile memory allocation`)

// docPage generates a documentation page the way static-site generators render one: a large
// inline stylesheet, a hydration data blob, a header, a long navigation sidebar, the article
// (headings, paragraphs with inline code and links, highlighted code blocks, tables, notes), an
// on-page table of contents, a footer and trailing scripts. It is deterministic for a seed and
// about size bytes long.
func docPage(seed uint64, size int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = docWords[r.IntN(len(docWords))]
		}
		w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
		return strings.Join(w, " ") + "."
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Transport configuration — Example Docs</title>`)
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/main.css"><style>`)
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&b, ".c%d{margin:%dpx;padding:%dpx;color:#%06x;font-family:Inter,system-ui,sans-serif}", i, r.IntN(32), r.IntN(16), r.IntN(1<<24))
	}
	b.WriteString(`</style><script>window.__DATA__=` + "{")
	for i := 0; i < 900; i++ {
		fmt.Fprintf(&b, `"route%d":{"title":"%s","path":"/docs/section-%d/page-%d","hash":"%x"},`, i, sentinelScript, i%40, i, r.Uint64())
	}
	b.WriteString(`"end":1};</script></head><body><div id="__next">`)
	b.WriteString(`<header class="site-header"><a href="/" class="logo">Example Docs</a><nav class="top-nav">`)
	for _, s := range []string{"Guides", "Reference", "API", "Examples", "Blog", "Community", "Pricing", "Sign in"} {
		fmt.Fprintf(&b, `<a class="top-link" href="/%s">%s %s</a>`, strings.ToLower(s), s, sentinelNav)
	}
	b.WriteString(`</nav><form role="search"><input type="search" placeholder="Search docs"><button>Search</button></form></header>`)
	b.WriteString(`<div class="layout"><aside class="sidebar"><nav aria-label="Docs navigation"><ul class="nav-root">`)
	for s := 0; s < 28; s++ {
		fmt.Fprintf(&b, `<li class="nav-section"><span class="nav-title">Section %d %s</span><ul>`, s, sentinelNav)
		for p := 0; p < 14; p++ {
			fmt.Fprintf(&b, `<li class="nav-item"><a class="nav-link c%d" href="/docs/section-%d/page-%d" data-track="nav">%s %s</a></li>`,
				r.IntN(600), s, p, strings.TrimSuffix(sentence(3), "."), sentinelNav)
		}
		b.WriteString(`</ul></li>`)
	}
	b.WriteString(`</ul></nav></aside><main class="content"><article class="doc">`)
	b.WriteString(`<h1 id="transport">Transport configuration</h1>`)
	fmt.Fprintf(&b, `<p class="lead">%s %s</p>`, sentinelMain, sentence(24))
	sec := 0
	for b.Len() < size*85/100 {
		sec++
		fmt.Fprintf(&b, `<h2 id="s%d"><a class="anchor" href="#s%d" aria-hidden="true">#</a>Section %d: %s</h2>`, sec, sec, sec, strings.TrimSuffix(sentence(4), "."))
		for p := 0; p < 4; p++ {
			fmt.Fprintf(&b, `<p>%s %s <code>Option%d</code> %s <a href="/docs/reference/item-%d">%s</a> %s</p>`,
				sentinelMain, sentence(18), r.IntN(99), sentence(12), r.IntN(500), strings.TrimSuffix(sentence(3), "."), sentence(16))
		}
		b.WriteString(`<div class="code-block"><div class="code-toolbar"><button class="copy">Copy</button></div><pre class="chroma"><code class="language-go">`)
		for l := 0; l < 14; l++ {
			fmt.Fprintf(&b, `<span class="line"><span class="kd">func</span> <span class="nx">handle%d</span><span class="p">(</span><span class="nx">ctx</span> <span class="nx">context</span><span class="p">.</span><span class="nx">Context</span><span class="p">)</span> <span class="kt">error</span> <span class="p">{</span> <span class="k">return</span> <span class="kc">nil</span> <span class="p">}</span></span>`+"\n", l)
		}
		b.WriteString(`</code></pre></div>`)
		if sec%3 == 0 {
			b.WriteString(`<table class="params"><thead><tr><th>Name</th><th>Type</th><th>Description</th></tr></thead><tbody>`)
			for row := 0; row < 6; row++ {
				fmt.Fprintf(&b, `<tr><td><code>field%d</code></td><td>string</td><td>%s</td></tr>`, row, sentence(10))
			}
			b.WriteString(`</tbody></table>`)
		}
		fmt.Fprintf(&b, `<div class="admonition note"><p class="admonition-title">Note</p><p>%s %s</p></div>`, sentinelMain, sentence(20))
	}
	b.WriteString(`</article><nav class="pager"><a href="/docs/prev">Previous ` + sentinelNav + `</a><a href="/docs/next">Next ` + sentinelNav + `</a></nav></main>`)
	b.WriteString(`<aside class="toc"><p>On this page ` + sentinelNav + `</p><ul>`)
	for i := 1; i <= sec; i++ {
		fmt.Fprintf(&b, `<li><a href="#s%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></aside></div><footer class="site-footer">`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `<a href="/legal/%d">Footer link %d %s</a>`, i, i, sentinelFooter)
	}
	b.WriteString(`<p>© Example, Inc. ` + sentinelFooter + `</p></footer></div>`)
	for b.Len() < size {
		fmt.Fprintf(&b, `<script>(function(){var s="%s";window.track&&window.track("%x",s);})();</script>`, sentinelScript, r.Uint64())
	}
	b.WriteString(`</body></html>`)
	return b.String()
}
