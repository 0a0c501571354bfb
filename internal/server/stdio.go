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

// MaxStdioLine bounds one inbound JSON-RPC line. A longer line is answered with an error and
// skipped; it does not end the session.
const MaxStdioLine = 32 << 20

// ServeStdio serves s over newline-delimited JSON on in and out until in ends or ctx is done.
// Unlike the SDK's own stdio transport, a malformed line is answered with a JSON-RPC parse error
// and the session goes on: one bad write by a client must not cost the user their session.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, logger *slog.Logger) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(in, pw, w, logger))
	}()
	err := s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{notInitializedOut{w}}})
	pr.Close()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// filterLines copies well-formed JSON-RPC lines from in to pass and answers the others on reply.
func filterLines(in io.Reader, pass io.Writer, reply io.Writer, logger *slog.Logger) error {
	r := bufio.NewReaderSize(in, 64<<10)
	batchOK := false // whether the client asked for a protocol version that has batches
	for {
		line, tooLong, err := readLine(r, MaxStdioLine)
		if len(line) > 0 || tooLong {
			bad := check(line, tooLong)
			var out any = bad
			if bad == nil && line[0] == '[' {
				if errs := checkBatch(line, batchOK); errs != nil {
					bad, out = &errs[0], errs
					if len(errs) == 1 && string(errs[0].ID) == "null" {
						out = &errs[0] // an empty batch is answered with one error
					}
				}
			} else if bad == nil {
				batchOK = batchesAllowed(line, batchOK)
			}
			if bad != nil {
				logger.Warn("stdio: rejected line", "code", bad.Error.Code, "bytes", len(line), "reason", bad.Error.Message)
				b, _ := json.Marshal(out)
				if _, werr := reply.Write(append(b, '\n')); werr != nil {
					return werr
				}
			} else if _, werr := pass.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// idProbeBytes is how much of an over-long line is kept to find its id: clients write "id" before
// the (large) params, so the start of the message holds it.
const idProbeBytes = 4096

// readLine returns the next line without its terminator. Past limit bytes the rest of the line is
// discarded and tooLong is set; line then holds only the line's first idProbeBytes, for probeID.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
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

// check returns the error response for a line the SDK would choke on, or nil if it is fine.
func check(line []byte, tooLong bool) *errorResponse {
	resp := &errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
	switch {
	case tooLong:
		// Answered with the request's id, so the client's call fails now instead of waiting for
		// an answer that never comes; the session and its terminals go on.
		resp.ID = probeID(line)
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes; send less per call", MaxStdioLine)
		return resp
	case !json.Valid(line):
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeParseError, "parse error: line is not valid JSON"
		return resp
	case line[0] == '[':
		return nil // batches are judged by checkBatch
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
			resp.ID = probe.ID
		}
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message"
		return resp
	}
	return nil
}

// batchVersion is the first protocol version without JSON-RPC batches; the go-sdk ends the
// session when a client on it (or later) sends one.
const batchVersion = "2025-06-18"

// batchesAllowed returns whether batches are allowed after line: an initialize request sets it
// from the version the client asks for; other lines leave it as it was.
func batchesAllowed(line []byte, was bool) bool {
	var init struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &init) != nil || init.Method != "initialize" {
		return was
	}
	v := init.Params.ProtocolVersion
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
			if _, err := jsonrpc.DecodeMessage(e); err != nil {
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

// lockedWriter serialises whole-message writes from the SDK and from filterLines.
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
