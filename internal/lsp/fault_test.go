package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/codeintel/codetest"
	"toolhost/internal/filetest"
	. "toolhost/internal/lsp"
)

// The faults a language server can have, played by this test binary itself (TestMain runs it
// as a server when TOOLHOST_FAKE_LSP names a behaviour): the client must answer every call
// with a clear error within its bounds, never hang.

func TestMain(m *testing.M) {
	if mode := os.Getenv("TOOLHOST_FAKE_LSP"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer answers initialize (except in mode noinit) and then misbehaves as mode says.
func fakeServer(mode string) {
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
		w.Flush()
	}
	for {
		var msg struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
		}
		if err := readMessage(r, &msg); err != nil {
			return
		}
		if msg.ID == nil {
			continue // notifications
		}
		switch {
		case msg.Method == "initialize" && mode != "noinit":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{}}})
		case msg.Method == "initialize":
		case msg.Method == "shutdown":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case mode == "hang":
		case mode == "crash":
			os.Exit(3)
		case mode == "flood":
			fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", 2_000_000_000)
			for range 1000 {
				w.WriteString(strings.Repeat("x", 4096))
			}
			w.Flush()
			time.Sleep(time.Minute)
		case mode == "chatty":
			for i := range 5000 {
				send(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"type": 4, "message": fmt.Sprint("log line ", i)}})
			}
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": []any{}})
		}
	}
}

func fakeSpec(t *testing.T, mode string) Spec {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOOLHOST_FAKE_LSP", mode)
	return Spec{Language: "go", Name: "fake-" + mode, Command: []string{exe}}
}

func TestServerFaults(t *testing.T) {
	cases := []struct {
		mode string
		want error
	}{
		{"hang", ErrTimeout},
		{"crash", ErrExited},
		{"flood", ErrExited},
		{"noinit", ErrNotReady},
		{"chatty", nil},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			p := NewPool(Options{Root: t.TempDir(), Timeout: 2 * time.Second, StartTimeout: time.Second, MaxMessage: 1 << 20}, []Spec{fakeSpec(t, c.mode)})
			defer p.Close()
			s, err := p.Server("go")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			var res []any
			err = s.Call(context.Background(), "workspace/symbol", map[string]any{"query": "x"}, &res)
			took := time.Since(start)
			if !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
				t.Errorf("call to a %s server = %v, want %v", c.mode, err, c.want)
			}
			if took > 5*time.Second {
				t.Errorf("call to a %s server took %s", c.mode, took)
			}
			if c.want == ErrExited {
				// The next use starts a new server (which misbehaves again).
				if s2, err := p.Server("go"); err != nil || s2 == s {
					t.Errorf("after a crash Server = %v, %v; want a new server", s2, err)
				}
			}
		})
	}
}

func TestCrashLoopIsRefused(t *testing.T) {
	p := NewPool(Options{Root: t.TempDir(), Timeout: time.Second}, []Spec{fakeSpec(t, "crash")})
	defer p.Close()
	var err error
	for range 4 {
		var s *Server
		if s, err = p.Server("go"); err != nil {
			break
		}
		s.Call(context.Background(), "workspace/symbol", map[string]any{"query": "x"}, nil)
		<-s.Exited()
	}
	if !errors.Is(err, ErrCrashing) {
		t.Errorf("after 3 crashes Server = %v, want ErrCrashing", err)
	}
}

func TestMissingServer(t *testing.T) {
	p := NewPool(Options{Root: t.TempDir()}, []Spec{{Language: "go", Name: "gopls", Command: []string{filepath.Join(t.TempDir(), "no-such-gopls")}}})
	defer p.Close()
	if _, err := p.Server("go"); err == nil {
		t.Error("a server whose program is missing started")
	}
	if _, err := p.Server("python"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("Server(python) without a spec = %v, want ErrNotInstalled", err)
	}
}

// TestGoplsKilledMidCall kills the real gopls while a call waits for it: the call ends at once
// with ErrExited (or its answer, if gopls was quicker), and the next call gets a new gopls.
func TestGoplsKilledMidCall(t *testing.T) {
	codetest.Require(t, "go")
	dir := t.TempDir()
	p0 := codetest.Projects[0]
	filetest.Write(t, dir, p0.Files)
	p := NewPool(Options{Root: dir, Timeout: 30 * time.Second}, DefaultSpecs(nil))
	defer p.Close()
	s, err := p.Server("go")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WaitReady(context.Background(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var res []any
		done <- s.Call(context.Background(), "workspace/symbol", map[string]any{"query": "Cart"}, &res)
	}()
	s.Kill()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, ErrExited) {
			t.Errorf("the call to a killed gopls = %v, want ErrExited", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call to a killed gopls did not return")
	}
	<-s.Exited()
	s2, err := p.Server("go")
	if err != nil || s2 == s {
		t.Fatalf("after the kill Server = %v, %v", s2, err)
	}
	var res []SymbolInformation
	if err := s2.Call(context.Background(), "workspace/symbol", map[string]any{"query": "Cart"}, &res); err != nil || len(res) == 0 {
		t.Errorf("the restarted gopls answered %v, %v", res, err)
	}
}

// readMessage reads one framed message (the fake server's side of the framing).
func readMessage(r *bufio.Reader, v any) error {
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		fmt.Sscanf(line, "Content-Length: %d", &n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	return json.Unmarshal(buf, v)
}
