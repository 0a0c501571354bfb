package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"toolhost/authz"
	"toolhost/internal/engine"
)

func TestParseFilter(t *testing.T) {
	tests := []struct {
		query string
		param string // "" for valid
	}{
		{"", ""},
		{"tool=think&status=success&category=safe&principal=alice&conversation=c1&limit=100&offset=5", ""},
		{"since=2026-01-02T15:04:05Z&until=1h", ""},
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"limit=-3", "limit"},
		{"limit=1e3", "limit"},
		{"offset=x", "offset"},
		{"offset=-1", "offset"},
		{"status=ok", "status"},
		{"category=high", "category"},
		{"since=tomorrow", "since"},
		{"until=-5m", "until"},
		{"since=1h&until=2h", "since"},
		{"sort=asc", "sort"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.query)
			_, err := ParseFilter(q)
			var fe *engine.FilterError
			switch {
			case tt.param == "" && err != nil:
				t.Errorf("ParseFilter(%s) = %v, want valid", tt.query, err)
			case tt.param != "" && (!errors.As(err, &fe) || fe.Param != tt.param):
				t.Errorf("ParseFilter(%s) = %v, want an error naming %s", tt.query, err, tt.param)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
	}{{"90m", now.Add(-90 * time.Minute)}, {"2026-01-01T00:00:00Z", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		if got, err := ParseTime(tt.in, now); err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestPrincipalOfFailsClosed: a TokenInfo that does not carry a known tier is view_only.
func TestPrincipalOfFailsClosed(t *testing.T) {
	tests := []struct {
		name string
		ti   *auth.TokenInfo
		want authz.Tier
	}{
		{"round trip", TokenInfoOf(authz.Principal{Name: "a", Tier: authz.TierExecuteAdvanced}), authz.TierExecuteAdvanced},
		{"no extra", &auth.TokenInfo{UserID: "a"}, authz.TierViewOnly},
		{"unknown tier", &auth.TokenInfo{UserID: "a", Extra: map[string]any{"tier": "root"}}, authz.TierViewOnly},
		{"tier of another type", &auth.TokenInfo{UserID: "a", Extra: map[string]any{"tier": 3}}, authz.TierViewOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PrincipalOf(tt.ti); got.Tier != tt.want || got.Name != "a" {
				t.Errorf("PrincipalOf = %+v, want tier %s", got, tt.want)
			}
		})
	}
}

// TestAuthenticate: the serve token is the admin "default", table tokens resolve to their
// principal, unknown or revoked ones are 401, and a token table that cannot be read is 503 (the
// client's token may be fine).
func TestAuthenticate(t *testing.T) {
	resolve := func(_ context.Context, secret string) (authz.Principal, error) {
		switch secret {
		case "th_basic":
			return authz.Principal{Name: "basic", Tier: authz.TierExecuteBasic}, nil
		case "th_busy":
			return authz.Principal{}, errors.New("state store busy")
		}
		return authz.Principal{}, authz.ErrBadToken
	}
	var seen authz.Principal
	h := authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = authz.PrincipalFrom(r.Context())
	}), HTTPOptions{Token: "th_serve", Resolve: resolve})
	tests := []struct {
		header string
		code   int
		want   string
	}{
		{"Bearer th_serve", 200, "default"},
		{"bearer th_serve", 200, "default"},
		{"Bearer th_basic", 200, "basic"},
		{"Bearer th_revoked", 401, ""},
		{"Bearer ", 401, ""},
		{"Basic th_serve", 401, ""},
		{"", 401, ""},
		{"Bearer th_busy", 503, ""},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			seen = authz.Principal{}
			req := httptest.NewRequest("GET", "/api/stats", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.code || seen.Name != tt.want {
				t.Errorf("%q: %d as %q, want %d as %q", tt.header, rec.Code, seen.Name, tt.code, tt.want)
			}
		})
	}
}
