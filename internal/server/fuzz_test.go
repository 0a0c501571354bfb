package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
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
		if err := filterLines(strings.NewReader(in), &pass, &reply, slog.New(slog.DiscardHandler)); err != nil && err != io.EOF {
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
