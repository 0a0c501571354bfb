package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"toolhost/internal/terminal"
)

// BenchmarkTypeKey: one key typed into `cat` through the console (POST /terminals/input over
// loopback HTTP: peer check per connection, session, CSRF, the terminal's mode read twice,
// Send, the audit line) against the engine's own Send of the same key as a model types it (the
// reference, measured in the same run). go test -run XXX -bench TypeKey ./internal/console/
func BenchmarkTypeKey(b *testing.B) {
	tf := newTypingFixtureB(b)
	if _, err := tf.m.Send(context.Background(), "c", "s1", terminal.Input{Text: "cat"}); err != nil {
		b.Fatal(err)
	}
	no := false
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			if _, err := tf.m.Send(context.Background(), "c", "s1", terminal.Input{Text: "x", PressEnter: &no}); err != nil {
				b.Fatal(err)
			}
		}
	})
	cl := tf.client(b)
	csrf := tf.signIn(b, cl)
	form := url.Values{"conversation": {"c"}, "id": {"s1"}, "keys": {"x"}}.Encode()
	b.Run("console", func(b *testing.B) {
		for b.Loop() {
			req, _ := http.NewRequest("POST", tf.srv.URL+"/terminals/input", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", tf.srv.URL)
			req.Header.Set("X-CSRF-Token", csrf)
			resp, err := cl.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
