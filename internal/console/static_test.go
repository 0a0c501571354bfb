package console

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestStaticFiles: pages link the static files by a version of their content, which the
// browser may keep for a year; any other request of a file is revalidated by its ETag, and
// nothing but the console's own files is served.
func TestStaticFiles(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	_, page := f.get(t, cl, "/signin")
	links := regexp.MustCompile(`(?:href|src)="(/static/[^"?]+)\?v=([0-9a-f]{12})"`).FindAllStringSubmatch(page, -1)
	if len(links) != 2 {
		t.Fatalf("want the stylesheet and the script linked with a version, found %v in:\n%s", links, page)
	}
	get := func(path string, hdr map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, l := range links {
		file, version := l[1], l[2]
		cases := []struct {
			name, path  string
			hdr         map[string]string
			status      int
			cache, etag string
		}{
			{"the linked version", file + "?v=" + version, nil, http.StatusOK, "public, max-age=31536000, immutable", `"` + version + `"`},
			{"no version", file, nil, http.StatusOK, "no-cache", `"` + version + `"`},
			{"an old version", file + "?v=000000000000", nil, http.StatusOK, "no-cache", `"` + version + `"`},
			{"revalidated", file, map[string]string{"If-None-Match": `"` + version + `"`}, http.StatusNotModified, "no-cache", `"` + version + `"`},
			{"changed since", file, map[string]string{"If-None-Match": `"000000000000"`}, http.StatusOK, "no-cache", `"` + version + `"`},
		}
		for _, tc := range cases {
			t.Run(strings.TrimPrefix(file, "/static/")+" "+tc.name, func(t *testing.T) {
				resp := get(tc.path, tc.hdr)
				if resp.StatusCode != tc.status || resp.Header.Get("Cache-Control") != tc.cache || resp.Header.Get("ETag") != tc.etag {
					t.Errorf("GET %s = %d, Cache-Control %q, ETag %q; want %d, %q, %q", tc.path, resp.StatusCode,
						resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"), tc.status, tc.cache, tc.etag)
				}
				if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("GET %s lacks the security headers: %v", tc.path, resp.Header)
				}
			})
		}
	}
	for _, path := range []string{"/static/", "/static/nope.js", "/static/../console.go", "/static/%2e%2e/console.go", "/static/templates/layout.html"} {
		if resp := get(path, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}
}
