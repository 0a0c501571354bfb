//go:build compat

package compat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Message is one JSON-RPC message between a client and toolhost, as a recorder saw it.
type Message struct {
	// Dir is "c2s" (client to server) or "s2c".
	Dir string `json:"dir"`
	// HTTP fields, empty on stdio.
	Method        string `json:"http_method,omitempty"`
	Path          string `json:"path,omitempty"`
	Status        int    `json:"status,omitempty"`
	ProtocolHeard string `json:"protocol_header,omitempty"`
	Session       string `json:"session,omitempty"`
	// Challenge is the WWW-Authenticate header of an answer that has one.
	Challenge string          `json:"www_authenticate,omitempty"`
	Msg       json.RawMessage `json:"msg,omitempty"`
}

// rpc is the part of a JSON-RPC message the analysis reads.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// msgLog appends messages to a JSON-lines file.
type msgLog struct {
	mu sync.Mutex
	f  *os.File
}

func openLog(path string) (*msgLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open mcp log: %w", err)
	}
	return &msgLog{f: f}, nil
}

func (l *msgLog) add(m Message) {
	b, err := json.Marshal(m)
	if err != nil { // a line that is not JSON: keep it as a string
		m.Msg, _ = json.Marshal(string(m.Msg))
		b, _ = json.Marshal(m)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.Write(append(b, '\n'))
}

func (l *msgLog) close() error { return l.f.Close() }

// readLog reads a recorder's file; a missing file is an empty recording.
func readLog(path string) ([]Message, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Message
	for line := range bytes.Lines(b) {
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("mcp log %s: %w", path, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// recordStdio is the stdio recorder: the process a CLI spawns as its MCP server. It starts
// argv (toolhost stdio ...), copies stdin and stdout through line by line, and appends each line
// to logPath. Signals are passed on, so the CLI's shutdown reaches toolhost. The names of the
// environment variables the CLI gave it (and toolhost) go to logPath.env.
func recordStdio(logPath string, argv []string) int {
	log, err := openLog(logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-record:", err)
		return 1
	}
	defer log.close()
	var names []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	slices.Sort(names)
	if err := os.WriteFile(logPath+".env", []byte(strings.Join(names, "\n")+"\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-record:", err)
		return 1
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-record:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-record:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-record:", err)
		return 1
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	go func() {
		copyLines(os.Stdin, in, log, "c2s")
		in.Close()
	}()
	copyLines(out, os.Stdout, log, "s2c")
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

func copyLines(r io.Reader, w io.Writer, log *msgLog, dir string) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				log.add(Message{Dir: dir, Msg: append(json.RawMessage(nil), t...)})
			}
		}
		if err != nil {
			return
		}
	}
}

// httpRecorder is a streamable-HTTP proxy in front of toolhost serve that records every
// JSON-RPC message, with the HTTP status, the session id and the protocol version header.
type httpRecorder struct {
	mu     sync.Mutex
	target *url.URL
	log    *msgLog
	// token and keepHost are set by standIn.
	token    string
	keepHost bool
	// streams counts the event streams of GET requests open now.
	streams atomic.Int32
	// noStreams, once set by cutStreams, answers every GET with 405; cuts ends the open GET
	// streams.
	noStreams bool
	cuts      map[*http.Request]context.CancelFunc
}

// openStreams is the number of GET event streams open now (a client's standalone stream, which
// keeps its session in use).
func (h *httpRecorder) openStreams() int { return int(h.streams.Load()) }

// cutStreams ends the clients' open GET streams and answers every later GET with 405 Method Not
// Allowed (the spec's answer of a server that offers no such stream), as a proxy that drops
// long quiet streams would leave a client: a session is then idle between requests.
func (h *httpRecorder) cutStreams() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noStreams = true
	for _, cancel := range h.cuts {
		cancel()
	}
}

// standIn makes the recorder stand in for a client that cannot send a bearer token (the
// conformance package has no option for one): it adds token to every request (none when
// empty), and passes the client's Host header on unchanged, so that toolhost's Host check
// judges the Host the client sent rather than the recorder's.
func (h *httpRecorder) standIn(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.token, h.keepHost = token, true
}

// setTarget points the recorder at a (new) toolhost serve.
func (h *httpRecorder) setTarget(u *url.URL) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.target = u
}

func (h *httpRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	proto, session := r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Mcp-Session-Id")
	for _, m := range splitBatch(body) {
		h.log.add(Message{Dir: "c2s", Method: r.Method, Path: r.URL.Path, ProtocolHeard: proto, Session: session, Msg: m})
	}
	if len(body) == 0 {
		h.log.add(Message{Dir: "c2s", Method: r.Method, Path: r.URL.Path, ProtocolHeard: proto, Session: session})
	}
	ctx := r.Context()
	h.mu.Lock()
	u, token, keepHost, noStreams := *h.target, h.token, h.keepHost, h.noStreams
	if r.Method == http.MethodGet && !noStreams {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		if h.cuts == nil {
			h.cuts = map[*http.Request]context.CancelFunc{}
		}
		h.cuts[r] = cancel
		defer func() {
			h.mu.Lock()
			delete(h.cuts, r)
			h.mu.Unlock()
		}()
	}
	h.mu.Unlock()
	if r.Method == http.MethodGet && noStreams {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		h.log.add(Message{Dir: "s2c", Method: r.Method, Path: r.URL.Path, Status: http.StatusMethodNotAllowed, Msg: json.RawMessage(`"compat: GET streams cut"`)})
		return
	}
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	out, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Host = u.Host
	if keepHost {
		out.Host = r.Host
	}
	if token != "" {
		out.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			http.Error(w, err.Error(), http.StatusBadGateway)
		}
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	rec := func(m json.RawMessage) {
		h.log.add(Message{Dir: "s2c", Method: r.Method, Path: r.URL.Path, Status: resp.StatusCode, Session: resp.Header.Get("Mcp-Session-Id"),
			Challenge: resp.Header.Get("WWW-Authenticate"), Msg: m})
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if r.Method == http.MethodGet {
			h.streams.Add(1)
			defer h.streams.Add(-1)
		}
		h.streamSSE(w, resp.Body, rec)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	w.Write(b)
	if json.Valid(b) {
		for _, m := range splitBatch(b) {
			rec(m)
		}
	} else if len(b) > 0 || resp.StatusCode >= 400 {
		quoted, _ := json.Marshal(strings.TrimSpace(string(b)))
		rec(quoted)
	}
}

// streamSSE copies an event stream through as it arrives and records each event's data.
func (h *httpRecorder) streamSSE(w http.ResponseWriter, body io.Reader, rec func(json.RawMessage)) {
	flusher, _ := w.(http.Flusher)
	br := bufio.NewReaderSize(body, 1<<20)
	var data bytes.Buffer
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			w.Write(line)
			t := bytes.TrimRight(line, "\r\n")
			switch {
			case len(t) == 0:
				if data.Len() > 0 && json.Valid(data.Bytes()) {
					rec(append(json.RawMessage(nil), data.Bytes()...))
				}
				data.Reset()
				if flusher != nil {
					flusher.Flush()
				}
			case bytes.HasPrefix(t, []byte("data:")):
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(bytes.TrimPrefix(bytes.TrimPrefix(t, []byte("data:")), []byte(" ")))
			}
		}
		if err != nil {
			return
		}
	}
}

// splitBatch returns the messages of a JSON-RPC body: one, or each element of a batch.
func splitBatch(b []byte) []json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil {
			return batch
		}
	}
	return []json.RawMessage{append(json.RawMessage(nil), b...)}
}

// Session is what one client run's MCP recording says.
type Session struct {
	// Protocol is the negotiated protocol version: the initialize result's, else the version
	// the client put in request _meta (2026-07-28 has no initialize), else the HTTP header.
	Protocol string
	// Client is the clientInfo the client sent ("claude-code 2.1.331").
	Client string
	// Calls are the tools/call exchanges in order.
	Calls []MCPCall
	// HTTPErrors counts HTTP answers with a status of 400 or more, by status.
	HTTPErrors map[int]int
	// SessionIDs are the Mcp-Session-Id values toolhost answered with, in order (none on
	// stdio, and none on the stateless protocol 2026-07-28).
	SessionIDs []string
	// Elicitation is set when the client declared it can answer elicitation requests (how
	// toolhost asks the user to approve an action in the client itself).
	Elicitation bool
}

// MCPCall is one tools/call and toolhost's answer.
type MCPCall struct {
	Tool   string
	Args   json.RawMessage
	Result CallResult
	// Answered is set when toolhost sent a result (not, say, an HTTP 404 for a lost session).
	Answered bool
}

// CallResult is a CallToolResult as toolhost sent it.
type CallResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
}

// Text joins the text content blocks.
func (c CallResult) Text() string {
	var parts []string
	for _, b := range c.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// analyze reads a recording.
func analyze(msgs []Message) Session {
	s := Session{HTTPErrors: map[int]int{}}
	calls := map[string]int{} // request id -> index in s.Calls
	// early holds results whose call the recorder logged after them (the stdio recorder's
	// two directions race to the log), by request id.
	early := map[string]json.RawMessage{}
	var metaProto, headerProto string
	for _, m := range msgs {
		if m.Status >= 400 {
			s.HTTPErrors[m.Status]++
		}
		if m.ProtocolHeard != "" {
			headerProto = m.ProtocolHeard
		}
		if m.Dir == "s2c" && m.Session != "" && !slices.Contains(s.SessionIDs, m.Session) {
			s.SessionIDs = append(s.SessionIDs, m.Session)
		}
		var r rpc
		if json.Unmarshal(m.Msg, &r) != nil {
			continue
		}
		switch {
		case m.Dir == "c2s" && r.Method == "initialize":
			var p struct {
				ClientInfo   struct{ Name, Version string } `json:"clientInfo"`
				Capabilities map[string]json.RawMessage     `json:"capabilities"`
			}
			json.Unmarshal(r.Params, &p)
			s.Client = strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
			_, s.Elicitation = p.Capabilities["elicitation"]
		case m.Dir == "c2s" && r.Method != "":
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			json.Unmarshal(r.Params, &p)
			var v string
			if json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v) == nil && v != "" {
				metaProto = v
			}
			var ci struct{ Name, Version string }
			if s.Client == "" && json.Unmarshal(p.Meta["io.modelcontextprotocol/clientInfo"], &ci) == nil && ci.Name != "" {
				s.Client = strings.TrimSpace(ci.Name + " " + ci.Version)
			}
			var caps map[string]json.RawMessage
			if json.Unmarshal(p.Meta["io.modelcontextprotocol/clientCapabilities"], &caps) == nil {
				if _, ok := caps["elicitation"]; ok {
					s.Elicitation = true
				}
			}
			if r.Method == "tools/call" {
				var cp struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				json.Unmarshal(r.Params, &cp)
				calls[string(r.ID)] = len(s.Calls)
				s.Calls = append(s.Calls, MCPCall{Tool: cp.Name, Args: cp.Arguments})
				if res, ok := early[string(r.ID)]; ok {
					delete(early, string(r.ID))
					c := &s.Calls[len(s.Calls)-1]
					c.Answered = json.Unmarshal(res, &c.Result) == nil
				}
			}
		case m.Dir == "s2c" && r.Result != nil:
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(r.Result, &ir) == nil && ir.ProtocolVersion != "" {
				s.Protocol = ir.ProtocolVersion
			}
			if i, ok := calls[string(r.ID)]; ok && !s.Calls[i].Answered {
				s.Calls[i].Answered = json.Unmarshal(r.Result, &s.Calls[i].Result) == nil
			} else {
				early[string(r.ID)] = r.Result
			}
		}
	}
	if s.Protocol == "" {
		s.Protocol = metaProto
	}
	if s.Protocol == "" {
		s.Protocol = headerProto
	}
	return s
}
