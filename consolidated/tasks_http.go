package consolidated

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TaskHandler serves MCP Tasks on streamable HTTP, in front of the go-sdk's handler next, with
// the taskRewriter TaskTransport puts on stdio: the JSON-RPC messages of a POST are rewritten
// on their way in (and the Mcp-Method and Mcp-Name headers with them, which the SDK checks
// against the body), and the answers on their way out, in a JSON body or an SSE stream. GET
// streams (a replay after a dropped connection) have their task answers rewritten too.
//
// Whether a stateful session's client declared tasks is remembered by session id from its
// initialize; a 2026-07-28 request declares it in its own _meta. next must bound request
// bodies before this handler reads them (internal/server's protocolEdges does).
func TaskHandler(next http.Handler) http.Handler {
	return &taskHTTP{next: next, speakers: map[string]struct{}{}}
}

// maxTaskSpeakers bounds the session ids remembered as speaking tasks; past it one is
// forgotten (its client then sees tools/list without the task marks, and tasks still work).
const maxTaskSpeakers = 4096

type taskHTTP struct {
	next http.Handler

	mu       sync.Mutex
	speakers map[string]struct{} // stateful sessions whose client declared tasks
}

func (h *taskHTTP) speaks(session string) bool {
	if session == "" {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.speakers[session]
	return ok
}

func (h *taskHTTP) remember(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.speakers) >= maxTaskSpeakers {
		for k := range h.speakers {
			delete(h.speakers, k)
			break
		}
	}
	h.speakers[session] = struct{}{}
}

// taskMarkers are what a message taskRewriter changes holds: tasks/* methods and the task
// parameter, the Tasks extension's name, and the methods whose answers declare tasks.
var taskMarkers = [][]byte{[]byte(`"task`), []byte(tasksExtension), []byte(`"initialize"`), []byte(`"tools/list"`), []byte(`"server/discover"`)}

// mentionsTasks reports whether a body may hold a message taskRewriter changes: a request
// without any of taskMarkers passes as it came.
func mentionsTasks(body []byte) bool {
	for _, m := range taskMarkers {
		if bytes.Contains(body, m) {
			return true
		}
	}
	return false
}

func (h *taskHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	session := r.Header.Get("Mcp-Session-Id")
	if r.Method == http.MethodGet {
		h.next.ServeHTTP(&taskWriter{ResponseWriter: w, rw: newTaskRewriter(false)}, r)
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !mentionsTasks(body) {
		h.next.ServeHTTP(w, r)
		return
	}
	raws, batch, err := splitBody(body)
	if err != nil {
		h.next.ServeHTTP(w, r) // the SDK answers a malformed body
		return
	}
	rw := newTaskRewriter(h.speaks(session))
	changed, initialize := false, false
	for i, raw := range raws {
		req := peekRequest(raw)
		if req == nil {
			continue
		}
		initialize = initialize || req.Method == "initialize"
		out := rw.request(req)
		if out == req {
			continue
		}
		b, err := jsonrpc.EncodeMessage(out)
		if err != nil {
			http.Error(w, "failed to encode body", http.StatusInternalServerError)
			return
		}
		changed, raws[i] = true, b
		if !batch && r.Header.Get("Mcp-Method") != "" {
			r.Header.Set("Mcp-Method", out.Method)
			if name, ok := toolName(out); ok {
				r.Header.Set("Mcp-Name", name)
			}
		}
	}
	if changed {
		body = raws[0]
		if batch {
			body, _ = json.Marshal(raws)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	tw := &taskWriter{ResponseWriter: w, rw: rw}
	if initialize {
		tw.onHeader = func(hdr http.Header) {
			rw.mu.Lock()
			speaks := rw.speaks
			rw.mu.Unlock()
			if id := hdr.Get("Mcp-Session-Id"); speaks && id != "" {
				h.remember(id)
			}
		}
	}
	h.next.ServeHTTP(tw, r)
	tw.finish()
}

// toolName is the tool a tools/call names.
func toolName(req *jsonrpc.Request) (string, bool) {
	if req.Method != "tools/call" {
		return "", false
	}
	var p struct {
		Name string `json:"name"`
	}
	return p.Name, json.Unmarshal(req.Params, &p) == nil
}

// splitBody splits an HTTP body into its JSON-RPC messages: one, or a batch.
func splitBody(body []byte) (raws []json.RawMessage, batch bool, err error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		err = json.Unmarshal(t, &raws)
		return raws, true, err
	}
	if !json.Valid(body) {
		return nil, false, errors.New("malformed JSON")
	}
	return []json.RawMessage{body}, false, nil
}

// peekRequest reads a request (a call or a notification) for the rewriter, without the
// go-sdk's decoder, which costs a 64 KB buffer a message; nil for anything else.
func peekRequest(raw json.RawMessage) *jsonrpc.Request {
	var m struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method == "" {
		return nil
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return nil
	}
	return &jsonrpc.Request{ID: id, Method: m.Method, Params: m.Params}
}

// decodeBody reads an HTTP body of one JSON-RPC message or a batch of them.
func decodeBody(body []byte) (msgs []jsonrpc.Message, batch bool, err error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(t, &raws); err != nil {
			return nil, true, err
		}
		for _, raw := range raws {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, true, err
			}
			msgs = append(msgs, m)
		}
		return msgs, true, nil
	}
	m, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, false, err
	}
	return []jsonrpc.Message{m}, false, nil
}

func encodeBody(msgs []jsonrpc.Message, batch bool) ([]byte, error) {
	if !batch {
		return jsonrpc.EncodeMessage(msgs[0])
	}
	raws := make([]json.RawMessage, 0, len(msgs))
	for _, m := range msgs {
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return nil, err
		}
		raws = append(raws, b)
	}
	return json.Marshal(raws)
}

// taskWriter rewrites the answers in a response of the go-sdk's handler: a JSON body whole
// when it ends, an SSE stream event by event.
type taskWriter struct {
	http.ResponseWriter
	rw       *taskRewriter
	onHeader func(http.Header) // called before the header is sent

	wrote bool
	mode  int // modePass, modeJSON or modeSSE
	buf   []byte
}

const (
	modePass = iota
	modeJSON
	modeSSE
)

func (t *taskWriter) WriteHeader(code int) {
	if t.wrote {
		return
	}
	t.wrote = true
	hdr := t.Header()
	switch ct := hdr.Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream"):
		t.mode = modeSSE
	case strings.HasPrefix(ct, "application/json"):
		t.mode = modeJSON
		hdr.Del("Content-Length") // the rewritten body has another length
	}
	if t.onHeader != nil {
		t.onHeader(hdr)
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *taskWriter) Write(p []byte) (int, error) {
	if !t.wrote {
		t.WriteHeader(http.StatusOK)
	}
	switch t.mode {
	case modeJSON:
		t.buf = append(t.buf, p...)
		return len(p), nil
	case modeSSE:
		// The SDK writes whole events: they go out without a copy; a piece waits in buf.
		data := p
		if len(t.buf) > 0 {
			data = append(t.buf, p...)
		}
		for {
			i := bytes.Index(data, []byte("\n\n"))
			if i < 0 {
				break
			}
			if _, err := t.ResponseWriter.Write(t.rewriteEvent(data[:i+2])); err != nil {
				return 0, err
			}
			data = data[i+2:]
		}
		t.buf = append([]byte(nil), data...)
		return len(p), nil
	}
	return t.ResponseWriter.Write(p)
}

// rewriteEvent rewrites the JSON-RPC answer in an SSE event's data, keeping its other fields.
func (t *taskWriter) rewriteEvent(event []byte) []byte {
	if !t.rw.expects() && !bytes.Contains(event, []byte(`"`+rpcMetaKey+`"`)) {
		return event
	}
	lines := strings.Split(strings.TrimSuffix(string(event), "\n\n"), "\n")
	var data []string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "data:"); ok {
			data = append(data, strings.TrimPrefix(v, " "))
		}
	}
	if len(data) == 0 {
		return event
	}
	out, ok := t.rewriteMessage([]byte(strings.Join(data, "\n")))
	if !ok {
		return event
	}
	var b bytes.Buffer
	done := false
	for _, l := range lines {
		if strings.HasPrefix(l, "data:") {
			if !done {
				b.WriteString("data: ")
				b.Write(out)
				b.WriteByte('\n')
				done = true
			}
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// rewriteMessage rewrites one JSON-RPC answer (or a batch of them); ok is false when nothing
// changed.
func (t *taskWriter) rewriteMessage(data []byte) ([]byte, bool) {
	if !t.rw.expects() && !bytes.Contains(data, []byte(`"`+rpcMetaKey+`"`)) {
		return data, false // nothing to rewrite: no decoding of what may be a large answer
	}
	msgs, batch, err := decodeBody(data)
	if err != nil {
		return data, false
	}
	changed := false
	for i, m := range msgs {
		if resp, ok := m.(*jsonrpc.Response); ok {
			if out := t.rw.response(resp); out != resp {
				msgs[i], changed = out, true
			}
		}
	}
	if !changed {
		return data, false
	}
	b, err := encodeBody(msgs, batch)
	if err != nil {
		return data, false
	}
	return b, true
}

// Flush passes flushes on, so SSE streams still stream (a JSON body goes out whole in finish).
func (t *taskWriter) Flush() {
	if t.mode == modeJSON {
		return
	}
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (t *taskWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// finish writes what is held back: a JSON body, rewritten, or the rest of a stream.
func (t *taskWriter) finish() {
	if len(t.buf) == 0 {
		return
	}
	out := t.buf
	if t.mode == modeJSON {
		out, _ = t.rewriteMessage(t.buf)
	}
	t.buf = nil
	t.ResponseWriter.Write(out)
}
