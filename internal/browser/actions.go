package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"toolhost/authz"
	"toolhost/internal/web"
)

// Error codes of browser actions.
const (
	CodeNotFound    = "not_found"    // a ref that is not on the page (stale snapshot) or a selector/text that never appeared
	CodeLoadTimeout = "load_timeout" // the page did not finish loading in time (what loaded is still there)
	CodeNavFailed   = "navigation_failed"
	CodeInvalid     = "invalid_value" // a bad ref, selector or option
	CodeUnavailable = "unavailable"   // no Chromium
	CodeTooLarge    = "too_large"     // a screenshot that stays over MaxScreenshotBytes
	CodeTimeout     = "timeout"       // the browser did not answer in time
	CodeBrowser     = "browser_error" // the browser failed (crashed, protocol error); starting over helps
)

// Error is a failure the model can act on.
type Error struct {
	Code, Message, Next string
	Err                 error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Err }

// PageState is what an action leaves: where the tab is, and what the guard refused meanwhile.
type PageState struct {
	URL     string
	Title   string
	Blocked []Blocked
}

// state reads the tab's location and title and the refusals since the last action.
func (s *Session) state(ctx context.Context) PageState {
	var ps PageState
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if v, err := chromedp.Run(s.run(ctx), chromedp.Location()); err == nil {
		ps.URL = v
	}
	if v, err := chromedp.Run(s.run(ctx), chromedp.Title()); err == nil {
		ps.Title = v
	}
	ps.Blocked = s.proxy.takeBlocked()
	return ps
}

// run returns a context for chromedp actions on the tab that ends with ctx (a derived context,
// so its end does not close the tab).
func (s *Session) run(ctx context.Context) context.Context {
	c, cancel := context.WithCancel(s.tabCtx)
	context.AfterFunc(ctx, cancel)
	return c
}

// Navigate loads url and waits for the load event (at most timeout). A top-level request the
// guard refused is returned as its *authz.Denial; a page that does not finish loading is
// CodeLoadTimeout, and what loaded stays for browser_snapshot.
func (s *Session) Navigate(ctx context.Context, rawURL string, timeout time.Duration) (PageState, error) {
	u, err := web.ParseURL(rawURL)
	if err != nil {
		return PageState{}, err
	}
	if err := s.lock(); err != nil {
		return PageState{}, err
	}
	defer s.unlock()
	if timeout <= 0 {
		timeout = s.m.cfg.NavTimeout
	}
	s.proxy.takeBlocked()
	nctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	navErr := chromedp.Do(s.run(nctx), chromedp.Navigate(u.String()))
	ps := s.state(ctx)
	if d := mainDenial(s.m.cfg.Guard, ps.Blocked, u); d != nil {
		return ps, d
	}
	if final, err := url.Parse(ps.URL); err == nil && final.Host != "" && final.Host != u.Host {
		// Redirected: a refusal of where it led is the answer too.
		if d := mainDenial(s.m.cfg.Guard, ps.Blocked, final); d != nil {
			return ps, d
		}
	}
	if navErr != nil {
		if errors.Is(navErr, context.DeadlineExceeded) || nctx.Err() != nil {
			// Stop loading so the page stays as it is.
			sctx, scancel := context.WithTimeout(ctx, 2*time.Second)
			chromedp.Do(s.run(sctx), chromedp.Stop())
			scancel()
			return ps, &Error{Code: CodeLoadTimeout, Message: fmt.Sprintf("%s did not finish loading within %s", web.Redact(u), timeout),
				Next: "browser_snapshot shows what has loaded; browser_wait waits for an element"}
		}
		var le *chromedp.LoadError
		if errors.As(navErr, &le) {
			return ps, &Error{Code: CodeNavFailed, Message: fmt.Sprintf("%s could not be loaded (%s)", web.Redact(u), le.ErrorText), Err: navErr,
				Next: "check the URL; http_request shows what the server answers"}
		}
		return ps, &Error{Code: CodeNavFailed, Message: fmt.Sprintf("loading %s failed", web.Redact(u)), Err: navErr}
	}
	return ps, nil
}

// mainDenial returns why the proxy failed the page's own host, if it did: the guard's refusal
// as its *authz.Denial (with ng's call asking for a grant), another failure (no such host,
// connection refused) as CodeNavFailed.
func mainDenial(ng *authz.NetGuard, blocked []Blocked, u *url.URL) error {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	host := strings.Trim(u.Hostname(), "[]")
	for _, b := range blocked {
		h, p := b.Target, ""
		if i := strings.LastIndex(b.Target, ":"); i >= 0 {
			h, p = strings.Trim(b.Target[:i], "[]"), b.Target[i+1:]
		}
		if !strings.EqualFold(h, host) || p != port && p != "" {
			continue
		}
		if b.Code != authz.CodeNetworkRefused && b.Code != authz.CodeNetworkDenied {
			return &Error{Code: CodeNavFailed, Message: fmt.Sprintf("%s could not be loaded: %s", web.Redact(u), b.Reason),
				Next: "check the URL; http_request shows what the server answers"}
		}
		d := &authz.Denial{Code: b.Code, Canonical: b.Target, Access: "web_operations:network", Message: b.Reason,
			NextStep: "choose another URL; no grant opens this address"}
		if b.Code == authz.CodeNetworkRefused {
			if c, err := authz.CanonicalHost(host); err == nil {
				d.NextStep = ng.HostAuthorizationCall(c, "web_operations:network")
			}
		}
		return d
	}
	return nil
}

// nodeRef parses an element reference from a snapshot ("e12").
func nodeRef(ref string) (cdp.BackendNodeID, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(ref), "e"), 10, 64)
	if err != nil || n <= 0 || !strings.HasPrefix(strings.TrimSpace(ref), "e") {
		return 0, &Error{Code: CodeInvalid, Message: fmt.Sprintf("ref %q is not an element reference", shortText(ref, 40)),
			Next: "use a ref such as e12 from browser_snapshot"}
	}
	return cdp.BackendNodeID(n), nil
}

// resolve finds the element of a ref on the current page.
func (s *Session) resolve(ctx context.Context, t *chromedp.Target, ref string) (cdp.BackendNodeID, *runtime.RemoteObject, error) {
	id, err := nodeRef(ref)
	if err != nil {
		return 0, nil, err
	}
	res, err := cdp.Call(ctx, t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil || res.Object == nil || res.Object.ObjectID == "" {
		return 0, nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("element %s is not on the page (it changed since the snapshot, or the ref is wrong)", ref),
			Next: "take a new browser_snapshot and use a ref from it", Err: err}
	}
	return id, res.Object, nil
}

// onElement runs fn on the element of ref on the current page.
func (s *Session) onElement(ctx context.Context, ref string, fn func(ctx context.Context, t *chromedp.Target, id cdp.BackendNodeID, obj *runtime.RemoteObject) error) error {
	return chromedp.Do(s.run(ctx), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		id, obj, err := s.resolve(ctx, t, ref)
		if err != nil {
			return err
		}
		return fn(ctx, t, id, obj)
	}))
}

// callOn calls a JavaScript function with the element as this and returns its JSON result.
func callOn(ctx context.Context, t *chromedp.Target, obj *runtime.RemoteObject, fn string, args ...any) (json.RawMessage, error) {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		b, _ := json.Marshal(a)
		cargs = append(cargs, &runtime.CallArgument{Value: b})
	}
	yes := true
	res, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj.ObjectID, Arguments: cargs, ReturnByValue: &yes, AwaitPromise: &yes,
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("script error: %s", res.ExceptionDetails.Text)
	}
	if res.Result == nil {
		return nil, nil
	}
	return json.RawMessage(res.Result.Value), nil
}

// describe names an element for a result: its role and text.
const describeJS = `function(){const t=(this.innerText||this.value||this.getAttribute('aria-label')||this.getAttribute('title')||'').trim().replace(/\s+/g,' ');return (this.tagName||'').toLowerCase()+(t?' "'+t.slice(0,60)+'"':'')}`

// Click scrolls the element into view and clicks its centre with real mouse events (falling back
// to a DOM click for an element without a box), then waits briefly for a navigation it started.
func (s *Session) Click(ctx context.Context, ref string) (string, PageState, error) {
	if err := s.lock(); err != nil {
		return "", PageState{}, err
	}
	defer s.unlock()
	var what string
	before := s.location(ctx)
	err := s.onElement(ctx, ref, func(ctx context.Context, t *chromedp.Target, id cdp.BackendNodeID, obj *runtime.RemoteObject) error {
		if b, err := callOn(ctx, t, obj, describeJS); err == nil {
			json.Unmarshal(b, &what)
		}
		cdp.Call(ctx, t, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id})
		quads, err := cdp.Call(ctx, t, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
		if err != nil || len(quads.Quads) == 0 || len(quads.Quads[0]) < 8 {
			_, err := callOn(ctx, t, obj, `function(){this.click()}`)
			return err
		}
		q := quads.Quads[0]
		x, y := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
			if typ != input.DispatchMouseEventTypeMouseMoved {
				p.Button, p.ClickCount = input.MouseButtonLeft, 1
			}
			if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", s.state(ctx), actionError(err)
	}
	s.settle(ctx, before)
	return what, s.state(ctx), nil
}

// location is the tab's URL ("" if unknown).
func (s *Session) location(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	v, _ := chromedp.Run(s.run(ctx), chromedp.Location())
	return v
}

// settle waits a moment for an action's effects: a navigation it started finishes loading (at
// most the navigation timeout); a page that stays put is left after 300 ms.
func (s *Session) settle(ctx context.Context, before string) {
	start := time.Now()
	deadline := start.Add(s.m.cfg.NavTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		state, err := chromedp.Run(s.run(qctx), chromedp.Evaluate[string]("document.readyState"))
		loc, _ := chromedp.Run(s.run(qctx), chromedp.Location())
		cancel()
		if err == nil && state == "complete" && (loc != before || time.Since(start) > 300*time.Millisecond) {
			return
		}
	}
}

// Type focuses the element, replaces its value with text (as typed input, so the page's input
// events fire) and presses Enter when submit is set.
func (s *Session) Type(ctx context.Context, ref, text string, submit bool) (string, PageState, error) {
	if err := s.lock(); err != nil {
		return "", PageState{}, err
	}
	defer s.unlock()
	var what string
	before := s.location(ctx)
	err := s.onElement(ctx, ref, func(ctx context.Context, t *chromedp.Target, id cdp.BackendNodeID, obj *runtime.RemoteObject) error {
		ok, err := callOn(ctx, t, obj, `function(){
			const editable = this.isContentEditable || ((this.tagName==='INPUT'||this.tagName==='TEXTAREA') && !this.disabled && !this.readOnly);
			if (!editable) return false;
			this.focus();
			if ('value' in this) { this.value=''; this.dispatchEvent(new Event('input',{bubbles:true})); } else { this.textContent=''; }
			return true}`)
		if err != nil {
			return err
		}
		if string(ok) != "true" {
			return &Error{Code: CodeInvalid, Message: fmt.Sprintf("element %s does not take text (not an enabled input, textarea or editable element)", ref),
				Next: "take a browser_snapshot and use the ref of a textbox"}
		}
		what = "field " + ref
		cdp.Call(ctx, t, dom.Focus, dom.FocusParams{BackendNodeID: id})
		if text != "" {
			if _, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
				return err
			}
		}
		if submit {
			for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
				p := input.DispatchKeyEventParams{Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
				if typ == input.DispatchKeyEventTypeKeyDown {
					p.Text = "\r"
				}
				if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", s.state(ctx), actionError(err)
	}
	if submit {
		s.settle(ctx, before)
	}
	return what, s.state(ctx), nil
}

// Select chooses the option of a <select> whose value or label is value, and fires input and
// change events.
func (s *Session) Select(ctx context.Context, ref, value string) (string, PageState, error) {
	if err := s.lock(); err != nil {
		return "", PageState{}, err
	}
	defer s.unlock()
	var chosen string
	err := s.onElement(ctx, ref, func(ctx context.Context, t *chromedp.Target, _ cdp.BackendNodeID, obj *runtime.RemoteObject) error {
		b, err := callOn(ctx, t, obj, `function(v){
			if (this.tagName!=='SELECT') return {error:'not a select element'};
			const opts=[...this.options];
			const o=opts.find(o=>o.value===v)||opts.find(o=>o.label.trim()===v||o.text.trim()===v)||opts.find(o=>o.label.trim().toLowerCase()===v.toLowerCase());
			if (!o) return {error:'no option '+JSON.stringify(v), options: opts.map(o=>o.label.trim()||o.value).slice(0,30)};
			this.value=o.value; o.selected=true;
			this.dispatchEvent(new Event('input',{bubbles:true})); this.dispatchEvent(new Event('change',{bubbles:true}));
			return {chosen:o.label.trim()||o.value}}`, value)
		if err != nil {
			return err
		}
		var r struct {
			Error   string   `json:"error"`
			Options []string `json:"options"`
			Chosen  string   `json:"chosen"`
		}
		json.Unmarshal(b, &r)
		if r.Error != "" {
			next := "take a browser_snapshot and use the ref of a combobox"
			if len(r.Options) > 0 {
				next = "options: " + strings.Join(r.Options, ", ")
			}
			return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s: %s", ref, r.Error), Next: next}
		}
		chosen = r.Chosen
		return nil
	})
	if err != nil {
		return "", s.state(ctx), actionError(err)
	}
	return chosen, s.state(ctx), nil
}

// Scroll scrolls the element into view (ref) or the page by pixels (0 = one screen down;
// negative = up) and returns the new position.
func (s *Session) Scroll(ctx context.Context, ref string, pixels int) (string, PageState, error) {
	if err := s.lock(); err != nil {
		return "", PageState{}, err
	}
	defer s.unlock()
	var pos string
	err := chromedp.Do(s.run(ctx), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if ref != "" {
			_, obj, err := s.resolve(ctx, t, ref)
			if err != nil {
				return err
			}
			if _, err := callOn(ctx, t, obj, `function(){this.scrollIntoView({block:'center'})}`); err != nil {
				return err
			}
		} else {
			js := fmt.Sprintf("window.scrollBy(0, %d)", pixels)
			if pixels == 0 {
				js = "window.scrollBy(0, window.innerHeight*0.9)"
			}
			if _, err := chromedp.Evaluate[any](js)(ctx, t); err != nil && !errors.Is(err, chromedp.ErrJSUndefined) {
				return err
			}
		}
		v, err := chromedp.Evaluate[string](`'scrollY='+Math.round(window.scrollY)+' of '+Math.max(0,document.documentElement.scrollHeight-window.innerHeight)+' (viewport '+window.innerHeight+'px)'`)(ctx, t)
		pos = v
		return err
	}))
	if err != nil {
		return "", s.state(ctx), actionError(err)
	}
	return pos, s.state(ctx), nil
}

// Wait waits until a CSS selector matches or a text appears in the page (at most timeout).
func (s *Session) Wait(ctx context.Context, selector, text string, timeout time.Duration) (PageState, error) {
	if (selector == "") == (text == "") {
		return PageState{}, &Error{Code: CodeInvalid, Message: "give selector or text (one of them)"}
	}
	if err := s.lock(); err != nil {
		return PageState{}, err
	}
	defer s.unlock()
	if timeout <= 0 {
		timeout = s.m.cfg.NavTimeout
	}
	what := "text " + strconv.Quote(shortText(text, 80))
	js := fmt.Sprintf(`(function(){const t=%s;return !!(document.body&&document.body.innerText.includes(t))})()`, jsString(text))
	if selector != "" {
		what = "selector " + strconv.Quote(shortText(selector, 80))
		js = fmt.Sprintf(`(function(){try{return !!document.querySelector(%s)}catch(e){return 'invalid'}})()`, jsString(selector))
	}
	deadline := time.Now().Add(timeout)
	for {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		v, err := chromedp.Run(s.run(qctx), chromedp.Evaluate[any](js))
		cancel()
		if err == nil {
			if v == "invalid" {
				return s.state(ctx), &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s is not a valid CSS selector", what)}
			}
			if v == true {
				return s.state(ctx), nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return s.state(ctx), &Error{Code: CodeNotFound, Message: fmt.Sprintf("%s did not appear within %s", what, timeout),
				Next: "take a browser_snapshot to see the page, or wait longer with timeout_seconds"}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// MaxScreenshotBytes bounds a screenshot; larger ones are retaken at lower quality.
const MaxScreenshotBytes = 800 << 10

// Screenshot captures the viewport (or the page, up to 4 screens tall) as JPEG within
// MaxScreenshotBytes.
func (s *Session) Screenshot(ctx context.Context, fullPage bool) ([]byte, string, PageState, error) {
	if err := s.lock(); err != nil {
		return nil, "", PageState{}, err
	}
	defer s.unlock()
	var img []byte
	err := chromedp.Do(s.run(ctx), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg}
		if fullPage {
			m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
			if err == nil && m.CSSContentSize != nil {
				w := float64(s.m.cfg.Width)
				h := min(m.CSSContentSize.Height, 4*float64(s.m.cfg.Height))
				params.Clip = &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}
				yes := true
				params.CaptureBeyondViewport = &yes
			}
		}
		for _, q := range []int64{80, 60, 40, 25} {
			q := q
			params.Quality = &q
			res, err := cdp.Call(ctx, t, page.CaptureScreenshot, params)
			if err != nil {
				return err
			}
			img = res.Data
			if len(img) <= MaxScreenshotBytes {
				return nil
			}
			if params.Clip != nil {
				params.Clip.Scale = max(0.4, params.Clip.Scale*0.75)
			}
		}
		return nil
	}))
	if err != nil {
		return nil, "", s.state(ctx), actionError(err)
	}
	if len(img) > MaxScreenshotBytes {
		return nil, "", s.state(ctx), &Error{Code: CodeTooLarge, Message: "the screenshot stays over the size bound", Next: "take it without full_page"}
	}
	return img, "image/jpeg", s.state(ctx), nil
}

func actionError(err error) error {
	var be *Error
	if errors.As(err, &be) {
		return be
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Message: "the browser did not answer in time", Err: err}
	}
	return &Error{Code: CodeBrowser, Message: "the browser failed to do it", Err: err, Next: "take a browser_snapshot; browser_close and browser_open start over"}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
