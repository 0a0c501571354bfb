package app

import (
	"fmt"
	"net"
	"net/url"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/browser"
	"toolhost/internal/web"
)

// webTool builds web_operations: the network guard from [web] (with the app's grants and audit),
// the HTTP engine on it and the browser manager, which starts Chromium only when a conversation
// opens a browser. The tool closes the browsers when the registry closes.
func (a *App) webTool() (*consolidated.Tool, error) {
	wc := a.Config.Web
	allow := append([]string(nil), wc.Allow...)
	if wc.SearchURL != "" {
		// The user configured the search backend, often on this machine: reaching it is allowed.
		u, err := url.Parse(wc.SearchURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return nil, fmt.Errorf("web.search_url %q: want an http(s) URL", wc.SearchURL)
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		allow = append(allow, net.JoinHostPort(u.Hostname(), port))
	}
	ng, err := authz.NewNetGuard(a.Guard, authz.NetConfig{Allow: allow, Deny: wc.Deny, Logger: a.Logger,
		Elsewhere: a.listenerElsewhere()})
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	a.NetGuard = ng
	client, err := web.New(web.Config{
		Guard:            ng,
		Timeout:          wc.Timeout.Duration,
		MaxTimeout:       wc.MaxTimeout.Duration,
		MaxResponseBytes: wc.MaxResponseBytes,
		MaxDownloadBytes: wc.MaxDownloadBytes,
		MaxRedirects:     wc.MaxRedirects,
		PerHost:          wc.PerHostConcurrency,
		UserAgent:        wc.UserAgent,
		Logger:           a.Logger,
	})
	if err != nil {
		return nil, err
	}
	mgr, err := browser.NewManager(browser.Config{
		Chromium:    wc.Chromium,
		Web:         client,
		Guard:       ng,
		IdleTimeout: wc.BrowserIdleTimeout.Duration,
		MaxBrowsers: wc.MaxBrowsers,
		Logger:      a.Logger,
	})
	if err != nil {
		return nil, err
	}
	return consolidated.WebTool(consolidated.WebConfig{Client: client, Guard: a.Guard, Browsers: mgr, SearchURL: wc.SearchURL}), nil
}

// RegisterListener records one of the server's listening addresses with the network guard: no
// request and no page can reach toolhost itself, whatever [web] allow says. The returned
// function removes it.
func (a *App) RegisterListener(addr string) (func(), error) {
	a.roots.mu.Lock()
	a.roots.listeners = append(a.roots.listeners, addr)
	for _, ws := range a.roots.apps {
		if _, err := ws.RegisterListener(addr); err != nil {
			a.roots.mu.Unlock()
			return nil, err
		}
	}
	a.roots.mu.Unlock()
	if a.NetGuard == nil {
		return func() {}, nil
	}
	return a.NetGuard.RegisterListener(addr)
}
