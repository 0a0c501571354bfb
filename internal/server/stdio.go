package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine bounds one inbound JSON-RPC line, its terminator aside. toolhost answers a longer
// line with an error and skips it; the go-sdk's transport is given the same bound (its
// MaxLineLength), which no line it is passed can reach.
const MaxStdioLine = 32 << 20

// ServeStdio serves s over newline-delimited JSON on in and out until in ends or ctx is done.
// Unlike the SDK's own stdio transport, a malformed or over-long line is answered with a
// JSON-RPC error and the session goes on: one bad write by a client must not cost the user
// their session.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w := &lockedWriter{w: out}
	lines := &lineReader{r: bufio.NewReaderSize(in, 64<<10), reply: w, logger: logger}
	err := s.Run(ctx, &mcp.IOTransport{Reader: lines, Writer: nopCloser{notInitializedOut{w}}, MaxLineLength: MaxStdioLine})
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// lineReader is what the go-sdk's transport reads: the client's well-formed lines, read from its
// own goroutine when it wants the next message, so a line goes from the system call to the
// decoder without a hand-over between goroutines. The lines the SDK would choke on are
// answered on reply and skipped. A Read never returns bytes of two lines, nor the newline: the
// SDK's decoder needs no separator between values it is handed one by one, and so it counts
// exactly a line's bytes against its MaxLineLength.
type lineReader struct {
	r       *bufio.Reader
	reply   io.Writer
	logger  *slog.Logger
	batchOK bool   // whether the client asked for a protocol version that has batches
	line    []byte // what the transport has yet to read of the line passed on
	err     error  // why reading the client's input stopped
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.line) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.line, l.err = l.next()
	}
	n := copy(p, l.line)
	l.line = l.line[n:]
	return n, nil
}

// Close does nothing: the transport closes its reader when the session ends, and a read of the
// client's input cannot be interrupted.
func (l *lineReader) Close() error { return nil }

// next reads the client's next line and returns it when it is to be passed on; a line that is
// not is answered, and next returns nothing with the reading error, if any.
func (l *lineReader) next() ([]byte, error) {
	line, tooLong, err := readLine(l.r, MaxStdioLine)
	if len(line) == 0 && !tooLong {
		return nil, err
	}
	bad, env := check(line, tooLong)
	var out any = bad
	if bad == nil && line[0] == '[' {
		if errs := checkBatch(line, l.batchOK); errs != nil {
			bad, out = &errs[0], errs
			if len(errs) == 1 && string(errs[0].ID) == "null" {
				out = &errs[0] // an empty batch is answered with one error
			}
		}
	} else if bad == nil {
		l.batchOK = batchesAllowed(env, l.batchOK)
	}
	if bad == nil {
		return line, err
	}
	l.logger.Warn("stdio: rejected line", "code", bad.Error.Code, "bytes", len(line), "reason", bad.Error.Message)
	b, _ := json.Marshal(out)
	if _, werr := l.reply.Write(append(b, '\n')); werr != nil {
		return nil, werr
	}
	return nil, err
}

// idProbeBytes is how much of an over-long line is kept to find its id: clients write "id" before
// the (large) params, so the start of the message holds it.
const idProbeBytes = 4096

// readLine returns the next line without its newline and surrounding space. Past limit bytes
// (the newline aside) the rest of the line is discarded and tooLong is set; line then holds only
// the line's first idProbeBytes, for probeID.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1] // the newline
		}
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong = true
				if keep := idProbeBytes - len(line); keep > 0 {
					line = append(line, chunk[:min(keep, len(chunk))]...)
				}
				line = line[:min(len(line), idProbeBytes)]
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// probeID returns the id of the JSON-RPC message whose first bytes are head (the message itself
// may be cut), or null when it cannot be read from there: the top-level members are scanned in
// order until "id", and a member that does not fit in head ends the scan.
func probeID(head []byte) json.RawMessage {
	null := json.RawMessage("null")
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return null
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return null
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return null
		}
		if key == "id" {
			if len(val) > 0 && (val[0] == '"' || val[0] == '-' || val[0] >= '0' && val[0] <= '9') {
				return val
			}
			return null
		}
	}
	return null
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// check returns the error response for a line the SDK would choke on, or nil if it is fine,
// with whether it passes on the protocol version of an initialize request (see batchesAllowed).
func check(line []byte, tooLong bool) (*errorResponse, envelope) {
	resp := &errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
	switch {
	case tooLong:
		// Answered with the request's id, so the client's call fails now instead of waiting for
		// an answer that never comes; the session and its terminals go on.
		resp.ID = probeID(line)
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes; send less per call", MaxStdioLine)
		return resp, envelope{}
	case line[0] == '[':
		if !json.Valid(line) {
			resp.Error.Code, resp.Error.Message = jsonrpc.CodeParseError, "parse error: line is not valid JSON"
			return resp, envelope{}
		}
		return nil, envelope{} // batches are judged by checkBatch
	}
	env, err := readEnvelope(line)
	if err == nil {
		return nil, env
	}
	if !json.Valid(line) {
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeParseError, "parse error: line is not valid JSON"
		return resp, envelope{}
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
		resp.ID = probe.ID
	}
	resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message"
	return resp, envelope{}
}

// envelope is what lineReader reads of a message: its method and, for an initialize request,
// the protocol version it asks for.
type envelope struct {
	method          string
	protocolVersion string
}

// errNotMessage: the value is JSON, but not a message the go-sdk decodes.
var errNotMessage = errors.New("not a JSON-RPC 2.0 message")

// maxMessageDepth is the go-sdk's nesting limit for a message: it refuses deeper JSON.
const maxMessageDepth = 1000

// readEnvelope accepts exactly the lines the go-sdk's jsonrpc.DecodeMessage accepts (a fuzz
// test holds the two together), with one pass of the standard decoder over the top-level
// members instead of the SDK's decoder, which takes a fresh 32 KB buffer for every message
// and would decode each line twice. Like the SDK it matches member names exactly, checks the
// type of every occurrence of a member it reads, and refuses JSON nested deeper than
// maxMessageDepth.
func readEnvelope(line []byte) (envelope, error) {
	var env envelope
	if tooDeep(line, maxMessageDepth) {
		return env, errNotMessage
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil {
		return env, err
	}
	if tok == nil {
		return env, errNotMessage // null decodes to an empty message, without a version
	}
	if tok != json.Delim('{') {
		return env, errNotMessage
	}
	var version string
	var hasMethod, hasID bool
	var id, params json.RawMessage
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return env, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return env, err
		}
		switch key {
		case "jsonrpc":
			if version, err = jsonString(val); err != nil {
				return env, err
			}
		case "id":
			id, hasID = val, true
			if !validID(val) {
				return env, errNotMessage
			}
		case "method":
			hasMethod = true
			if env.method, err = jsonString(val); err != nil {
				return env, err
			}
		case "params":
			params = val
		case "error":
			var e struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(val, &e); err != nil {
				return env, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return env, err
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		// A second value, or a stray bracket (which dec.More would take for the end of a
		// value): the go-sdk ends the session over what follows a message on its line.
		return env, errNotMessage
	}
	if version != "2.0" {
		return env, errNotMessage
	}
	if !hasMethod && (!hasID || string(id) == "null") {
		return env, errNotMessage // a response needs an id
	}
	if hasMethod && env.method == "initialize" && len(params) > 0 {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(params, &p) == nil {
			env.protocolVersion = p.ProtocolVersion
		}
	}
	return env, nil
}

// jsonString decodes a JSON string or null (the empty string), as a Go string field does.
func jsonString(val json.RawMessage) (string, error) {
	var s string
	err := json.Unmarshal(val, &s)
	return s, err
}

// validID reports whether the go-sdk takes val as an id: a number, a string or null.
func validID(val json.RawMessage) bool {
	switch val[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var f float64
		return json.Unmarshal(val, &f) == nil
	}
	return false
}

// tooDeep reports whether data nests objects and arrays deeper than limit, counting brackets
// outside strings as the go-sdk does before it decodes.
func tooDeep(data []byte, limit int) bool {
	depth := 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// batchVersion is the first protocol version without JSON-RPC batches; the go-sdk ends the
// session when a client on it (or later) sends one.
const batchVersion = "2025-06-18"

// batchesAllowed returns whether batches are allowed after a message: an initialize request
// sets it from the version the client asks for; other messages leave it as it was.
func batchesAllowed(env envelope, was bool) bool {
	if env.method != "initialize" {
		return was
	}
	v := env.protocolVersion
	return v != "" && v < batchVersion
}

// checkBatch returns the errors answering a batch the SDK would end the session over: an empty
// batch, a batch with an element that is not a JSON-RPC message, or any batch on a protocol
// version without batches. It returns nil for a batch to pass on. Every element with an id gets
// an error, so no client waits for an answer that never comes; an empty batch gets one error with
// a null id.
func checkBatch(line []byte, batchOK bool) []errorResponse {
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		r := errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
		r.Error.Code, r.Error.Message = jsonrpc.CodeInvalidRequest, "invalid request: empty batch"
		return []errorResponse{r}
	}
	reason := ""
	if !batchOK {
		reason = fmt.Sprintf("invalid request: JSON-RPC batches are not part of protocol %s and later; send one message per line", batchVersion)
	} else {
		for i, e := range elems {
			if _, err := readEnvelope(e); err != nil {
				reason = fmt.Sprintf("invalid request: batch element %d is not a JSON-RPC 2.0 message", i)
				break
			}
		}
	}
	if reason == "" {
		return nil
	}
	var out []errorResponse
	for _, e := range elems {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(e, &probe) != nil || len(probe.ID) == 0 || string(probe.ID) == "null" {
			continue // a notification (or garbage): nothing waits for an answer
		}
		r := errorResponse{JSONRPC: "2.0", ID: probe.ID}
		r.Error.Code, r.Error.Message = jsonrpc.CodeInvalidRequest, reason
		out = append(out, r)
	}
	if len(out) == 0 {
		// Only notifications: nothing waits for an answer; one error with a null id says why
		// they were dropped.
		r := errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
		r.Error.Code, r.Error.Message = jsonrpc.CodeInvalidRequest, reason
		return []errorResponse{r}
	}
	return out
}

// lockedWriter serialises whole-message writes from the SDK and from lineReader.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// CodeNotInitialized answers a request sent before initialize. The go-sdk refuses such a request
// with code 0, which clients cannot tell from success codes; the TypeScript SDK answers -32000
// ("Server not initialized"), and so does toolhost.
const CodeNotInitialized = -32000

// sdkNotInitialized is the go-sdk's message for a request before initialize.
const sdkNotInitialized = "is invalid during session initialization"

// notInitializedOut gives the go-sdk's answer to a request before initialize the code
// CodeNotInitialized (see fixNotInitialized) on its way to w. The SDK writes one whole message
// (or SSE event) per Write.
type notInitializedOut struct{ w io.Writer }

func (n notInitializedOut) Write(p []byte) (int, error) {
	if fixed, ok := fixNotInitialized(p); ok {
		if _, err := n.w.Write(fixed); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return n.w.Write(p)
}
