package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"toolhost/authz"
	"toolhost/store/storetest"
)

// TestHTTPHardening drives the real handler: every request needs the bearer token, a Host that
// names this machine (or an allowed host) and, from a browser, a loopback Origin.
func TestHTTPHardening(t *testing.T) {
	s := thinkServer()
	h := NewHTTPHandler(s, HTTPOptions{Token: "tok-123", AllowedHosts: []string{"box.lan"}})
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name    string
		host    string
		headers map[string]string
		want    int
	}{
		{"token", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-123"}, http.StatusOK},
		{"scheme in lower case", "127.0.0.1:8765", map[string]string{"Authorization": "bearer tok-123"}, http.StatusOK},
		{"no token", "127.0.0.1:8765", nil, http.StatusUnauthorized},
		{"wrong token", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-124"}, http.StatusUnauthorized},
		{"token prefix", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-12"}, http.StatusUnauthorized},
		{"basic scheme", "127.0.0.1:8765", map[string]string{"Authorization": "Basic tok-123"}, http.StatusUnauthorized},
		{"token without scheme", "127.0.0.1:8765", map[string]string{"Authorization": "tok-123"}, http.StatusUnauthorized},
		{"foreign origin", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-123", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"null origin", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-123", "Origin": "null"}, http.StatusForbidden},
		{"origin with loopback prefix", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-123", "Origin": "http://localhost.evil.example"}, http.StatusForbidden},
		{"loopback origin", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-123", "Origin": "http://localhost:3000"}, http.StatusOK},
		{"cross-site fetch", "127.0.0.1:8765", map[string]string{"Authorization": "Bearer tok-123", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"rebinding host", "evil.example:8765", map[string]string{"Authorization": "Bearer tok-123"}, http.StatusForbidden},
		{"localhost with trailing dot", "localhost.:8765", map[string]string{"Authorization": "Bearer tok-123"}, http.StatusForbidden},
		{"ipv6 loopback", "[::1]:8765", map[string]string{"Authorization": "Bearer tok-123"}, http.StatusOK},
		{"allowed host", "box.lan:8765", map[string]string{"Authorization": "Bearer tok-123"}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://"+tt.host+"/mcp", strings.NewReader(init))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Errorf("POST /mcp with Host %s and %v = %d, want %d (%s)", tt.host, tt.headers, w.Code, tt.want, strings.TrimSpace(w.Body.String()))
			}
		})
	}
}

// TestApprovalEndpointMinutes: the minutes of an approval are checked before they become a
// time.Duration, where 2^40 minutes would overflow into an arbitrary (possibly short) grant.
func TestApprovalEndpointMinutes(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	g, err := authz.New(ctx, authz.Config{WorkDir: t.TempDir(), StateDir: st.Dir(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	h := ApprovalsHandler(g)
	tests := []struct {
		name    string
		minutes int64
		want    int
	}{
		{"overflowing", 1 << 40, http.StatusBadRequest},
		{"negative", -5, http.StatusBadRequest},
		{"beyond the maximum", 43201, http.StatusBadRequest},
		{"maximum", 43200, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ap, err := g.RequestAuthorization(ctx, authz.AuthorizationRequest{Conversation: "c", Path: t.TempDir(), Access: "file_operations:write"})
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"decision":"approve","minutes":%d}`, tt.minutes)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/approvals/"+ap.ID, strings.NewReader(body)))
			if w.Code != tt.want {
				t.Errorf("POST %s = %d, want %d (%s)", body, w.Code, tt.want, strings.TrimSpace(w.Body.String()))
			}
		})
	}
}

// TestHTTPAuthChallenges: a 401 tells a client which credential problem it has (RFC 6750), and
// the OAuth discovery paths answer 404 without a token, so clients do not start an OAuth flow
// for a server that has none and say "wrong token" instead of "authenticate".
func TestHTTPAuthChallenges(t *testing.T) {
	s := thinkServer()
	h := NewHTTPHandler(s, HTTPOptions{Token: "tok-123", Routes: map[string]http.Handler{"/api/approvals": http.NotFoundHandler()}})
	tests := []struct {
		name      string
		method    string
		path      string
		auth      string
		want      int
		challenge string // the WWW-Authenticate header, "" for none
	}{
		{"no token", http.MethodPost, "/mcp", "", http.StatusUnauthorized, `Bearer realm="toolhost"`},
		{"wrong token", http.MethodPost, "/mcp", "Bearer tok-999", http.StatusUnauthorized,
			`Bearer realm="toolhost", error="invalid_token", error_description="wrong token: use the token toolhost serve printed (TOOLHOST_TOKEN or the token file in its state dir)"`},
		{"bearer without a token", http.MethodPost, "/mcp", "Bearer ", http.StatusUnauthorized,
			`Bearer realm="toolhost", error="invalid_request", error_description="toolhost takes Authorization: Bearer TOKEN"`},
		{"other scheme", http.MethodPost, "/mcp", "Basic dG9rLTEyMw==", http.StatusUnauthorized,
			`Bearer realm="toolhost", error="invalid_request", error_description="toolhost takes Authorization: Bearer TOKEN"`},
		{"wrong token on an operator route", http.MethodGet, "/api/approvals", "Bearer tok-999", http.StatusUnauthorized,
			`Bearer realm="toolhost", error="invalid_token", error_description="wrong token: use the token toolhost serve printed (TOOLHOST_TOKEN or the token file in its state dir)"`},
		{"protected resource metadata", http.MethodGet, "/.well-known/oauth-protected-resource", "", http.StatusNotFound, ""},
		{"protected resource metadata for /mcp", http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", http.StatusNotFound, ""},
		{"authorization server metadata", http.MethodGet, "/.well-known/oauth-authorization-server", "", http.StatusNotFound, ""},
		{"openid configuration", http.MethodGet, "/.well-known/openid-configuration", "", http.StatusNotFound, ""},
		{"default registration endpoint", http.MethodPost, "/register", "", http.StatusNotFound, ""},
		{"well-known with a wrong token", http.MethodGet, "/.well-known/oauth-authorization-server", "Bearer tok-999", http.StatusNotFound, ""},
		// The router sends an unclean path to its clean form, which then needs the token.
		{"mcp below a well-known path", http.MethodPost, "/.well-known/../mcp", "", http.StatusTemporaryRedirect, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://127.0.0.1:8765"+tt.path, strings.NewReader(`{}`))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want || w.Header().Get("WWW-Authenticate") != tt.challenge {
				t.Errorf("%s %s with %q = %d, WWW-Authenticate %q; want %d, %q", tt.method, tt.path, tt.auth, w.Code, w.Header().Get("WWW-Authenticate"), tt.want, tt.challenge)
			}
		})
	}
}
