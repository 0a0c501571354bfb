package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"toolhost/internal/config"
)

func webApp(t *testing.T, web config.Web) (*App, error) {
	t.Helper()
	cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts"), Web: web}
	a, err := Open(context.Background(), cfg, nil)
	if err == nil {
		t.Cleanup(func() { a.Close() })
	}
	return a, err
}

func webOperations(t *testing.T, a *App) []string {
	t.Helper()
	for _, tl := range a.Registry.Tools() {
		if tl.Name != "web_operations" {
			continue
		}
		return operationEnum(t, tl.InputSchema)
	}
	t.Fatal("web_operations is not advertised")
	return nil
}

func TestWebConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		web     config.Web
		wantErr string
	}{
		{"bad allow pattern", config.Web{Allow: []string{"10.0.0.0/33"}}, "web.allow"},
		{"bad deny pattern", config.Web{Deny: []string{"*.1.2.3.4"}}, "web.deny"},
		{"bad search url", config.Web{SearchURL: "ftp://search"}, "web.search_url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := webApp(t, tc.web); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Open = %v, want an error naming %s", err, tc.wantErr)
			}
		})
	}
}

// TestWebSearchOnlyWhenConfigured: web_search is advertised only with a backend, and a backend
// on this machine is reachable because the user configured it.
func TestWebSearchOnlyWhenConfigured(t *testing.T) {
	a, err := webApp(t, config.Web{})
	if err != nil {
		t.Fatal(err)
	}
	if ops := webOperations(t, a); slices.Contains(ops, "web_search") || len(ops) != 13 {
		t.Errorf("without a backend: %v", ops)
	}
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results":[{"title":"Go","url":"https://go.dev/","content":"The Go  programming language"},{"title":"Docs","url":"https://go.dev/doc/","content":""}]}`)
	}))
	defer searx.Close()
	a, err = webApp(t, config.Web{SearchURL: searx.URL})
	if err != nil {
		t.Fatal(err)
	}
	if ops := webOperations(t, a); !slices.Contains(ops, "web_search") {
		t.Errorf("with a backend: %v", ops)
	}
	res := a.Registry.Dispatch(context.Background(), "web_operations", json.RawMessage(`{"operation":"web_search","query":"golang"}`), nil)
	b, _ := json.Marshal(res)
	if res.IsError || !strings.Contains(string(b), "1. Go") || !strings.Contains(string(b), "The Go programming language") {
		t.Errorf("web_search: %s", b)
	}
	// Only the backend's port is opened, not loopback at large.
	res = a.Registry.Dispatch(context.Background(), "web_operations", json.RawMessage(`{"operation":"http_request","url":"http://127.0.0.1:1/"}`), nil)
	if b, _ := json.Marshal(res); !res.IsError || !strings.Contains(string(b), "network_refused") {
		t.Errorf("another loopback port: %s", b)
	}
}
