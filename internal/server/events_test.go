package server

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"toolhost/internal/mcptest"
)

// post sends one JSON-RPC message to /mcp and returns the response and the SSE event ids in it.
func post(t *testing.T, url, session, body string) (*http.Response, []string, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(mcptest.NewRequest(url, "", "2025-11-25", session, body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var ids []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			ids = append(ids, id)
		}
	}
	return resp, ids, string(data)
}

// TestReplayOfDroppedEvents: a Last-Event-ID whose following events the bounded store has
// dropped is answered with an error that says so, never with a silent gap; a malformed one
// is refused too.
func TestReplayOfDroppedEvents(t *testing.T) {
	s := thinkServer()
	srv := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{NoAuth: true, EventStoreBytes: 600}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	resp, _, body := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize gave no session: %d %s", resp.StatusCode, body)
	}
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var first string
	for i := range 8 {
		_, ids, body := post(t, url, session, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+2)+`,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"`+strings.Repeat("x", 200)+`"}}}`)
		if len(ids) == 0 {
			t.Fatalf("a tools/call answer carries no event id:\n%s", body)
		}
		if first == "" {
			first = ids[len(ids)-1]
		}
	}
	get := func(eid string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Last-Event-ID", eid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	stream, _, _ := strings.Cut(first, "_")
	if code, body := get(stream + "_0"); code != http.StatusBadRequest || !strings.Contains(body, "too old") || !strings.Contains(body, "cannot be replayed") {
		t.Errorf("GET with a dropped Last-Event-ID = %d %q, want 400 saying it is too old", code, body)
	}
	if code, _ := get("not-an-id"); code != http.StatusBadRequest {
		t.Errorf("GET with a malformed Last-Event-ID = %d, want 400", code)
	}
}
