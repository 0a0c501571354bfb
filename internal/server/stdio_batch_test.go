package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestStdioSurvivesBatches: the go-sdk ends a stdio session on an empty batch, a batch element that
// is not a message, and any batch on 2025-06-18 or later. Each of these must be answered with
// errors (one per element with an id) and the session must go on; a well-formed batch on
// 2025-03-26 still works.
func TestStdioSurvivesBatches(t *testing.T) {
	tests := []struct {
		name, version, batch string
		want                 string // the reply to the batch line
	}{
		{"empty batch", "2025-06-18", `[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: empty batch"}}`},
		{"batch on 2025-06-18", "2025-06-18", `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`,
			`[{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not part of protocol 2025-06-18 and later; send one message per line"}}]`},
		{"bad element on 2025-03-26", "2025-03-26", `[1,{"jsonrpc":"2.0","id":"a","method":"ping"}]`,
			`[{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"invalid request: batch element 0 is not a JSON-RPC 2.0 message"}}]`},
		{"good batch on 2025-03-26", "2025-03-26", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, `[{"jsonrpc":"2.0","id":5,"result":{}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := thinkServer()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- ServeStdio(ctx, s, inR, outW, slog.New(slog.DiscardHandler)); outW.Close() }()
			t.Cleanup(func() { inW.Close(); cancel(); <-done })
			lines := bufio.NewScanner(outR)
			lines.Buffer(nil, 1<<20)
			send := func(line string) {
				t.Helper()
				if _, err := fmt.Fprintln(inW, line); err != nil {
					t.Fatalf("write %s: %v", line, err)
				}
			}
			recv := func() string {
				t.Helper()
				got := make(chan string, 1)
				go func() {
					if lines.Scan() {
						got <- lines.Text()
					}
					close(got)
				}()
				select {
				case l, ok := <-got:
					if !ok {
						t.Fatal("session ended")
					}
					return l
				case <-time.After(10 * time.Second):
					t.Fatal("no answer within 10s")
				}
				return ""
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tt.version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if l := recv(); !strings.Contains(l, `"id":1,"result"`) {
				t.Fatalf("initialize answered %s", l)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(tt.batch)
			if got := recv(); !jsonEqual(got, tt.want) {
				t.Errorf("reply to %s = %s, want %s", tt.batch, got, tt.want)
			}
			send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
			if got, want := recv(), `{"jsonrpc":"2.0","id":99,"result":{}}`; !jsonEqual(got, want) {
				t.Errorf("ping after the batch = %s, want %s", got, want)
			}
		})
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// TestReadLineLimit: the limit counts a line's bytes, not its newline; of a longer line only its
// start is kept (to find its id), and the next line is read whole.
func TestReadLineLimit(t *testing.T) {
	const limit = 10
	tests := []struct {
		name, in    string
		want        string
		wantTooLong bool
	}{
		{"just under", "123456789\nnext\n", "123456789", false},
		{"at", "1234567890\nnext\n", "1234567890", false},
		{"at, no newline at the end", "1234567890", "1234567890", false},
		{"just over", "12345678901\nnext\n", "12345678901", true},
		{"far over", strings.Repeat("x", 100) + "\nnext\n", strings.Repeat("x", 100), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			line, tooLong, _ := readLine(r, limit)
			if tooLong != tt.wantTooLong || !tooLong && string(line) != tt.want || tooLong && (len(line) <= limit || !strings.HasPrefix(tt.want, string(line))) {
				t.Errorf("readLine(%q, %d) = %q, tooLong %v; want %q, %v", tt.in, limit, line, tooLong, tt.want, tt.wantTooLong)
			}
			if next, _, _ := readLine(r, limit); strings.Contains(tt.in, "next") && string(next) != "next" {
				t.Errorf("the line after = %q, want next", next)
			}
		})
	}
}
