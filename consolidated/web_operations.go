package consolidated

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/browser"
	"toolhost/internal/web"
)

// The argument structs. A parameter keeps one type across operations; its description comes from
// the first operation that declares it (table order), so later structs leave it out.

type httpRequestArgs struct {
	URL            string            `json:"url"`
	Method         string            `json:"method,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	Body           string            `json:"body,omitempty"`
	Base64         bool              `json:"base64,omitempty" jsonschema:"body is base64."`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" alias:"timeout"`
	MaxBytes       int64             `json:"max_bytes,omitempty" alias:"limit"`
}

type fetchPageArgs struct {
	URL            string            `json:"url"`
	Raw            bool              `json:"raw,omitempty" jsonschema:"HTML, not Markdown (with selector: the matching elements' HTML)."`
	Selector       string            `json:"selector,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" alias:"timeout"`
	MaxBytes       int64             `json:"max_bytes,omitempty" alias:"limit"`
}

type downloadArgs struct {
	URL            string            `json:"url"`
	Path           string            `json:"path" alias:"file,destination"`
	Overwrite      bool              `json:"overwrite,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" alias:"timeout"`
	MaxBytes       int64             `json:"max_bytes,omitempty" alias:"limit"`
}

type browserOpenArgs struct {
	URL            string `json:"url,omitempty"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" alias:"timeout"`
}

type browserNavigateArgs struct {
	URL            string `json:"url"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" alias:"timeout"`
}

type browserNoArgs struct{}

type browserRefArgs struct {
	Ref string `json:"ref" alias:"element" jsonschema:"From browser_snapshot (e12)."`
}

type browserTypeArgs struct {
	Ref    string `json:"ref" alias:"element"`
	Text   string `json:"text"`
	Submit bool   `json:"submit,omitempty" jsonschema:"Press Enter."`
}

type browserSelectArgs struct {
	Ref   string `json:"ref" alias:"element"`
	Value string `json:"value" alias:"option" jsonschema:"Option value or label."`
}

type browserScrollArgs struct {
	Ref    string `json:"ref,omitempty" alias:"element"`
	Pixels int    `json:"pixels,omitempty" jsonschema:"Negative scrolls up."`
}

type browserWaitArgs struct {
	Selector       string `json:"selector,omitempty"`
	Text           string `json:"text,omitempty"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" alias:"timeout"`
}

type browserScreenshotArgs struct {
	FullPage bool `json:"full_page,omitempty"`
}

type webSearchArgs struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results,omitempty"`
}

// WebConfig is what web_operations needs from the wiring.
type WebConfig struct {
	// Client makes the requests; nil builds the table alone (a declaration, for a registry
	// declared before its engines: Declare), whose operations cannot run.
	Client *web.Client
	Guard  *authz.Guard
	// Browsers may be nil: the browser operations then answer unavailable.
	Browsers *browser.Manager
	// SearchURL enables web_search with a SearXNG instance.
	SearchURL string
}

// webToolName is the tool's name, also the Tool of guard requests and network grants.
const webToolName = "web_operations"

// WebTool is web_operations: HTTP requests, readable pages, downloads and a conversation-scoped
// headless browser, every connection decided by the network guard.
func WebTool(cfg WebConfig) *Tool {
	w := &webTool{cfg: cfg}
	var lim web.Config
	if cfg.Client != nil {
		lim = cfg.Client.Limits()
	}
	request := lim.MaxTimeout + 15*time.Second
	nav := browser.DefaultNavTimeout + 30*time.Second
	ops := []Operation{
		Op("http_request", "status, headers, body", RiskNetwork, w.request).WithTimeout(request),
		Op("fetch_page", "main content as Markdown", RiskNetwork, w.fetchPage).WithTimeout(request),
		Op("download", "URL to a file", RiskWrite, w.download).WithTimeout(request),
		Op("browser_open", "", RiskNetwork, w.browserOpen).WithTimeout(nav + 30*time.Second),
		Op("browser_navigate", "", RiskNetwork, w.browserNavigate).WithTimeout(nav),
		Op("browser_snapshot", "page as a tree with refs", RiskNetwork, w.browserSnapshot).WithTimeout(nav),
		Op("browser_click", "", RiskNetwork, w.browserClick).WithTimeout(nav),
		Op("browser_type", "type into ref", RiskNetwork, w.browserType).WithTimeout(nav),
		Op("browser_select", "", RiskNetwork, w.browserSelect).WithTimeout(nav),
		Op("browser_scroll", "", RiskNetwork, w.browserScroll).WithTimeout(nav),
		Op("browser_wait", "wait for selector or text", RiskNetwork, w.browserWait).WithTimeout(nav + 5*time.Minute).WithTaskWait(),
		Op("browser_screenshot", "JPEG of the page", RiskNetwork, w.browserScreenshot).WithTimeout(nav),
		Op("browser_close", "", RiskNetwork, w.browserClose).WithTimeout(nav),
	}
	if cfg.SearchURL != "" {
		ops = append(ops, Op("web_search", "search the web", RiskNetwork, w.search).WithTimeout(request))
	}
	return &Tool{
		Name:        webToolName,
		Title:       "Web",
		Description: "HTTP, readable pages, downloads, headless browser: " + OperationsPlaceholder + ". Loopback, private and metadata hosts need the user's grant.",
		Operations:  ops,
		Close: func() error {
			if cfg.Browsers != nil {
				cfg.Browsers.Shutdown()
			}
			return nil
		},
		// A browser belongs to its conversation's session: it ends with it.
		ConversationEnded: func(conv string) {
			if cfg.Browsers != nil {
				cfg.Browsers.Close(conv)
			}
		},
	}
}

type webTool struct {
	cfg WebConfig
}

// netCtx scopes the call's connections to its conversation, so its network grants apply.
func netCtx(ctx context.Context, c *Call) context.Context {
	return authz.WithNetCaller(ctx, authz.NetCaller{Conversation: c.Conversation, Tool: webToolName, Operation: c.Operation})
}

func seconds(n int) time.Duration { return time.Duration(max(n, 0)) * time.Second }

// webError turns the engines' failures into model-fixable errors; param names the argument a
// failure concerns when it is not the URL.
func webError(err error, param string) error {
	if err == nil {
		return nil
	}
	if d, ok := authz.IsNetDenial(err); ok {
		msg := d.Message
		if d.Canonical != "" && !strings.Contains(msg, d.Canonical) {
			msg += " (" + d.Canonical + ")"
		}
		next := d.NextStep
		if d.Grantable() {
			next += "; or the user adds the host to [web] allow in the config"
		}
		return &ToolError{Code: ErrorCode(d.Code), Param: "url", Message: msg, Next: next, Cause: err}
	}
	var we *web.Error
	if errors.As(err, &we) {
		p := "url"
		switch we.Code {
		case web.CodeExists:
			p = "path"
		case web.CodeInvalidValue:
			p = param
		case web.CodeTimeout:
			p = "timeout_seconds"
		}
		return &ToolError{Code: ErrorCode(we.Code), Param: p, Message: we.Message, Next: we.Next, Cause: err}
	}
	var be *browser.Error
	if errors.As(err, &be) {
		p := param
		if be.Code == browser.CodeLoadTimeout || be.Code == browser.CodeNavFailed {
			p = "url"
		}
		return &ToolError{Code: ErrorCode(be.Code), Param: p, Message: be.Message, Next: be.Next, Cause: err}
	}
	switch {
	case errors.Is(err, browser.ErrNoChromium):
		return &ToolError{Code: CodeUnavailable, Message: err.Error(), Next: "http_request and fetch_page work without a browser"}
	case errors.Is(err, browser.ErrNotOpen):
		return &ToolError{Code: CodeNotOpen, Message: "this conversation has no browser open", Next: `web_operations {"operation":"browser_open","url":"..."}`}
	case errors.Is(err, browser.ErrTooManyBrowsers):
		return &ToolError{Code: CodeTooManyBrowsers, Message: err.Error(), Next: "close a browser with browser_close, or wait for an idle one to close"}
	}
	return err
}

func (w *webTool) request(ctx context.Context, c *Call, a *httpRequestArgs) (*Result, error) {
	body := []byte(a.Body)
	if a.Base64 {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a.Body))
		if err != nil {
			return nil, &ToolError{Code: CodeInvalidValue, Param: "body", Message: "body is not valid base64", Next: "send text with base64 false, or fix the encoding"}
		}
		body = b
	}
	if a.MaxBytes < 0 || a.TimeoutSeconds < 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "max_bytes", Message: "max_bytes and timeout_seconds must be positive"}
	}
	resp, err := w.cfg.Client.Do(netCtx(ctx, c), web.Request{Method: a.Method, URL: a.URL, Headers: a.Headers, Body: body,
		Timeout: seconds(a.TimeoutSeconds), MaxBytes: a.MaxBytes})
	if err != nil {
		return nil, webError(err, "method")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %s · %s", resp.Status, web.Redact(resp.URL))
	if n := len(resp.Redirects); n > 0 {
		fmt.Fprintf(&b, " (after %d redirect(s) from %s)", n, resp.Redirects[0])
	}
	fmt.Fprintf(&b, " · %d ms\n", resp.Elapsed.Milliseconds())
	for _, h := range web.ShownHeaders(resp.Header) {
		b.WriteString(h + "\n")
	}
	t := web.DecodeBody(resp.Body, resp.ContentType, resp.Charset)
	switch {
	case len(resp.Body) == 0:
		b.WriteString("\n(empty body)")
	case t.Binary:
		fmt.Fprintf(&b, "\n(binary body: %s, %d bytes; use download to save it)", orStr(resp.ContentType, "unknown type"), len(resp.Body))
	default:
		if t.Note != "" {
			fmt.Fprintf(&b, "note: %s\n", t.Note)
		}
		b.WriteString("\n" + t.Text)
	}
	if resp.Truncated {
		fmt.Fprintf(&b, "\n[body cut at %d bytes; max_bytes raises the cap up to %d]", len(resp.Body), w.cfg.Client.Limits().MaxResponseBytes)
	}
	return &Result{Text: b.String(), Structured: map[string]any{
		"status": resp.StatusCode, "url": web.Redact(resp.URL), "content_type": resp.ContentType,
		"bytes": len(resp.Body), "truncated": resp.Truncated, "redirects": len(resp.Redirects),
	}}, nil
}

func orStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (w *webTool) fetchPage(ctx context.Context, c *Call, a *fetchPageArgs) (*Result, error) {
	if a.MaxBytes < 0 || a.TimeoutSeconds < 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "max_bytes", Message: "max_bytes and timeout_seconds must be positive"}
	}
	p, err := w.cfg.Client.FetchPage(netCtx(ctx, c), a.URL, web.PageOptions{Raw: a.Raw, Selector: a.Selector,
		MaxBytes: a.MaxBytes, Timeout: seconds(a.TimeoutSeconds), Headers: a.Headers})
	if err != nil {
		return nil, webError(err, "selector")
	}
	text := p.Render()
	if p.Status >= 400 {
		text = fmt.Sprintf("HTTP %d\n%s", p.Status, text)
	}
	return &Result{Text: text, Structured: map[string]any{"url": p.URL, "title": p.Title, "kind": p.Kind,
		"status": p.Status, "links": len(p.Links), "bytes": p.Bytes, "truncated": p.Truncated}}, nil
}

func (w *webTool) download(ctx context.Context, c *Call, a *downloadArgs) (*Result, error) {
	if a.MaxBytes < 0 || a.TimeoutSeconds < 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "max_bytes", Message: "max_bytes and timeout_seconds must be positive"}
	}
	if _, err := web.ParseURL(a.URL); err != nil {
		return nil, webError(err, "url")
	}
	t, err := w.cfg.Guard.Open(ctx, authz.Request{Conversation: c.Conversation, Tool: webToolName, Operation: "download",
		Class: authz.ClassWrite, Path: a.Path})
	if err != nil {
		return nil, GuardError(err, "path")
	}
	defer t.Close()
	if t.Rel == "." {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "path", Message: "path is a directory", Next: "give a file path"}
	}
	timeout := seconds(a.TimeoutSeconds)
	if timeout == 0 {
		timeout = w.cfg.Client.Limits().MaxTimeout
	}
	opts := web.DownloadOptions{Headers: a.Headers, Timeout: timeout, MaxBytes: a.MaxBytes, Overwrite: a.Overwrite}
	if p := newProgress(ctx, c); p != nil {
		defer p.stop()
		opts.Progress = func(done, total int64) {
			if total > 0 {
				p.chunk(fmt.Sprintf("%d of %d bytes", done, total))
			} else {
				p.chunk(fmt.Sprintf("%d bytes", done))
			}
		}
	}
	d, err := w.cfg.Client.DownloadTo(netCtx(ctx, c), a.URL, t.Root, t.Rel, opts)
	if err != nil {
		return nil, webError(err, "url")
	}
	verb := "Saved"
	if d.Replaced {
		verb = "Replaced"
	}
	return &Result{Text: fmt.Sprintf("%s %s: %d bytes (%s, sha256 %s) from %s", verb, t.Canonical, d.Bytes, orStr(d.ContentType, "unknown type"), d.SHA256[:16], d.URL),
		Structured: map[string]any{"path": t.Canonical, "bytes": d.Bytes, "content_type": d.ContentType, "sha256": d.SHA256, "url": d.URL}}, nil
}

func (w *webTool) search(ctx context.Context, c *Call, a *webSearchArgs) (*Result, error) {
	hits, err := w.cfg.Client.Search(netCtx(ctx, c), w.cfg.SearchURL, a.Query, a.MaxResults)
	if err != nil {
		return nil, webError(err, "query")
	}
	if len(hits) == 0 {
		return Text("No results for %q.", a.Query), nil
	}
	var b strings.Builder
	for i, h := range hits {
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, h.Title, h.URL)
		if h.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", truncate(h.Snippet, 300))
		}
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Structured: map[string]any{"results": hits}}, nil
}

// The browser operations.

func (w *webTool) session(c *Call) (*browser.Session, error) {
	if w.cfg.Browsers == nil {
		return nil, webError(browser.ErrNoChromium, "")
	}
	s, err := w.cfg.Browsers.Session(c.Conversation)
	return s, webError(err, "")
}

// pageLine renders where the tab is and what the guard refused meanwhile.
func pageLine(ps browser.PageState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Page: %s", orStr(ps.Title, "(untitled)"))
	if ps.URL != "" {
		fmt.Fprintf(&b, " — %s", ps.URL)
	}
	seen := map[string]bool{}
	var hosts []string
	n := 0
	for _, bl := range ps.Blocked {
		// Only the guard's refusals: a page's failed lookups and connections are its own affair.
		if bl.Code != authz.CodeNetworkRefused && bl.Code != authz.CodeNetworkDenied {
			continue
		}
		n++
		if !seen[bl.Target] && len(hosts) < 5 {
			seen[bl.Target] = true
			hosts = append(hosts, bl.Target)
		}
	}
	if n > 0 {
		fmt.Fprintf(&b, "\nThe network guard refused %d request(s) of this page (%s); a grant for a host opens it.", n, strings.Join(hosts, ", "))
	}
	return b.String()
}

func (w *webTool) browserOpen(ctx context.Context, c *Call, a *browserOpenArgs) (*Result, error) {
	if a.URL != "" {
		if _, err := web.ParseURL(a.URL); err != nil {
			return nil, webError(err, "url")
		}
	}
	if w.cfg.Browsers == nil {
		return nil, webError(browser.ErrNoChromium, "")
	}
	s, started, err := w.cfg.Browsers.Open(ctx, c.Conversation)
	if err != nil {
		return nil, webError(err, "")
	}
	head := "Browser started (headless Chromium, fresh profile)."
	if !started {
		head = "Browser already open."
	}
	if a.URL == "" {
		return Text("%s Load a page with browser_navigate.", head), nil
	}
	ps, err := s.Navigate(netCtx(ctx, c), a.URL, seconds(a.TimeoutSeconds))
	if err != nil {
		return nil, webError(err, "url")
	}
	return Text("%s\n%s\nbrowser_snapshot reads it.", head, pageLine(ps)), nil
}

func (w *webTool) browserNavigate(ctx context.Context, c *Call, a *browserNavigateArgs) (*Result, error) {
	if _, err := web.ParseURL(a.URL); err != nil {
		return nil, webError(err, "url")
	}
	if w.cfg.Browsers == nil {
		return nil, webError(browser.ErrNoChromium, "")
	}
	// Navigating opens the browser when needed: one call instead of two.
	s, _, err := w.cfg.Browsers.Open(ctx, c.Conversation)
	if err != nil {
		return nil, webError(err, "")
	}
	ps, err := s.Navigate(netCtx(ctx, c), a.URL, seconds(a.TimeoutSeconds))
	if err != nil {
		return nil, webError(err, "url")
	}
	return Text("%s\nbrowser_snapshot reads it.", pageLine(ps)), nil
}

func (w *webTool) browserSnapshot(ctx context.Context, c *Call, a *browserNoArgs) (*Result, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	tree, ps, err := s.Snapshot(ctx)
	if err != nil {
		return nil, webError(err, "")
	}
	return &Result{Text: pageLine(ps) + "\n" + tree, Structured: map[string]any{"url": ps.URL, "title": ps.Title}}, nil
}

func (w *webTool) browserClick(ctx context.Context, c *Call, a *browserRefArgs) (*Result, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	what, ps, err := s.Click(ctx, a.Ref)
	if err != nil {
		return nil, webError(err, "ref")
	}
	return Text("Clicked %s (%s).\n%s", a.Ref, what, pageLine(ps)), nil
}

func (w *webTool) browserType(ctx context.Context, c *Call, a *browserTypeArgs) (*Result, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	_, ps, err := s.Type(ctx, a.Ref, a.Text, a.Submit)
	if err != nil {
		return nil, webError(err, "ref")
	}
	done := "Typed"
	if a.Submit {
		done = "Typed and pressed Enter in"
	}
	return Text("%s %s (%d characters).\n%s", done, a.Ref, len([]rune(a.Text)), pageLine(ps)), nil
}

func (w *webTool) browserSelect(ctx context.Context, c *Call, a *browserSelectArgs) (*Result, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	chosen, ps, err := s.Select(ctx, a.Ref, a.Value)
	if err != nil {
		return nil, webError(err, "value")
	}
	return Text("Selected %q in %s.\n%s", chosen, a.Ref, pageLine(ps)), nil
}

func (w *webTool) browserScroll(ctx context.Context, c *Call, a *browserScrollArgs) (*Result, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	pos, ps, err := s.Scroll(ctx, a.Ref, a.Pixels)
	if err != nil {
		return nil, webError(err, "ref")
	}
	return Text("Scrolled: %s.\n%s", pos, pageLine(ps)), nil
}

func (w *webTool) browserWait(ctx context.Context, c *Call, a *browserWaitArgs) (*Result, error) {
	if (a.Selector == "") == (a.Text == "") {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "selector", Message: "give selector or text, one of them"}
	}
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	timeout := min(seconds(a.TimeoutSeconds), 5*time.Minute)
	ps, err := s.Wait(ctx, a.Selector, a.Text, timeout)
	if err != nil {
		p := "selector"
		if a.Text != "" {
			p = "text"
		}
		return nil, webError(err, p)
	}
	return Text("Found it.\n%s", pageLine(ps)), nil
}

func (w *webTool) browserScreenshot(ctx context.Context, c *Call, a *browserScreenshotArgs) (*Result, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, err
	}
	img, mime, ps, err := s.Screenshot(ctx, a.FullPage)
	if err != nil {
		return nil, webError(err, "full_page")
	}
	return &Result{Text: fmt.Sprintf("Screenshot (%s, %d KB).\n%s", mime, (len(img)+1023)/1024, pageLine(ps)),
		Content: []mcp.Content{&mcp.ImageContent{Data: img, MIMEType: mime}}}, nil
}

func (w *webTool) browserClose(ctx context.Context, c *Call, a *browserNoArgs) (*Result, error) {
	if w.cfg.Browsers == nil || !w.cfg.Browsers.Close(c.Conversation) {
		return Text("No browser was open."), nil
	}
	return Text("Browser closed; its processes and profile are gone."), nil
}
