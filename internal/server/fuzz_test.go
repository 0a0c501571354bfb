package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFilterLines checks the stdio line filter: every input line is either passed through intact
// (and is then valid JSON) or answered with one JSON-RPC error (an array of them for a batch); it
// never panics.
func FuzzFilterLines(f *testing.F) {
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
		var pass, reply bytes.Buffer
		if err := filterLines(strings.NewReader(in), &pass, &reply, slog.New(slog.DiscardHandler), nil); err != nil && err != io.EOF {
			t.Fatalf("filterLines: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(pass.String(), "\n"), "\n") {
			if line != "" && !json.Valid([]byte(line)) {
				t.Fatalf("passed an invalid line %q", line)
			}
		}
		for _, line := range strings.Split(strings.TrimSuffix(reply.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
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
	})
}

// FuzzReadEnvelope holds readEnvelope to the go-sdk: a line that is one JSON value is accepted
// exactly when jsonrpc.DecodeMessage accepts it, since filterLines passes the lines it accepts
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

// FuzzStdioFront feeds arbitrary input to a front with a handshake and no server yet: it never
// panics, everything it writes is one JSON-RPC response per line (an early answer or an error
// for a malformed line), and it answers at most one initialize and one tools/list early.
func FuzzStdioFront(f *testing.F) {
	for _, s := range []string{
		initializeLine("1", "2025-06-18") + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		initializeLine(`"a"`, "") + "\n" + initializeLine("2", "2024-11-05") + "\n" + `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":7}}`,
		"garbage\n[]",
	} {
		f.Add(s)
	}
	_, _, hs := earlyFixture()
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		front := StartStdio(strings.NewReader(in+"\n"), &out, nil, hs)
		// No server comes: a line that reuses an id the front answered waits for the server's
		// answer, so the session is closed after a while, which releases it.
		stop := time.AfterFunc(20*time.Millisecond, front.Close)
		defer stop.Stop()
		// The queue ends once the front has read all of in: it wrote all it writes by then.
		io.ReadAll(front.queue)
		front.Close()
		<-front.readDone
		early := map[string]int{}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  *struct {
					Tools           json.RawMessage `json:"tools"`
					ProtocolVersion string          `json:"protocolVersion"`
				} `json:"result"`
				Error *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" || (r.Result == nil) == (r.Error == nil) {
				if !strings.HasPrefix(line, "[") {
					t.Fatalf("front wrote %q, not a JSON-RPC response", line)
				}
				continue
			}
			if r.Result != nil && r.Result.Tools != nil {
				early["tools/list"]++
			} else if r.Result != nil {
				early["initialize"]++
			}
		}
		if early["initialize"] > 1 || early["tools/list"] > 1 {
			t.Fatalf("early answers %v for input %q", early, in)
		}
	})
}
