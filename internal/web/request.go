package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"toolhost/internal/secret"

	"golang.org/x/net/html/charset"
)

// Request is one HTTP request.
type Request struct {
	Method  string
	URL     string
	Headers map[string]string
	Body    []byte
	Timeout time.Duration // 0 = the client's default; capped by MaxTimeout
	// MaxBytes caps the body read (0 = MaxResponseBytes; never above it). A longer body is cut.
	MaxBytes int64
	// Accept is sent when the caller gives no Accept header.
	Accept string
}

// Response is what came back. Body holds at most MaxBytes bytes.
type Response struct {
	StatusCode  int
	Status      string
	URL         *url.URL // after redirects
	Redirects   []string // the URLs redirected to, in order
	Header      http.Header
	ContentType string // media type, lower case, no parameters
	Charset     string // the declared charset label, if any
	Body        []byte
	Truncated   bool  // the body was longer than the cap
	Length      int64 // Content-Length, -1 if unknown
	Elapsed     time.Duration
}

var validMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// Do sends r and reads the body up to its cap. Network refusals are *authz.Denial; everything
// else the model can act on is *Error.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	resp, cancel, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer resp.raw.Body.Close()
	limit := c.cfg.MaxResponseBytes
	if r.MaxBytes > 0 && r.MaxBytes < limit {
		limit = r.MaxBytes
	}
	body, truncated, err := readCapped(resp.raw.Body, limit)
	if err != nil {
		return nil, Classify(err, resp.URL.Host)
	}
	resp.Body, resp.Truncated = body, truncated
	resp.Elapsed = time.Since(resp.start)
	return &resp.Response, nil
}

// openResponse is an open response whose body the caller streams.
type openResponse struct {
	Response
	raw   *http.Response
	start time.Time
}

// open sends r and returns the response with its body unread; cancel ends the deadline.
func (c *Client) open(ctx context.Context, r Request) (*openResponse, context.CancelFunc, error) {
	u, err := ParseURL(r.URL)
	if err != nil {
		return nil, nil, err
	}
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	if method == "" {
		method = "GET"
	}
	if !slices.Contains(validMethods, method) {
		return nil, nil, &Error{Code: CodeInvalidValue, Message: fmt.Sprintf("method %q is not supported", shorten(r.Method, 20)),
			Next: "use one of " + strings.Join(validMethods, ", ")}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout(r.Timeout))
	var body io.Reader
	if len(r.Body) > 0 {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		cancel()
		return nil, nil, &Error{Code: CodeInvalidURL, Message: "url cannot be requested", Err: err}
	}
	for k, v := range r.Headers {
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			cancel()
			return nil, nil, &Error{Code: CodeInvalidValue, Message: fmt.Sprintf("header %q is not a valid header name and value", shorten(k, 40)),
				Next: "header names are tokens (Content-Type); values have no line breaks"}
		}
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	if req.Header.Get("Accept") == "" && r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	start := time.Now()
	raw, err := c.hc.Do(req)
	if err != nil {
		cancel()
		var ue *url.Error
		host := u.Host
		if errors.As(err, &ue) {
			if pu, perr := url.Parse(ue.URL); perr == nil && pu.Host != "" {
				host = pu.Host
			}
		}
		return nil, nil, Classify(err, host)
	}
	out := &openResponse{raw: raw, start: start}
	out.StatusCode, out.Status, out.URL, out.Header, out.Length = raw.StatusCode, raw.Status, raw.Request.URL, raw.Header, raw.ContentLength
	for rq := raw.Request; rq != nil && rq.Response != nil; rq = rq.Response.Request {
		out.Redirects = append([]string{Redact(rq.URL)}, out.Redirects...)
	}
	out.ContentType, out.Charset = mediaType(raw.Header.Get("Content-Type"))
	return out, cancel, nil
}

func validHeaderName(k string) bool {
	if k == "" || len(k) > 256 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// readCapped reads up to limit bytes and reports whether more followed. It never reads more than
// limit+1 bytes, so a 2 GB body costs the cap, not 2 GB.
func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, limit+1))
	if err != nil {
		return buf.Bytes(), false, err
	}
	if n > limit {
		return buf.Bytes()[:limit], true, nil
	}
	return buf.Bytes(), false, nil
}

func mediaType(ct string) (string, string) {
	if ct == "" {
		return "", ""
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		return strings.ToLower(strings.TrimSpace(mt)), ""
	}
	return mt, params["charset"]
}

// IsText reports whether a media type is text a model can read.
func IsText(mt string) bool {
	switch {
	case mt == "", strings.HasPrefix(mt, "text/"):
		return true
	case strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/ecmascript", "application/x-www-form-urlencoded", "application/graphql", "application/x-ndjson",
		"application/yaml", "application/x-yaml", "application/toml", "application/xhtml+xml", "application/ld+json":
		return true
	}
	return false
}

func isJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Text is a decoded body.
type Text struct {
	Text   string
	Binary bool   // not text: Text is empty, the caller shows a summary
	Note   string // e.g. "unknown charset \"x-bogus\"; shown as UTF-8"
}

// DecodeBody turns a body into text: the declared (or, for HTML, the meta-declared or sniffed)
// charset decoded to UTF-8, JSON compacted. A body that is not text is reported as binary; an
// unknown charset falls back to UTF-8 with invalid bytes replaced, and says so.
func DecodeBody(body []byte, mt, label string) Text {
	if !IsText(mt) || mt == "" && looksBinary(body) {
		return Text{Binary: true}
	}
	var t Text
	s, note := decodeCharset(body, mt, label)
	t.Text, t.Note = s, note
	if isJSON(mt) {
		var b bytes.Buffer
		if json.Compact(&b, []byte(s)) == nil {
			t.Text = b.String()
		}
	}
	return t
}

func decodeCharset(body []byte, mt, label string) (string, string) {
	if label != "" {
		enc, name := charset.Lookup(label)
		if enc == nil {
			return strings.ToValidUTF8(string(body), "\uFFFD"), fmt.Sprintf("unknown charset %q; shown as UTF-8", shorten(label, 40))
		}
		if name == "utf-8" {
			return strings.ToValidUTF8(string(body), "\uFFFD"), ""
		}
		out, err := enc.NewDecoder().Bytes(body)
		if err != nil {
			return strings.ToValidUTF8(string(body), "\uFFFD"), fmt.Sprintf("body is not valid %s; shown as UTF-8", name)
		}
		return string(out), ""
	}
	if utf8.Valid(body) {
		return string(body), ""
	}
	if mt == "text/html" || mt == "application/xhtml+xml" || mt == "" {
		if enc, name, _ := charset.DetermineEncoding(body, "text/html"); enc != nil && name != "utf-8" {
			if out, err := enc.NewDecoder().Bytes(body); err == nil {
				return string(out), ""
			}
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD"), "body is not valid UTF-8 and declares no charset; invalid bytes shown as \uFFFD"
}

// looksBinary sniffs an undeclared body: NUL bytes or a binary signature.
func looksBinary(b []byte) bool {
	head := b[:min(len(b), 512)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	ct := http.DetectContentType(head)
	return !strings.HasPrefix(ct, "text/") && ct != "application/json"
}

// shownHeaders are the response headers a result shows; the rest are counted.
var shownHeaders = []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Disposition", "Location",
	"Last-Modified", "Etag", "Cache-Control", "Retry-After", "Www-Authenticate", "Link",
	"X-Ratelimit-Remaining", "X-Ratelimit-Reset", "Ratelimit-Remaining", "Ratelimit-Reset", "Set-Cookie"}

// ShownHeaders returns the headers a result shows, one "name: value" per line, with Set-Cookie
// values masked (the cookie names stay) and every value masked as secret.Text masks text (a
// Location with a token in its query).
func ShownHeaders(h http.Header) []string {
	var out []string
	for _, k := range shownHeaders {
		for _, v := range h.Values(k) {
			if k == "Set-Cookie" {
				name, _, _ := strings.Cut(v, "=")
				v = strings.TrimSpace(name) + "=" + secret.Mask
			}
			v = secret.Text(v)
			out = append(out, strings.ToLower(k)+": "+shorten(v, 300))
		}
	}
	return out
}
