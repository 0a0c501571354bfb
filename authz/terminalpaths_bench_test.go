package authz

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkTerminalPaths is the grants read of every process start (internal/gate's Policy):
// with no grant, and with 10 grants of the conversation among 100 of others.
func BenchmarkTerminalPaths(b *testing.B) {
	for _, n := range []struct{ own, others int }{{0, 0}, {10, 100}} {
		b.Run(fmt.Sprintf("own=%d,others=%d", n.own, n.others), func(b *testing.B) {
			f := newFixture(b, func(c *Config) { c.Audit = discardAudit{} })
			ctx := context.Background()
			for i := range n.own + n.others {
				conv := "c"
				if i >= n.own {
					conv = fmt.Sprint("other", i)
				}
				if _, err := f.g.CreateGrant(ctx, GrantSpec{Conversation: conv, Access: "terminal_operations:write",
					Path: filepath.Join(f.out, fmt.Sprint(i)), Recursive: true, By: "t"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := f.g.TerminalPaths(ctx, "c", testRunner); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
