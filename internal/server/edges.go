package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// protocolEdges answers what the go-sdk's HTTP handler gets wrong for clients at the edges of
// the protocol, and passes everything else to next:
//
//   - A body over maxBody gets a JSON-RPC error for that request (its id read from the start of
//     the body) with status 413, which clients surface as that call's error; the SDK answers a
//     plain-text 413, after which clients drop the session.
//   - A request before initialize gets CodeNotInitialized instead of the SDK's code 0.
func protocolEdges(next http.Handler, maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		}
		if int64(len(body)) > maxBody {
			resp := errorResponse{JSONRPC: "2.0", ID: probeID(body[:min(len(body), idProbeBytes)])}
			resp.Error.Code = jsonrpc.CodeInvalidRequest
			resp.Error.Message = fmt.Sprintf("request body longer than %d bytes; send less per call", maxBody)
			b, _ := json.Marshal(resp)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			w.Write(b)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(notInitializedWriter{w}, r)
	})
}

// notInitializedWriter gives the SDK's answer to a request before initialize the code
// CodeNotInitialized. The SDK writes a JSON answer, or an SSE event, in one Write.
type notInitializedWriter struct{ http.ResponseWriter }

var (
	sdkNotInitializedCode = []byte(`"code":0,`)
	notInitializedCode    = fmt.Appendf(nil, `"code":%d,`, CodeNotInitialized)
	// sdkNotInitializedMessage is the go-sdk's message as JSON encodes it:
	// "method \"tools/list\" is invalid during session initialization".
	sdkNotInitializedMessage = regexp.MustCompile(`"message":"method \\"((?:[^"\\]|\\.)*)\\" ` + sdkNotInitialized + `"`)
)

// NotInitializedMessage is the message of CodeNotInitialized, with the method that came too
// early: "server not initialized: send initialize first (got tools/list)". docs/tools.md
// documents both.
func NotInitializedMessage(method string) string {
	return "server not initialized: send initialize first (got " + method + ")"
}

// fixNotInitialized returns message p with the go-sdk's answer to a request before initialize
// (code 0, "method ... is invalid during session initialization") replaced by
// CodeNotInitialized and NotInitializedMessage, and whether p was such a message.
func fixNotInitialized(p []byte) ([]byte, bool) {
	if !bytes.Contains(p, []byte(sdkNotInitialized)) || !bytes.Contains(p, sdkNotInitializedCode) || !sdkNotInitializedMessage.Match(p) {
		return p, false
	}
	p = bytes.Replace(p, sdkNotInitializedCode, notInitializedCode, 1)
	return sdkNotInitializedMessage.ReplaceAllFunc(p, func(m []byte) []byte {
		method := sdkNotInitializedMessage.FindSubmatch(m)[1]
		var name string
		if json.Unmarshal(append(append([]byte(`"`), method...), '"'), &name) != nil {
			name = "a request"
		}
		msg, _ := json.Marshal(NotInitializedMessage(name))
		return append([]byte(`"message":`), msg...)
	}), true
}

func (n notInitializedWriter) Write(p []byte) (int, error) {
	return notInitializedOut{n.ResponseWriter}.Write(p)
}

// Flush passes flushes on, so SSE streams still stream.
func (n notInitializedWriter) Flush() {
	if f, ok := n.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (n notInitializedWriter) Unwrap() http.ResponseWriter { return n.ResponseWriter }
