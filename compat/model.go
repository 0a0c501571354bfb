//go:build compat

package compat

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Step is one tool call of the script the fake model plays.
type Step struct {
	// Name names the step in reports and checks ("read_file", "big_read").
	Name string
	// Tool is toolhost's tool name; the model calls whatever name the client advertises for it
	// (mcp__toolhost__file_operations, toolhost_file_operations, ...).
	Tool string
	Args map[string]any
}

// API names a wire format the fake model speaks.
type API string

const (
	APIAnthropic API = "anthropic-messages"
	APIResponses API = "openai-responses"
	APIChat      API = "openai-chat"
	APIGemini    API = "gemini"
)

// Request is one request a client sent the fake model, reduced to what the checks need.
type Request struct {
	API    API
	Path   string
	Stream bool
	Model  string
	// Tools are the tools the client offered the model.
	Tools []ToolDecl
	// Calls are the tool calls the model made earlier in this conversation, in order.
	Calls []ToolCall
	// Results are the tool results the client sent back, in order.
	Results []ToolResult
	// JSONWanted is set when the client asked for a JSON-only answer (routing and next-speaker
	// checks); such requests are side conversations.
	JSONWanted bool
	// Answer says what the fake model answered ("call file_operations (read_file)", "text").
	Answer string
	Body   []byte
	// text is every string in the body, for finding names the client only mentions.
	text string
}

// ToolDecl is a tool as the client described it to the model.
type ToolDecl struct {
	Name string
	// Namespace groups tools in the OpenAI Responses API (Codex: "mcp__toolhost"); a call
	// names both.
	Namespace   string
	Description string
	Schema      json.RawMessage
}

// FullName is the name with its namespace, as reports show it.
func (d ToolDecl) FullName() string {
	if d.Namespace == "" {
		return d.Name
	}
	return d.Namespace + "." + d.Name
}

// ToolCall is a tool call by the model, as the client replays it in the history.
type ToolCall struct {
	ID        string
	Name      string
	Namespace string
	Args      json.RawMessage
}

// ToolResult is a tool result as the client forwarded it to the model.
type ToolResult struct {
	CallID string
	Name   string
	// Leaves are the strings in the result, in order; JSON objects the client forwarded whole
	// (structured content) contribute their string values, and Raw keeps their keys.
	Leaves  []string
	Raw     json.RawMessage
	IsError bool
}

// Text is everything the model could read in the result.
func (r ToolResult) Text() string { return strings.Join(r.Leaves, "\n") }

// Model is a scripted fake LLM endpoint for one client run. In the main conversation (a request
// that offers toolhost's tools) it answers with the script's next tool call, counting the calls
// already in the history, then with Final. Side requests (titles, routing, summaries) get a
// short answer. Every request is recorded.
type Model struct {
	Script []Step
	// Final is the text the model ends the conversation with.
	Final string
	// BeforeCall, when set, runs once before the model makes script call n (to restart the
	// server between calls, say).
	BeforeCall func(n int)
	// Outside is the file OutsidePath stands for.
	Outside string

	mu      sync.Mutex
	reqs    []*Request
	unknown []string
	before  map[int]bool
}

// Requests returns every parsed request, in arrival order.
func (m *Model) Requests() []*Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Request(nil), m.reqs...)
}

// Unknown lists requests to paths the fake model does not serve ("GET /v1/foo").
func (m *Model) Unknown() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.unknown...)
}

// MainRequests returns the requests of the main conversation.
func (m *Model) MainRequests() []*Request { return mainRequests(m.Requests()) }

// mainRequests are those of reqs that belong to the main conversation.
func mainRequests(reqs []*Request) []*Request {
	var out []*Request
	for _, r := range reqs {
		if r.main() {
			out = append(out, r)
		}
	}
	return out
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, modelList(p))
	case r.Method == http.MethodGet && strings.Contains(p, "/models/"):
		name := p[strings.LastIndex(p, "/")+1:]
		writeJSON(w, map[string]any{"id": name, "object": "model", "name": "models/" + name, "owned_by": "compat"})
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 1000})
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1000})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		m.serve(w, r, body, APIAnthropic)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		m.serve(w, r, body, APIResponses)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		m.serve(w, r, body, APIChat)
	case r.Method == http.MethodPost && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		m.serve(w, r, body, APIGemini)
	default:
		m.mu.Lock()
		m.unknown = append(m.unknown, r.Method+" "+r.URL.RequestURI())
		m.mu.Unlock()
		http.Error(w, `{"error":{"message":"not served by the compat model","type":"not_found"}}`, http.StatusNotFound)
	}
}

func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = io.LimitReader(r.Body, 64<<20)
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		rd = zr
	}
	return io.ReadAll(rd)
}

func modelList(path string) any {
	if strings.Contains(path, "v1beta") {
		return map[string]any{"models": []any{map[string]any{"name": "models/compat-model", "supportedGenerationMethods": []string{"generateContent"}}}}
	}
	return map[string]any{"object": "list", "data": []any{map[string]any{"id": "compat-model", "object": "model", "owned_by": "compat", "created": 1700000000}}}
}

// reply is what the fake model says: a tool call or a text.
type reply struct {
	call *ToolCall
	text string
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request, body []byte, api API) {
	req, err := parseRequest(api, r.URL.Path, r.URL.Query().Get("alt"), body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rep := m.decide(req)
	if rep.call != nil {
		req.Answer = "call " + strings.TrimPrefix(rep.call.Namespace+"."+rep.call.Name, ".")
	} else {
		req.Answer = "text"
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	switch api {
	case APIAnthropic:
		writeAnthropic(w, req, rep)
	case APIResponses:
		writeResponses(w, req, rep)
	case APIChat:
		writeChat(w, req, rep)
	case APIGemini:
		writeGemini(w, req, rep)
	}
}

// sideAnswer satisfies the JSON side requests the CLIs make (next-speaker checks, model routing,
// titles): every field any of them looks for, with the answer that lets the run go on.
const sideAnswer = `{"reasoning":"compat","next_speaker":"user","model_choice":"flash","complexity_reasoning":"compat","complexity_score":1,"title":"compat","isNewTopic":false}`

func (m *Model) decide(req *Request) reply {
	if !req.main() {
		if req.JSONWanted {
			return reply{text: sideAnswer}
		}
		return reply{text: "compat"}
	}
	n := req.scriptCalls()
	if n >= len(m.Script) {
		return reply{text: m.Final}
	}
	step := m.Script[n]
	m.beforeCall(n)
	if d, ok := req.Tool(step.Tool); ok {
		args, _ := json.Marshal(req.resolve(step.Args, m.Outside))
		return reply{call: &ToolCall{ID: fmt.Sprintf("compat_%02d", n), Name: d.Name, Namespace: d.Namespace, Args: args}}
	}
	// A client that defers MCP tools lists only their names and offers a search tool that
	// loads them (Claude Code), or a search tool and a proxy that calls them (Qwen Code).
	deferred := req.deferredName(step.Tool)
	search, proxy := req.searchTool(), req.proxyTool()
	searched := slices.ContainsFunc(req.Calls, func(c ToolCall) bool { return search != "" && c.Name == search })
	switch {
	case deferred == "":
	case search != "" && !searched:
		var names []string
		for _, tool := range []string{"file_operations", "terminal_operations", "todo_operations", "user_collaboration", "read_tool_result"} {
			if d := req.deferredName(tool); d != "" {
				names = append(names, d)
			}
		}
		args, _ := json.Marshal(map[string]any{"query": "select:" + strings.Join(names, ",")})
		return reply{call: &ToolCall{ID: fmt.Sprintf("compat_search_%02d", len(req.Calls)), Name: search, Args: args}}
	case proxy != "":
		args, _ := json.Marshal(map[string]any{"name": deferred, "arguments": req.resolve(step.Args, m.Outside)})
		return reply{call: &ToolCall{ID: fmt.Sprintf("compat_%02d", n), Name: proxy, Args: args}}
	}
	return reply{text: "compat: the tool " + step.Tool + " is not offered; stopping"}
}

func (m *Model) beforeCall(n int) {
	if m.BeforeCall == nil {
		return
	}
	m.mu.Lock()
	if m.before == nil {
		m.before = map[int]bool{}
	}
	done := m.before[n]
	m.before[n] = true
	m.mu.Unlock()
	if !done {
		m.BeforeCall(n)
	}
}

// Placeholders in a step's arguments, resolved when the model makes the call: CutID is the
// read_tool_result id of the latest cut result the client forwarded (the model pages what
// toolhost cut), RequestID the id of the latest authorization request, and OutsidePath a file
// outside toolhost's working directory (Model.Outside).
const (
	CutID       = "$CUT_ID"
	RequestID   = "$REQUEST_ID"
	OutsidePath = "$OUTSIDE_PATH"
)

var (
	cutIDRE     = regexp.MustCompile(`r[0-9a-f]{12}`)
	requestIDRE = regexp.MustCompile(`r-[0-9a-z]{16}`)
)

// resolve replaces the placeholders in args.
func (r *Request) resolve(args map[string]any, outside string) map[string]any {
	latest := func(re *regexp.Regexp) string {
		for i := len(r.Results) - 1; i >= 0; i-- {
			if id := re.FindString(r.Results[i].Text()); id != "" {
				return id
			}
		}
		return ""
	}
	out := map[string]any{}
	for k, v := range args {
		switch v {
		case CutID:
			v = latest(cutIDRE)
		case RequestID:
			v = latest(requestIDRE)
		case OutsidePath:
			v = outside
		}
		out[k] = v
	}
	return out
}

// scriptCalls counts the script's calls in the history: every call except tool searches.
func (r *Request) scriptCalls() int {
	n := 0
	for _, c := range r.Calls {
		if !isSearchTool(c.Name) {
			n++
		}
	}
	return n
}

func isSearchTool(name string) bool {
	l := strings.ToLower(name)
	return l == "toolsearch" || strings.Contains(l, "tool_search") || strings.Contains(l, "search_tools")
}

// proxyTool names the client's tool that calls a deferred tool by name ({name, arguments}),
// if it offers one.
func (r *Request) proxyTool() string {
	for _, t := range r.Tools {
		if t.Name == "tool_call" || t.Name == "call_tool" {
			return t.Name
		}
	}
	return ""
}

// searchTool names the client's tool that loads deferred tools, if it offers one.
func (r *Request) searchTool() string {
	for _, t := range r.Tools {
		if isSearchTool(t.Name) {
			return t.Name
		}
	}
	return ""
}

var deferredRE = regexp.MustCompile(`[A-Za-z0-9_.-]*toolhost[A-Za-z0-9_.-]*?(?:file_operations|terminal_operations|todo_operations|read_tool_result|memory_operations|user_collaboration|think)\b`)

// deferredName finds the name of a deferred toolhost tool in the request's text (the list of
// tools the client only names), or "".
func (r *Request) deferredName(tool string) string {
	for _, m := range deferredRE.FindAllString(r.text, -1) {
		if strings.HasSuffix(m, tool) {
			return m
		}
	}
	return ""
}

// Deferred reports whether the client deferred toolhost's tools: named them without offering
// their schemas.
func (r *Request) Deferred() bool {
	return r.ToolName("file_operations") == "" && r.searchTool() != "" && r.deferredName("file_operations") != ""
}

// main reports whether the request belongs to the main conversation: it offers toolhost's tools
// and does not ask for a JSON-only answer.
func (r *Request) main() bool {
	return !r.JSONWanted && (r.ToolName("file_operations") != "" || r.Deferred())
}

// ToolName finds the name under which the client offers toolhost's tool: the bare name or the
// name behind a client prefix (mcp__toolhost__, mcp_toolhost_, toolhost_, toolhost__).
func (r *Request) ToolName(tool string) string {
	if d, ok := r.Tool(tool); ok {
		return d.FullName()
	}
	return ""
}

// Tool returns the declaration of toolhost's tool, and whether the client offered it.
func (r *Request) Tool(tool string) (ToolDecl, bool) {
	for _, t := range r.Tools {
		if t.Name == tool {
			return t, true
		}
	}
	for _, t := range r.Tools {
		for _, sep := range []string{"__", "_", "-", ".", "/"} {
			if strings.HasSuffix(t.Name, sep+tool) && strings.Contains(strings.ToLower(t.Name), "toolhost") {
				return t, true
			}
		}
	}
	return ToolDecl{}, false
}

// parseRequest reads one request body of the given API.
func parseRequest(api API, path, alt string, body []byte) (*Request, error) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("compat model: %s body: %w", api, err)
	}
	req := &Request{API: api, Path: path, Body: body, text: strings.Join(leaves(v), "\n")}
	req.Model, _ = v["model"].(string)
	req.Stream, _ = v["stream"].(bool)
	req.Tools = toolDecls(v["tools"])
	switch api {
	case APIAnthropic:
		parseAnthropic(req, v)
	case APIResponses:
		parseResponses(req, v)
	case APIChat:
		parseChat(req, v)
	case APIGemini:
		req.Stream = strings.HasSuffix(path, ":streamGenerateContent")
		if alt == "sse" {
			req.Path += "?alt=sse"
		}
		if i := strings.Index(path, "/models/"); i >= 0 {
			req.Model = strings.SplitN(path[i+len("/models/"):], ":", 2)[0]
		}
		parseGemini(req, v)
	}
	return req, nil
}

// toolDecls collects every object under tools that names a tool: {name, description,
// parameters|input_schema|parametersJsonSchema}, at any depth (Chat wraps them in "function",
// Gemini in "functionDeclarations", Codex may group them in namespaces).
func toolDecls(v any) []ToolDecl {
	var out []ToolDecl
	var walk func(any, string)
	walk = func(v any, ns string) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e, ns)
			}
		case map[string]any:
			name, _ := x["name"].(string)
			if x["type"] == "namespace" {
				walk(x["tools"], name)
				return
			}
			var schema any
			for _, k := range []string{"input_schema", "parameters", "parametersJsonSchema", "inputSchema"} {
				if s, ok := x[k]; ok {
					schema = s
				}
			}
			if name != "" && schema != nil {
				d, _ := x["description"].(string)
				raw, _ := json.Marshal(schema)
				out = append(out, ToolDecl{Name: name, Namespace: ns, Description: d, Schema: raw})
				return
			}
			for _, k := range []string{"function", "functionDeclarations", "function_declarations", "tools"} {
				if e, ok := x[k]; ok {
					walk(e, ns)
				}
			}
		}
	}
	walk(v, "")
	return out
}

// leaves returns the strings in v, depth first.
func leaves(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

func rawOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func argsOf(v any) json.RawMessage {
	if s, ok := v.(string); ok {
		return json.RawMessage(s)
	}
	return rawOf(v)
}

func parseAnthropic(req *Request, v map[string]any) {
	msgs, _ := v["messages"].([]any)
	for _, mv := range msgs {
		msg, _ := mv.(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, bv := range blocks {
			b, _ := bv.(map[string]any)
			switch b["type"] {
			case "tool_use":
				id, _ := b["id"].(string)
				name, _ := b["name"].(string)
				req.Calls = append(req.Calls, ToolCall{ID: id, Name: name, Args: rawOf(b["input"])})
			case "tool_result":
				id, _ := b["tool_use_id"].(string)
				isErr, _ := b["is_error"].(bool)
				req.Results = append(req.Results, ToolResult{CallID: id, Leaves: resultLeaves(b["content"]), Raw: rawOf(b["content"]), IsError: isErr})
			}
		}
	}
	if of, ok := v["output_format"].(map[string]any); ok && of["type"] == "json_schema" {
		req.JSONWanted = true
	}
}

// resultLeaves reads a forwarded result: content blocks give their text (not their type names),
// anything else gives its strings. A client that forwards the MCP result's JSON as a string
// (Cline: {"content":[...]}) gives the texts in it.
func resultLeaves(v any) []string {
	if s, ok := v.(string); ok && strings.HasPrefix(s, `{"content":[`) {
		var r struct {
			Content []any `json:"content"`
		}
		if json.Unmarshal([]byte(s), &r) == nil {
			return resultLeaves(r.Content)
		}
	}
	if s, ok := v.(string); ok && strings.HasPrefix(s, `[{"type":"text"`) { // Continue
		var blocks []any
		if json.Unmarshal([]byte(s), &blocks) == nil {
			return resultLeaves(blocks)
		}
	}
	if blocks, ok := v.([]any); ok {
		var out []string
		for _, bv := range blocks {
			if b, ok := bv.(map[string]any); ok {
				if t, ok := b["text"].(string); ok {
					out = append(out, t)
					continue
				}
			}
			out = append(out, leaves(bv)...)
		}
		return out
	}
	return leaves(v)
}

func parseResponses(req *Request, v map[string]any) {
	items, _ := v["input"].([]any)
	for _, iv := range items {
		it, _ := iv.(map[string]any)
		switch it["type"] {
		case "function_call", "custom_tool_call":
			id, _ := it["call_id"].(string)
			name, _ := it["name"].(string)
			if ns, ok := it["namespace"].(string); ok && ns != "" {
				name = ns + "." + name
			}
			args := it["arguments"]
			if args == nil {
				args = it["input"]
			}
			req.Calls = append(req.Calls, ToolCall{ID: id, Name: name, Args: argsOf(args)})
		case "function_call_output", "custom_tool_call_output":
			id, _ := it["call_id"].(string)
			req.Results = append(req.Results, ToolResult{CallID: id, Leaves: resultLeaves(it["output"]), Raw: rawOf(it["output"])})
		}
	}
	if t, ok := v["text"].(map[string]any); ok {
		if f, ok := t["format"].(map[string]any); ok && f["type"] == "json_schema" {
			req.JSONWanted = true
		}
	}
}

func parseChat(req *Request, v map[string]any) {
	msgs, _ := v["messages"].([]any)
	for _, mv := range msgs {
		msg, _ := mv.(map[string]any)
		switch msg["role"] {
		case "assistant":
			calls, _ := msg["tool_calls"].([]any)
			for _, cv := range calls {
				c, _ := cv.(map[string]any)
				fn, _ := c["function"].(map[string]any)
				id, _ := c["id"].(string)
				name, _ := fn["name"].(string)
				req.Calls = append(req.Calls, ToolCall{ID: id, Name: name, Args: argsOf(fn["arguments"])})
			}
		case "tool":
			id, _ := msg["tool_call_id"].(string)
			name, _ := msg["name"].(string)
			req.Results = append(req.Results, ToolResult{CallID: id, Name: name, Leaves: resultLeaves(msg["content"]), Raw: rawOf(msg["content"])})
		}
	}
	if rf, ok := v["response_format"].(map[string]any); ok && (rf["type"] == "json_schema" || rf["type"] == "json_object") {
		req.JSONWanted = true
	}
}

func parseGemini(req *Request, v map[string]any) {
	contents, _ := v["contents"].([]any)
	for _, cv := range contents {
		c, _ := cv.(map[string]any)
		parts, _ := c["parts"].([]any)
		for _, pv := range parts {
			p, _ := pv.(map[string]any)
			if fc, ok := p["functionCall"].(map[string]any); ok {
				id, _ := fc["id"].(string)
				name, _ := fc["name"].(string)
				req.Calls = append(req.Calls, ToolCall{ID: id, Name: name, Args: rawOf(fc["args"])})
			}
			if fr, ok := p["functionResponse"].(map[string]any); ok {
				id, _ := fr["id"].(string)
				name, _ := fr["name"].(string)
				req.Results = append(req.Results, ToolResult{CallID: id, Name: name, Leaves: leaves(fr["response"]), Raw: rawOf(fr["response"])})
			}
		}
	}
	gc, _ := v["generationConfig"].(map[string]any)
	if gc == nil {
		gc, _ = v["generation_config"].(map[string]any)
	}
	if mt, _ := gc["responseMimeType"].(string); mt == "application/json" {
		req.JSONWanted = true
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing after each.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w}
}

func (s *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *sse) raw(line string) {
	fmt.Fprintf(s.w, "%s\n\n", line)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func newID(prefix string) string {
	return fmt.Sprintf("%s_%x", prefix, time.Now().UnixNano())
}

func writeAnthropic(w http.ResponseWriter, req *Request, rep reply) {
	id := newID("msg")
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	var block map[string]any
	stop := "end_turn"
	if rep.call != nil {
		var input any
		json.Unmarshal(rep.call.Args, &input)
		block = map[string]any{"type": "tool_use", "id": "toolu_" + rep.call.ID, "name": rep.call.Name, "input": input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": rep.text}
	}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if rep.call != nil {
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": rep.call.Name, "input": map[string]any{}}
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(rep.call.Args)}})
	} else {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": rep.text}})
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

func writeResponses(w http.ResponseWriter, req *Request, rep reply) {
	id := newID("resp")
	var item map[string]any
	if rep.call != nil {
		item = map[string]any{"type": "function_call", "id": "fc_" + rep.call.ID, "call_id": rep.call.ID, "name": rep.call.Name,
			"arguments": string(rep.call.Args), "status": "completed"}
		if rep.call.Namespace != "" {
			item["namespace"] = rep.call.Namespace
		}
	} else {
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.text, "annotations": []any{}}}}
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	resp := func(status string, output []any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "status": status, "model": req.Model, "output": output}
		if status == "completed" {
			r["usage"] = usage
		}
		return r
	}
	if !req.Stream {
		writeJSON(w, resp("completed", []any{item}))
		return
	}
	s := newSSE(w)
	seq := 0
	ev := func(typ string, v map[string]any) {
		v["type"], v["sequence_number"] = typ, seq
		seq++
		s.event(typ, v)
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []any{})})
	ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{})})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	if rep.call != nil {
		ev("response.function_call_arguments.delta", map[string]any{"output_index": 0, "item_id": item["id"], "delta": item["arguments"]})
		ev("response.function_call_arguments.done", map[string]any{"output_index": 0, "item_id": item["id"], "arguments": item["arguments"]})
	} else {
		ev("response.content_part.added", map[string]any{"output_index": 0, "item_id": item["id"], "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		ev("response.output_text.delta", map[string]any{"output_index": 0, "item_id": item["id"], "content_index": 0, "delta": rep.text})
		ev("response.output_text.done", map[string]any{"output_index": 0, "item_id": item["id"], "content_index": 0, "text": rep.text})
		ev("response.content_part.done", map[string]any{"output_index": 0, "item_id": item["id"], "content_index": 0, "part": map[string]any{"type": "output_text", "text": rep.text, "annotations": []any{}}})
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": resp("completed", []any{item})})
}

func writeChat(w http.ResponseWriter, req *Request, rep reply) {
	id := newID("chatcmpl")
	created := time.Now().Unix()
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	finish := "stop"
	var toolCalls []any
	if rep.call != nil {
		finish = "tool_calls"
		toolCalls = []any{map[string]any{"index": 0, "id": rep.call.ID, "type": "function",
			"function": map[string]any{"name": rep.call.Name, "arguments": string(rep.call.Args)}}}
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if rep.call != nil {
			msg["tool_calls"] = toolCalls
		} else {
			msg["content"] = rep.text
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	if rep.call != nil {
		s.event("", chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": toolCalls}, nil, nil))
	} else {
		s.event("", chunk(map[string]any{"role": "assistant", "content": rep.text}, nil, nil))
	}
	s.event("", chunk(map[string]any{}, finish, usage))
	s.raw("data: [DONE]")
}

func writeGemini(w http.ResponseWriter, req *Request, rep reply) {
	var part map[string]any
	if rep.call != nil {
		var args any
		json.Unmarshal(rep.call.Args, &args)
		part = map[string]any{"functionCall": map[string]any{"name": rep.call.Name, "args": args}}
	} else {
		part = map[string]any{"text": rep.text}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  req.Model,
	}
	switch {
	case !req.Stream:
		writeJSON(w, resp)
	case strings.HasSuffix(req.Path, "?alt=sse"):
		newSSE(w).event("", resp)
	default: // a streamed JSON array
		writeJSON(w, []any{resp})
	}
}
