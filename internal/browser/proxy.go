package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"toolhost/authz"
	"toolhost/internal/web"
)

// proxy is the browser's only way out: Chromium is started with --proxy-server pointing here and
// with no bypass (not even loopback), so every request of every page, frame, worker, fetch() and
// WebSocket arrives here, and the network guard decides it for the conversation that owns the
// browser. Plain HTTP is forwarded; CONNECT (HTTPS, WebSockets) is tunnelled after the target is
// decided. A refusal answers 403 and is remembered, so the next result can tell the model.
type proxy struct {
	ln      net.Listener
	srv     *http.Server
	caller  authz.NetCaller
	fw      *web.Forwarder
	log     *slog.Logger
	forget  func()
	mu      sync.Mutex
	blocked []Blocked
	// refusals counts every refusal (blocked keeps only the latest ones).
	refusals atomic.Int64
}

// Blocked is a request the guard refused.
type Blocked struct {
	Target string // host:port
	Code   string
	Reason string
}

// maxBlocked bounds the remembered refusals.
const maxBlocked = 50

func startProxy(client *web.Client, guard *authz.NetGuard, caller authz.NetCaller, log *slog.Logger) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browser proxy: %w", err)
	}
	forget, err := guard.RegisterListener(ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &proxy{ln: ln, caller: caller, fw: client.NewForwarder(), log: log, forget: forget}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the proxy's address for --proxy-server.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) close() {
	p.srv.Close()
	p.fw.Close()
	p.forget()
}

// takeBlocked returns and clears the refusals since the last call.
func (p *proxy) takeBlocked() []Blocked {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.blocked
	p.blocked = nil
	return b
}

func (p *proxy) refuse(w http.ResponseWriter, target string, err error) {
	b := Blocked{Target: target, Code: web.CodeConnect, Reason: "connection failed"}
	if d, ok := authz.IsNetDenial(err); ok {
		b.Code, b.Reason = d.Code, d.Message
	} else {
		var we *web.Error
		if errors.As(web.Classify(err, target), &we) {
			b.Code, b.Reason = we.Code, we.Message
		}
	}
	p.refusals.Add(1)
	p.mu.Lock()
	if len(p.blocked) < maxBlocked {
		p.blocked = append(p.blocked, b)
	}
	p.mu.Unlock()
	p.log.Debug("browser request refused", "target", target, "code", b.Code)
	status := http.StatusForbidden
	if b.Code != authz.CodeNetworkRefused && b.Code != authz.CodeNetworkDenied {
		status = http.StatusBadGateway
	}
	http.Error(w, "toolhost: "+b.Reason, status)
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := authz.WithNetCaller(r.Context(), p.caller)
	if r.Method == http.MethodConnect {
		p.connect(ctx, w, r)
		return
	}
	if !r.URL.IsAbs() || (r.URL.Scheme != "http" && r.URL.Scheme != "https") {
		http.Error(w, "toolhost: not a proxy request", http.StatusBadRequest)
		return
	}
	out := r.Clone(ctx)
	out.RequestURI = ""
	removeHopHeaders(out.Header)
	resp, err := p.fw.RoundTrip(out)
	if err != nil {
		p.refuse(w, r.URL.Host, err)
		return
	}
	defer resp.Body.Close()
	removeHopHeaders(resp.Header)
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(flushWriter{w}, resp.Body)
}

// connect tunnels a CONNECT request after deciding its target (web.Forwarder.Tunnel: directly
// or through the environment's proxy).
func (p *proxy) connect(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if _, _, err := net.SplitHostPort(target); err != nil {
		http.Error(w, "toolhost: bad CONNECT target", http.StatusBadRequest)
		return
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	upstream, err := p.fw.Tunnel(dctx, target)
	if err != nil {
		p.refuse(w, target, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "toolhost: cannot tunnel", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go func() {
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			upstream.Write(b)
		}
		io.Copy(upstream, client)
		upstream.Close()
	}()
	io.Copy(client, upstream)
	client.Close()
}

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, k := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(k))
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}
