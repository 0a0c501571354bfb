package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// TestOperatorRoutes: operator routes open only to the operator token, whatever the client
// token or --no-auth say, and hand the handler the operator principal and origin.
func TestOperatorRoutes(t *testing.T) {
	const client, operator = "th_client_token_0123456789", "thop_operator_token_0123456789"
	var seen authz.Origin
	probe := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := authz.PrincipalFrom(r.Context())
		seen, _ = authz.OriginFrom(r.Context())
		io.WriteString(w, "operator "+p.Name)
	})
	for _, noAuth := range []bool{false, true} {
		h := NewHTTPHandler(mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil), HTTPOptions{Token: client, NoAuth: noAuth, OperatorToken: operator,
			OperatorRoutes: map[string]http.Handler{"/api/probe": probe}})
		srv := httptest.NewServer(h)
		tests := []struct {
			name, auth string
			want       int
		}{
			{"no token", "", http.StatusUnauthorized},
			{"client token", "Bearer " + client, http.StatusUnauthorized},
			{"operator token, wrong scheme", "Basic " + operator, http.StatusUnauthorized},
			{"operator token with a suffix", "Bearer " + operator + "x", http.StatusUnauthorized},
			{"operator token", "Bearer " + operator, http.StatusOK},
			{"operator token, lower-case scheme", "bearer " + operator, http.StatusOK},
		}
		for _, tt := range tests {
			req, _ := http.NewRequest("GET", srv.URL+"/api/probe", nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("noAuth %v, %s: GET /api/probe = %d %s, want %d", noAuth, tt.name, resp.StatusCode, b, tt.want)
			}
			if tt.want == http.StatusOK && (string(b) != "operator operator" || seen.Channel != "http" || seen.PID == 0) {
				t.Errorf("noAuth %v, %s: handler saw %q and origin %+v, want the operator principal and the peer process", noAuth, tt.name, b, seen)
			}
		}
		srv.Close()
	}
}

// TestOperatorFailsClosed: without an operator token nothing opens, and a request whose peer
// process cannot be determined (no TCP connection) is refused.
func TestOperatorFailsClosed(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	w := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/api/probe", nil)
	req.Header.Set("Authorization", "Bearer ")
	Operator(ok, "", nil).ServeHTTP(w, req)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("no operator token configured: %d, want 401", w.Code)
	}
	w = httptest.NewRecorder()
	req = httptest.NewRequest("GET", "/api/probe", nil)
	req.Header.Set("Authorization", "Bearer thop_x0123456789abcdef")
	Operator(ok, "thop_x0123456789abcdef", nil).ServeHTTP(w, req)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "peer process") {
		t.Errorf("unknown peer: %d %q, want 403 naming the peer check", w.Code, w.Body.String())
	}
}
