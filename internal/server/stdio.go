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
	err := s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{w}})
	pr.Close()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// filterLines copies well-formed JSON-RPC lines from in to pass and answers the others on reply.
func filterLines(in io.Reader, pass io.Writer, reply io.Writer, logger *slog.Logger) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxStdioLine)
		if len(line) > 0 || tooLong {
			if bad := check(line, tooLong); bad != nil {
				logger.Warn("stdio: rejected line", "code", bad.Error.Code, "bytes", len(line), "reason", bad.Error.Message)
				b, _ := json.Marshal(bad)
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

// readLine returns the next line without its terminator. Past max bytes the rest of the line is
// discarded and tooLong is set.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
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
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxStdioLine)
		return resp
	case !json.Valid(line):
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeParseError, "parse error: line is not valid JSON"
		return resp
	case line[0] == '[':
		return nil // batches are the SDK's to judge
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
