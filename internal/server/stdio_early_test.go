package server

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/server/stdiotest"
)

// stdioSession drives a stdio front as a client does.
type stdioSession struct {
	*stdiotest.Client
	front *Stdio
	log   *stdiotest.Log
	ctx   context.Context
}

func startSession(t *testing.T, hs *Handshake) *stdioSession {
	t.Helper()
	c := stdiotest.New(t)
	log := &stdiotest.Log{}
	ctx, cancel := context.WithCancel(context.Background())
	s := &stdioSession{Client: c, log: log, ctx: ctx,
		front: StartStdio(c.ServerIn, c.ServerOut, slog.New(slog.NewTextHandler(log, nil)), hs)}
	t.Cleanup(func() { cancel(); s.front.Close() })
	return s
}

// serve runs srv on the session, as serveStdio does once the app is open.
func (s *stdioSession) serve(srv *mcp.Server) {
	go s.front.Serve(s.ctx, srv)
}

func initializeLine(id, version string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// earlyFixture is a registry, the server New builds on it, and the handshake that answers
// for that server before it runs.
func earlyFixture() (*consolidated.Registry, func() *mcp.Server, *Handshake) {
	reg := consolidated.NewRegistry(&consolidated.Env{DefaultConversation: "c"}, seamTools(), nil)
	opts := Options{Name: "toolhost", Version: "test", Instructions: "Use <think> & read results.", Registry: reg}
	hs := NewHandshake(opts, func() *mcp.ListToolsResult {
		res := &mcp.ListToolsResult{Tools: reg.ToolsFor(authz.TierAdmin)}
		res.CacheScope = "public"
		return res
	})
	return reg, func() *mcp.Server { return New(opts) }, hs
}

// TestEarlyHandshakeIsTheServers: the front answers initialize (for every protocol version a
// client may ask, known or not) and tools/list before any server runs, with the bytes the server
// itself answers with; once the server runs, its own answers to those two are dropped, what
// waited is answered, and nothing differed.
func TestEarlyHandshakeIsTheServers(t *testing.T) {
	versions := append(mcp.SupportedProtocolVersions(), "", "2024-01-01", "2099-12-31")
	for _, version := range versions {
		t.Run("version "+version, func(t *testing.T) {
			_, newServer, hs := earlyFixture()
			// What the server answers by itself, without a front's handshake.
			plain := startSession(t, nil)
			plain.serve(newServer())
			plain.Send(initializeLine("1", version))
			wantInit := plain.Recv(10 * time.Second)
			plain.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			plain.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			wantList := plain.Recv(10 * time.Second)

			early := startSession(t, hs)
			early.Send(initializeLine("1", version))
			if got := early.Recv(10 * time.Second); got != wantInit {
				t.Fatalf("early initialize = %s\nthe server's = %s", got, wantInit)
			}
			early.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			early.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if got := early.Recv(10 * time.Second); got != wantList {
				t.Fatalf("early tools/list = %s\nthe server's = %s", got, wantList)
			}
			early.Send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			early.Quiet(100 * time.Millisecond) // nothing answers a ping before the server runs
			early.serve(newServer())
			if got, want := early.Recv(10*time.Second), `{"jsonrpc":"2.0","id":3,"result":{}}`; got != want {
				t.Errorf("first line once the server runs = %s, want the ping's answer %s (its own answers to initialize and tools/list dropped)", got, want)
			}
			early.Send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"x"}}}`)
			if got := early.Recv(10 * time.Second); !strings.Contains(got, `"id":4,"result"`) {
				t.Errorf("tools/call after the early handshake = %s", got)
			}
			select {
			case <-early.front.EarlyChecked():
			case <-time.After(10 * time.Second):
				t.Fatal("the server did not answer the handshake within 10s")
			}
			if log := early.log.String(); strings.Contains(log, "differed") {
				t.Errorf("the server's answers differed from the early ones:\n%s", log)
			}
		})
	}
}

// TestEarlyListThatDiffers: should the early tools/list ever differ from the server's, the
// difference is logged and the client is told to list the tools again.
func TestEarlyListThatDiffers(t *testing.T) {
	reg, newServer, hs := earlyFixture()
	hs.Tools = func() *mcp.ListToolsResult {
		tools := reg.ToolsFor(authz.TierAdmin)[:1]
		res := &mcp.ListToolsResult{Tools: tools}
		res.CacheScope = "public"
		return res
	}
	s := startSession(t, hs)
	s.Send(initializeLine("1", "2025-06-18"))
	s.Recv(10 * time.Second)
	s.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	s.Recv(10 * time.Second)
	s.serve(newServer())
	if got, want := s.Recv(10*time.Second), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`; got != want {
		t.Errorf("after a differing early list the client reads %s, want %s", got, want)
	}
	if log := s.log.String(); !strings.Contains(log, "early answer differed") || !strings.Contains(log, "tools/list") {
		t.Errorf("log = %q, want the difference named", log)
	}
}

// TestEarlyOnlyForTheHandshake: the front answers only an initialize that opens the session
// and the first tools/list without a cursor after it, and nothing once the server runs; the
// rest waits for the server.
func TestEarlyOnlyForTheHandshake(t *testing.T) {
	t.Run("a session that does not open with initialize", func(t *testing.T) {
		_, newServer, hs := earlyFixture()
		s := startSession(t, hs)
		s.Send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		s.Send(initializeLine("2", "2025-06-18"))
		s.Quiet(100 * time.Millisecond)
		s.serve(newServer())
		// The server answers the two in either order.
		got := s.Recv(10*time.Second) + "\n" + s.Recv(10*time.Second)
		if !strings.Contains(got, `"id":1,"result"`) || !strings.Contains(got, `"id":2,"result"`) {
			t.Errorf("answers = %s, want the ping's and initialize's, from the server", got)
		}
	})
	t.Run("a tools/list with a cursor", func(t *testing.T) {
		_, newServer, hs := earlyFixture()
		s := startSession(t, hs)
		s.Send(initializeLine("1", "2025-06-18"))
		s.Recv(10 * time.Second)
		s.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}`)
		s.Quiet(100 * time.Millisecond)
		s.serve(newServer())
		if got := s.Recv(10 * time.Second); !strings.Contains(got, `"id":2`) {
			t.Errorf("answer = %s, want the server's to the tools/list with a cursor", got)
		}
	})
	t.Run("an id the server has yet to answer", func(t *testing.T) {
		// The client has its answer to initialize and sends id 1 again: the server, which has
		// yet to answer the first, would refuse the second as an id in use; the front holds it
		// until the server has answered the first.
		for i := 0; i < 20; i++ {
			_, newServer, hs := earlyFixture()
			s := startSession(t, hs)
			s.Send(initializeLine("1", "2025-06-18"))
			s.Recv(10 * time.Second)
			s.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			s.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			s.Quiet(20 * time.Millisecond)
			s.serve(newServer())
			if got := s.Recv(10 * time.Second); !strings.Contains(got, `"id":1,"result":{"ttlMs"`) {
				t.Fatalf("answer = %.80s, want the server's tools/list (its initialize answer dropped)", got)
			}
			s.Quiet(20 * time.Millisecond)
		}
	})
	t.Run("a server that runs already", func(t *testing.T) {
		_, newServer, hs := earlyFixture()
		calls := 0
		tools := hs.Tools
		hs.Tools = func() *mcp.ListToolsResult { calls++; return tools() }
		s := startSession(t, hs)
		s.serve(newServer())
		for !s.front.serving.Load() {
			time.Sleep(time.Millisecond)
		}
		s.Send(initializeLine("1", "2025-06-18"))
		s.Recv(10 * time.Second)
		s.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		s.Recv(10 * time.Second)
		s.Quiet(100 * time.Millisecond) // one answer each
		if calls != 0 {
			t.Errorf("the early list was built %d times for a server that ran already", calls)
		}
	})
}

// TestLineQueueHoldsForALateReader: lines written before the reader starts are kept in order,
// up to the limit (always at least one line); once the reader has taken them, lines pass through
// the pipe (a write returns when the reader has the line); the end of input reaches the reader
// after the lines.
func TestLineQueueHoldsForALateReader(t *testing.T) {
	q := newLineQueue(8)
	q.Write([]byte("one\n"))
	q.Write([]byte("two\n"))
	wrote := make(chan struct{})
	go func() { q.Write([]byte("three\n")); close(wrote) }()
	select {
	case <-wrote:
		t.Fatal("a write past the limit did not wait for the reader")
	case <-time.After(50 * time.Millisecond):
	}
	buf := make([]byte, 64)
	n, _ := q.Read(buf)
	got := string(buf[:n])
	<-wrote
	n, _ = q.Read(buf)
	got += string(buf[:n])
	if got != "one\ntwo\nthree\n" {
		t.Errorf("read %q, want the three lines in order", got)
	}
	read := make(chan string)
	go func() {
		n, _ := q.Read(buf) // nothing held: reads the pipe
		read <- string(buf[:n])
	}()
	if _, err := q.Write([]byte("four\n")); err != nil {
		t.Fatal(err)
	}
	if got := <-read; got != "four\n" {
		t.Errorf("through the pipe: read %q, want four", got)
	}
	q.CloseWithError(nil)
	if rest, err := io.ReadAll(q); len(rest) != 0 || err != nil {
		t.Errorf("after the end of input read %q, %v; want nothing and no error", rest, err)
	}
	q.Close()
	if _, err := q.Write([]byte("x\n")); err != io.ErrClosedPipe {
		t.Errorf("write after the reader closed = %v, want io.ErrClosedPipe", err)
	}
}

// TestAnsweredWhenTheHandshakeIsOver: Answered closes once the front has answered initialize and
// the tools/list after it, or once it knows it will answer nothing more; not while the client
// still owes the tools/list.
func TestAnsweredWhenTheHandshakeIsOver(t *testing.T) {
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	tests := []struct {
		name string
		// run drives the session up to where Answered must close; pending says it must be
		// open before that.
		run func(s *stdioSession, pending func())
	}{
		{"initialize and tools/list", func(s *stdioSession, pending func()) {
			s.Send(initializeLine("1", "2025-06-18"))
			s.Recv(10 * time.Second)
			s.Send(initialized)
			pending()
			s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			s.Recv(10 * time.Second)
		}},
		{"a first line other than initialize", func(s *stdioSession, pending func()) {
			pending()
			s.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		}},
		{"a notification first", func(s *stdioSession, pending func()) {
			s.Send(initialized)
		}},
		{"another request after initialize", func(s *stdioSession, pending func()) {
			s.Send(initializeLine("1", "2025-06-18"))
			s.Recv(10 * time.Second)
			pending()
			s.Send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		}},
		{"a tools/list with a cursor", func(s *stdioSession, pending func()) {
			s.Send(initializeLine("1", "2025-06-18"))
			s.Recv(10 * time.Second)
			s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}`)
		}},
		{"the input ends", func(s *stdioSession, pending func()) {
			s.Send(initializeLine("1", "2025-06-18"))
			s.Recv(10 * time.Second)
			pending()
			s.CloseInput()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, hs := earlyFixture()
			s := startSession(t, hs)
			tt.run(s, func() {
				t.Helper()
				select {
				case <-s.front.Answered():
					t.Fatal("Answered closed while the client still waits on the front")
				case <-time.After(30 * time.Millisecond):
				}
			})
			select {
			case <-s.front.Answered():
			case <-time.After(10 * time.Second):
				t.Fatal("Answered did not close")
			}
		})
	}
	t.Run("no handshake", func(t *testing.T) {
		s := startSession(t, nil)
		select {
		case <-s.front.Answered():
		default:
			t.Fatal("Answered is open for a front that answers nothing")
		}
	})
}
