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
// (and is then valid JSON) or answered with exactly one JSON-RPC error; it never panics.
func FuzzFilterLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"garbage",
		`{"id":3,"method":"x"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
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
			var r errorResponse
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" || r.Error.Code == 0 {
				t.Fatalf("reply %q is not a JSON-RPC error", line)
			}
		}
	})
}
