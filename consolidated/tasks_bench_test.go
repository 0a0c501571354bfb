package consolidated

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkTaskHandler measures what TaskHandler adds to a request of the go-sdk's streamable
// HTTP handler (stateless, in process): a call it passes untouched (think) and one whose answer
// it reads (tools/list), each with and without it. Compare the pairs' ns/op:
//
//	go test ./consolidated -run '^$' -bench TaskHandler -count 5
func BenchmarkTaskHandler(b *testing.B) {
	h := newHarness(b, harnessOptions{tools: func(h *harness) []*Tool { return []*Tool{ThinkTool(), testTerminalTool(h)} }})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.server }, &mcp.StreamableHTTPOptions{Stateless: true})
	bodies := map[string]string{
		"think":      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"benchmark"}}}`,
		"tools_list": `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
	}
	for _, name := range []string{"think", "tools_list"} {
		for _, variant := range []struct {
			name string
			h    http.Handler
		}{{"sdk", sdk}, {"with_tasks", TaskHandler(sdk)}} {
			b.Run(name+"/"+variant.name, func(b *testing.B) {
				for b.Loop() {
					req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(bodies[name]))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
					rec := httptest.NewRecorder()
					variant.h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
					io.Copy(io.Discard, rec.Body)
				}
			})
		}
	}
}
