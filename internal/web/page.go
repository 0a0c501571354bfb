package web

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
	"toolhost/internal/lazyregexp"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PageOptions are fetch_page's options.
type PageOptions struct {
	// Raw returns the HTML itself (decoded) instead of Markdown; with Selector, only the
	// matching elements' HTML.
	Raw bool
	// Selector converts only the elements matching a CSS selector, instead of the readable
	// article. A text or Markdown body is returned whole, with a note that it was not applied.
	Selector string
	MaxBytes int64
	Timeout  time.Duration
	Headers  map[string]string
}

// Page is a fetched page as Markdown.
type Page struct {
	URL       string // after redirects
	Title     string
	Text      string   // Markdown (or the raw HTML, or the text as served)
	Links     []string // absolute URLs, numbered from 1 in the order the text refers to them
	Kind      string   // "article", "selection", "document" (readability found no article), "html", "text"
	Truncated bool     // the body was longer than the cap and was cut before conversion
	Note      string
	Bytes     int // body bytes received
	Status    int
}

// PageAccept is the Accept header of fetch_page.
const PageAccept = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5"

// FetchPage GETs a URL and returns its main content as Markdown with numbered links. Plain text
// and Markdown pass through; PDFs and other binary bodies are refused with CodeUnsupportedContent.
func (c *Client) FetchPage(ctx context.Context, rawURL string, o PageOptions) (*Page, error) {
	if o.Selector != "" {
		if _, err := compileSelector(o.Selector); err != nil {
			return nil, err
		}
	}
	resp, err := c.Do(ctx, Request{Method: "GET", URL: rawURL, Headers: o.Headers, Timeout: o.Timeout, MaxBytes: o.MaxBytes, Accept: PageAccept})
	if err != nil {
		return nil, err
	}
	p := &Page{URL: Redact(resp.URL), Truncated: resp.Truncated, Bytes: len(resp.Body), Status: resp.StatusCode}
	mt := resp.ContentType
	if mt == "" {
		mt = sniffPage(resp.Body)
	}
	switch {
	case mt == "application/pdf" || bytes.HasPrefix(resp.Body, []byte("%PDF-")):
		return nil, &Error{Code: CodeUnsupportedContent, Message: fmt.Sprintf("%s is a PDF (%d bytes); fetch_page does not extract PDFs", p.URL, len(resp.Body)),
			Next: "save it with download and read it with a PDF tool in a terminal"}
	case mt == "text/html" || mt == "application/xhtml+xml":
		text, note := decodeCharset(resp.Body, "text/html", resp.Charset)
		p.Note = note
		if o.Raw {
			p.Kind, p.Text = "html", text
			if o.Selector != "" {
				sel, err := selectHTML(text, o.Selector, p.URL)
				if err != nil {
					return nil, err
				}
				p.Text = sel
			}
			return p, nil
		}
		if err := extractInto(p, text, resp.URL, o.Selector); err != nil {
			return nil, err
		}
		return p, nil
	case IsText(mt):
		t := DecodeBody(resp.Body, mt, resp.Charset)
		p.Kind, p.Text, p.Note = "text", t.Text, t.Note
		if o.Selector != "" {
			p.Note = strings.TrimPrefix(p.Note+"; ", "; ") + fmt.Sprintf("selector not applied: the body is %s, not HTML", mt)
		}
		return p, nil
	}
	return nil, &Error{Code: CodeUnsupportedContent, Message: fmt.Sprintf("%s is %s (%d bytes), not a page", p.URL, mt, len(resp.Body)),
		Next: "save it with download, or use http_request to see its headers"}
}

func sniffPage(b []byte) string {
	if looksBinary(b) {
		return "application/octet-stream"
	}
	head := strings.ToLower(string(b[:min(len(b), 1024)]))
	if strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html") || strings.Contains(head, "<body") {
		return "text/html"
	}
	return "text/plain"
}

// Extract converts an HTML document to a Page (readability, or the selection), for callers that
// already have the HTML (the benchmark, the browser).
func Extract(htmlText string, base *url.URL, selector string) (*Page, error) {
	p := &Page{URL: Redact(base), Bytes: len(htmlText)}
	if err := extractInto(p, htmlText, base, selector); err != nil {
		return nil, err
	}
	return p, nil
}

func extractInto(p *Page, htmlText string, base *url.URL, selector string) error {
	doc, err := html.Parse(strings.NewReader(htmlText))
	if err != nil {
		return &Error{Code: CodeUnsupportedContent, Message: "the page's HTML does not parse", Err: err}
	}
	title := documentTitle(doc)
	stripNoise(doc)
	var roots []*html.Node
	switch {
	case selector != "":
		sel, err := compileSelector(selector)
		if err != nil {
			return err
		}
		roots = outermost(sel.MatchAll(doc))
		if len(roots) == 0 {
			return &Error{Code: CodeInvalidValue, Message: fmt.Sprintf("selector %q matches nothing on %s", shorten(selector, 80), p.URL),
				Next: "fetch without selector to see the page, or try a broader selector"}
		}
		p.Kind = "selection"
	default:
		// Navigation is never the article; dropping it first spares readability from scoring
		// thousands of sidebar links (a third of its time on a typical docs page).
		removeWhere(doc, isNavigation)
		parser := readability.NewParser()
		parser.DisableJSONLD = true
		article, err := parser.ParseAndMutate(doc, base)
		if err == nil && article.Node != nil && len(strings.TrimSpace(textOf(article.Node))) >= 200 {
			roots, p.Kind = []*html.Node{article.Node}, "article"
			if t := strings.TrimSpace(article.Title()); t != "" {
				title = t
			}
		} else {
			// No article: convert the whole body without the page furniture.
			doc, _ = html.Parse(strings.NewReader(htmlText))
			stripNoise(doc)
			stripFurniture(doc)
			roots, p.Kind = []*html.Node{bodyOf(doc)}, "document"
		}
	}
	links := &linkTable{base: base, index: map[string]int{}}
	var md strings.Builder
	for i, r := range roots {
		links.number(r)
		out, err := converter().ConvertNode(r, htmltomarkdown.WithDomain(base.String()))
		if err != nil {
			return &Error{Code: CodeUnsupportedContent, Message: "the page could not be converted to Markdown", Err: err}
		}
		if i > 0 {
			md.WriteString("\n\n")
		}
		md.Write(bytes.TrimSpace(out))
	}
	p.Title = strings.Join(strings.Fields(title), " ")
	p.Text = tidyMarkdown(md.String())
	p.Links = links.urls
	return nil
}

// selectHTML returns the HTML of the elements of htmlText that selector matches (the outermost
// ones, one per line), as parsed and serialised again: raw fetch_page with a selector.
func selectHTML(htmlText, selector, where string) (string, error) {
	sel, err := compileSelector(selector)
	if err != nil {
		return "", err
	}
	doc, err := html.Parse(strings.NewReader(htmlText))
	if err != nil {
		return "", &Error{Code: CodeUnsupportedContent, Message: "the page's HTML does not parse", Err: err}
	}
	nodes := outermost(sel.MatchAll(doc))
	if len(nodes) == 0 {
		return "", &Error{Code: CodeInvalidValue, Message: fmt.Sprintf("selector %q matches nothing on %s", shorten(selector, 80), where),
			Next: "fetch without selector to see the page, or try a broader selector"}
	}
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		if err := html.Render(&b, n); err != nil {
			return "", &Error{Code: CodeUnsupportedContent, Message: "the selection could not be written as HTML", Err: err}
		}
	}
	return b.String(), nil
}

func compileSelector(s string) (cascadia.Selector, error) {
	if len(s) > 500 {
		return nil, &Error{Code: CodeInvalidValue, Message: "selector is longer than 500 bytes"}
	}
	sel, err := cascadia.Compile(s)
	if err != nil {
		return nil, &Error{Code: CodeInvalidValue, Message: fmt.Sprintf("selector %q is not valid CSS: %v", shorten(s, 80), err),
			Next: "use a CSS selector such as main, article, #content or .docs-body"}
	}
	return sel, nil
}

// outermost drops matches inside other matches, so nested elements are converted once.
func outermost(nodes []*html.Node) []*html.Node {
	in := make(map[*html.Node]bool, len(nodes))
	for _, n := range nodes {
		in[n] = true
	}
	var out []*html.Node
	for _, n := range nodes {
		nested := false
		for p := n.Parent; p != nil && !nested; p = p.Parent {
			nested = in[p]
		}
		if !nested {
			out = append(out, n)
		}
	}
	return out
}

var (
	convOnce sync.Once
	conv     *htmltomarkdown.Converter
)

func converter() *htmltomarkdown.Converter {
	convOnce.Do(func() {
		conv = htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(
			base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin(),
		))
	})
	return conv
}

// noiseTags never carry readable content.
var noiseTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Link: true, atom.Meta: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Form: true, atom.Button: true, atom.Input: true, atom.Select: true, atom.Textarea: true,
}

// furnitureTags frame a page rather than tell its content.
var furnitureTags = map[atom.Atom]bool{atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true}

func stripNoise(n *html.Node) {
	removeWhere(n, func(c *html.Node) bool { return noiseTags[c.DataAtom] || isHidden(c) })
	flattenCode(n)
}

// flattenCode replaces the contents of each <pre> (often one <span> per highlighted token) with
// its text in a single <code>: the Markdown is the same, and the extraction has far fewer nodes
// to walk.
func flattenCode(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom != atom.Pre {
			flattenCode(c)
			continue
		}
		text := textOf(c)
		var attrs []html.Attribute
		if first := c.FirstChild; first != nil && first.DataAtom == atom.Code && first.NextSibling == nil {
			attrs = first.Attr
		}
		for c.FirstChild != nil {
			c.RemoveChild(c.FirstChild)
		}
		code := &html.Node{Type: html.ElementNode, Data: "code", DataAtom: atom.Code, Attr: attrs}
		code.AppendChild(&html.Node{Type: html.TextNode, Data: text})
		c.AppendChild(code)
	}
}

func stripFurniture(n *html.Node) {
	removeWhere(n, func(c *html.Node) bool {
		if furnitureTags[c.DataAtom] {
			return true
		}
		for _, a := range c.Attr {
			if a.Key == "role" && (a.Val == "navigation" || a.Val == "banner" || a.Val == "contentinfo") {
				return true
			}
		}
		return false
	})
}

func isNavigation(n *html.Node) bool {
	if n.DataAtom == atom.Nav {
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "role" && a.Val == "navigation" {
			return true
		}
	}
	return false
}

func isHidden(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" || a.Key == "aria-hidden" && a.Val == "true" {
			return true
		}
	}
	return false
}

func removeWhere(n *html.Node, drop func(*html.Node) bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.CommentNode || c.Type == html.ElementNode && drop(c) {
			n.RemoveChild(c)
		} else {
			removeWhere(c, drop)
		}
		c = next
	}
}

func documentTitle(doc *html.Node) string {
	var title string
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			title = textOf(n)
			return true
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(doc)
	return title
}

func bodyOf(doc *html.Node) *html.Node {
	var found *html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if found != nil {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			found = n
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if found == nil {
		return doc
	}
	return found
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// linkTable numbers links: each anchor becomes its text followed by [n], and the URLs are listed
// once at the end, so a link costs a few tokens in the text however long its URL is.
type linkTable struct {
	base  *url.URL
	index map[string]int
	urls  []string
}

func (l *linkTable) number(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch c.DataAtom {
			case atom.A:
				l.replaceAnchor(c)
			case atom.Img:
				replaceImage(c)
			default:
				l.number(c)
			}
		}
		c = next
	}
}

func (l *linkTable) replaceAnchor(a *html.Node) {
	l.number(a)
	href := ""
	for _, at := range a.Attr {
		if at.Key == "href" {
			href = strings.TrimSpace(at.Val)
		}
	}
	parent := a.Parent
	var ref string
	if u, err := l.base.Parse(href); err == nil && href != "" && !strings.HasPrefix(href, "#") && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto") {
		u.Fragment = ""
		if u.Scheme != "mailto" && u.String() == l.base.String() {
			ref = ""
		} else {
			key := u.String()
			n, ok := l.index[key]
			if !ok {
				l.urls = append(l.urls, key)
				n = len(l.urls)
				l.index[key] = n
			}
			// Private-use marks survive the conversion unescaped; Markdown would escape "[".
			ref = fmt.Sprintf(" %c%d%c", refOpen, n, refClose)
		}
	}
	// Move the anchor's children before it, then the reference, then drop the anchor.
	for c := a.FirstChild; c != nil; {
		next := c.NextSibling
		a.RemoveChild(c)
		parent.InsertBefore(c, a)
		c = next
	}
	if ref != "" {
		parent.InsertBefore(&html.Node{Type: html.TextNode, Data: ref}, a)
	}
	parent.RemoveChild(a)
}

// replaceImage keeps an image's alt text and drops the image (its URL costs tokens and a model
// cannot see it here).
func replaceImage(img *html.Node) {
	alt := ""
	for _, at := range img.Attr {
		if at.Key == "alt" {
			alt = strings.TrimSpace(at.Val)
		}
	}
	if alt != "" {
		img.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: "(image: " + alt + ")"}, img)
	}
	img.Parent.RemoveChild(img)
}

// refOpen and refClose bracket a link number until the Markdown is written.
const (
	refOpen  = '\uE000'
	refClose = '\uE001'
)

var (
	manyBlankLines = lazyregexp.New(`\n{3,}`)
	refMarks       = strings.NewReplacer(string(refOpen), "[", string(refClose), "]")
)

func tidyMarkdown(s string) string {
	return strings.TrimSpace(manyBlankLines.ReplaceAllString(refMarks.Replace(s), "\n\n"))
}

// Render formats a page for the model: title, URL, the text, and the numbered links.
func (p *Page) Render() string {
	var b strings.Builder
	if p.Title != "" {
		fmt.Fprintf(&b, "# %s\n", p.Title)
	}
	fmt.Fprintf(&b, "%s\n", p.URL)
	if p.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", p.Note)
	}
	if p.Truncated {
		fmt.Fprintf(&b, "note: the page was cut at %d bytes before conversion\n", p.Bytes)
	}
	b.WriteString("\n")
	b.WriteString(p.Text)
	if len(p.Links) > 0 {
		b.WriteString("\n\nLinks:\n")
		for i, u := range p.Links {
			fmt.Fprintf(&b, "[%d] %s\n", i+1, u)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
