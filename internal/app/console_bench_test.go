package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"testing"

	"toolhost/authz"
	"toolhost/internal/console"
	"toolhost/internal/engine"
)

// BenchmarkConsolePages loads console pages over loopback with 10,000 executions stored in
// the real engine: /activity (running, history page, stats, audit) against / (approvals) as
// the reference measured in the same run. The figure is the ratio; the absolute time depends
// on the machine.
func BenchmarkConsolePages(b *testing.B) {
	a := testAppWith(b, nil)
	ctx := context.Background()
	tools := []string{"file_operations", "terminal_operations", "memory_operations", "web_operations"}
	for i := range 10_000 {
		_, x := a.Executions.Begin(ctx, engine.Start{Tool: tools[i%len(tools)], Operation: "op", Principal: "default",
			Conversation: fmt.Sprintf("conv-%d", i%5), Category: authz.CategorySafe, Args: []byte(`{"operation":"op"}`)})
		status := engine.StatusSuccess
		if i%9 == 0 {
			status = engine.StatusFailed
		}
		x.Finish(engine.Outcome{Status: status, ResultBytes: 100})
	}
	if err := a.Executions.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if st, err := a.Executions.Stats(ctx, authz.StdioPrincipal); err != nil || st.Total != 10_000 {
		b.Fatalf("stored executions: %+v, %v; want 10,000", st.Total, err)
	}
	con, err := a.Console(func() (string, error) { return "bench-operator-token-0123456789", nil })
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(con)
	srv.Config.ConnContext = console.ConnContext
	srv.Start()
	b.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar}
	if resp, err := cl.Get(con.SignInURL(srv.URL)); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("sign in: %v %v", err, resp)
	}
	for _, page := range []string{"/", "/activity"} {
		b.Run(page, func(b *testing.B) {
			for b.Loop() {
				resp, err := cl.Get(srv.URL + page)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: %v %v", page, err, resp)
				}
				resp.Body.Close()
			}
		})
	}
}
