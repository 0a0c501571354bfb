package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzLineReader checks the stdio input filter: every input line is either passed on intact, as
// one JSON value the go-sdk's decoder reads without a separator, or answered with one JSON-RPC
// error (an array of them for a batch); it never panics.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"garbage",
		`{"id":3,"method":"x"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[]`,
		`[1,{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		"{\"jsonrpc\":\"2.0\"\r\n",
		"",
		"\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var reply bytes.Buffer
		lines := &lineReader{r: bufio.NewReader(strings.NewReader(in)), reply: &reply, logger: slog.New(slog.DiscardHandler)}
		// Read as the SDK does: one JSON value after another.
		dec := json.NewDecoder(lines)
		passed := 0
		for {
			var v json.RawMessage
			err := dec.Decode(&v)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the decoder failed on what was passed: %v", err)
			}
			if !json.Valid(v) {
				t.Fatalf("passed an invalid value %q", v)
			}
			passed++
		}
		replies := 0
		for _, line := range strings.Split(strings.TrimSuffix(reply.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			replies++
			var rs []errorResponse
			if strings.HasPrefix(line, "[") {
				if err := json.Unmarshal([]byte(line), &rs); err != nil || len(rs) == 0 {
					t.Fatalf("reply %q is not a batch of JSON-RPC errors", line)
				}
			} else {
				rs = make([]errorResponse, 1)
				if err := json.Unmarshal([]byte(line), &rs[0]); err != nil {
					t.Fatalf("reply %q is not a JSON-RPC error", line)
				}
			}
			for _, r := range rs {
				if r.JSONRPC != "2.0" || r.Error.Code == 0 {
					t.Fatalf("reply %q is not a JSON-RPC error", line)
				}
			}
		}
		lineCount := 0
		for _, line := range strings.Split(in, "\n") {
			if len(bytes.TrimSpace([]byte(line))) > 0 {
				lineCount++
			}
		}
		if passed+replies != lineCount {
			t.Fatalf("%d lines in, %d passed and %d answered", lineCount, passed, replies)
		}
	})
}

// FuzzReadEnvelope holds readEnvelope to the go-sdk: a line that is one JSON value is accepted
// exactly when jsonrpc.DecodeMessage accepts it, since lineReader passes the lines it accepts
// to the SDK, which ends the session over a message it cannot decode, and refuses the others.
func FuzzReadEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"no","data":[1]}}`,
		`{"jsonrpc":"2.0","id":null,"result":1}`,
		`{"jsonrpc":"2.0","id":1.5,"method":""}`,
		`{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":5,"jsonrpc":"2.0","id":1,"method":"x"}`,
		`{"JSONRPC":"2.0","id":1,"method":"x"}`,
		`{"json\u0072pc":"2.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":null,"result":null}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		`null`, `1`, `"x"`, `{}`, `[]`, `{"jsonrpc":"2.0"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) {
			return // answered as a parse error before either decoder runs
		}
		_, sdkErr := jsonrpc.DecodeMessage([]byte(line))
		_, err := readEnvelope([]byte(line))
		if (err == nil) != (sdkErr == nil) {
			t.Fatalf("readEnvelope(%q) = %v, the go-sdk's decoder says %v", line, err, sdkErr)
		}
	})
}
