package mcptest

import (
	"net/http"
	"strings"
)

// NewRequest is a POST of the JSON-RPC message body to the streamable HTTP endpoint url, as a
// client sends it: JSON in, JSON or an SSE stream accepted, and the bearer token, the
// Mcp-Protocol-Version and the Mcp-Session-Id headers where token, version and session are
// not "".
func NewRequest(url, token, version, session, body string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	return req
}
