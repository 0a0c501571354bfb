package consolidated

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskTransport wraps a server transport so that its connection speaks MCP Tasks, which the
// go-sdk does not know, through a taskRewriter (TaskHandler does the same for streamable HTTP).
func TaskTransport(t mcp.Transport) mcp.Transport { return &taskTransport{inner: t} }

type taskTransport struct{ inner mcp.Transport }

func (t *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, rw: newTaskRewriter(false)}, nil
}

type taskConn struct {
	mcp.Connection
	rw *taskRewriter
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		return c.rw.request(req), nil
	}
	return msg, err
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		msg = c.rw.response(resp)
	}
	return c.Connection.Write(ctx, msg)
}

// Kinds of answers taskRewriter rewrites.
const (
	rewriteRPC      = "rpc"      // the result is in _meta[rpcMetaKey]
	rewriteInit     = "init"     // declare the tasks capability
	rewriteDiscover = "discover" // declare the Tasks extension
	rewriteList     = "list"     // mark the task tools
)

// serverTasksCapability is what the server declares (2025-11-25 capabilities.tasks).
const serverTasksCapability = `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},`

// tasksExtension names the Tasks extension of 2026-07-28 (SEP-2663) in capabilities.
const tasksExtension = "io.modelcontextprotocol/tasks"

// taskRewriter is the one mapping of MCP Tasks onto what the go-sdk serves, one JSON-RPC
// message at a time, whatever carries the messages: tasks/get, tasks/result, tasks/cancel and
// tasks/list become calls of tasksToolName, a task-augmented tools/call carries its task
// parameters in _meta, and their answers are rewritten back (tasks.go answers them). The
// initialize answer declares the tasks capability; for a client that declared it too,
// tools/list marks TaskTools execution.taskSupport "optional". On 2026-07-28 server/discover
// declares the Tasks extension, and a request that declares it in its _meta gets the
// extension's shapes (taskRequest.Extension). Other clients see the bytes they always saw.
type taskRewriter struct {
	mu       sync.Mutex
	rewrites map[any]string // request id -> how to rewrite its answer
	speaks   bool           // the client declared tasks in initialize
}

func newTaskRewriter(speaks bool) *taskRewriter {
	return &taskRewriter{rewrites: map[any]string{}, speaks: speaks}
}

func (c *taskRewriter) remember(id jsonrpc.ID, kind string) {
	c.mu.Lock()
	c.rewrites[id.Raw()] = kind
	c.mu.Unlock()
}

// expects reports whether an answer to rewrite is awaited.
func (c *taskRewriter) expects() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.rewrites) > 0
}

func (c *taskRewriter) forget(id jsonrpc.ID) string {
	if !id.IsValid() {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.rewrites[id.Raw()]
	delete(c.rewrites, id.Raw())
	return k
}

// speaksTasks reports whether client capabilities declare MCP Tasks: the 2025-11-25
// capabilities.tasks, or the Tasks extension.
func speaksTasks(capabilities json.RawMessage) bool {
	var c struct {
		Tasks      json.RawMessage            `json:"tasks"`
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(capabilities, &c) != nil {
		return false
	}
	_, ext := c.Extensions[tasksExtension]
	return len(c.Tasks) > 0 && string(c.Tasks) != "null" || ext
}

// extensionRequest reports whether a request's _meta is of the 2026-07-28 protocol and declares
// the Tasks extension: its tasks follow the extension (server-directed, results in tasks/get).
func extensionRequest(meta json.RawMessage) bool {
	if !bytes.Contains(meta, []byte(tasksExtension)) {
		return false
	}
	var m struct {
		Version      string `json:"io.modelcontextprotocol/protocolVersion"`
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"io.modelcontextprotocol/clientCapabilities"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Version < "2026-07-28" {
		return false
	}
	_, ok := m.Capabilities.Extensions[tasksExtension]
	return ok
}

// taskRequest is what a tools/call asks of tasks, as taskRewriter puts it into _meta[taskMetaKey].
type taskRequest struct {
	// TTL is the task's time to live in ms (the 2025-11-25 task parameter's ttl).
	TTL int64 `json:"ttl,omitempty"`
	// Auto: the client did not ask for a task but accepts one (the Tasks extension); the call
	// is a task when its operation waits for long work (Operation.TaskWait).
	Auto bool `json:"auto,omitempty"`
	// Extension: answer in the Tasks extension's shapes.
	Extension bool `json:"extension,omitempty"`
}

// request turns a Tasks request into what the SDK serves; others pass as they are.
func (c *taskRewriter) request(req *jsonrpc.Request) *jsonrpc.Request {
	if !req.IsCall() {
		return req
	}
	switch req.Method {
	case "initialize":
		var p struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			c.mu.Lock()
			c.speaks = speaksTasks(p.Capabilities)
			c.mu.Unlock()
		}
		c.remember(req.ID, rewriteInit)
	case "tools/list":
		// The extension (2026-07-28) has no execution.taskSupport: the server decides.
		c.mu.Lock()
		speaks := c.speaks
		c.mu.Unlock()
		if speaks {
			c.remember(req.ID, rewriteList)
		}
	case "server/discover":
		c.remember(req.ID, rewriteDiscover)
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "tasks/update":
		var p map[string]json.RawMessage
		_ = json.Unmarshal(req.Params, &p)
		args := map[string]any{"method": req.Method}
		for _, k := range []string{"taskId", "cursor"} {
			if v, ok := p[k]; ok {
				args[k] = v
			}
		}
		if extensionRequest(p["_meta"]) {
			args["extension"] = true
		}
		return c.callTasksTool(req, args, p["_meta"])
	case "tools/call":
		if !bytes.Contains(req.Params, []byte(`"task"`)) && !bytes.Contains(req.Params, []byte(tasksExtension)) {
			break // the common case, without decoding what may be a large call
		}
		var p map[string]json.RawMessage
		if json.Unmarshal(req.Params, &p) != nil {
			break
		}
		task, asked := p["task"]
		asked = asked && string(task) != "null"
		ext := extensionRequest(p["_meta"])
		if !asked && !ext {
			break
		}
		var name string
		_ = json.Unmarshal(p["name"], &name)
		if !slices.Contains(TaskTools, name) {
			if !asked {
				break // the extension lets the server answer at once
			}
			// answerTask refuses it, so that every carrier answers it the same way.
			return c.callTasksTool(req, map[string]any{"method": req.Method, "name": name}, p["_meta"])
		}
		tr := taskRequest{Auto: !asked, Extension: ext}
		if asked {
			var tp struct {
				TTL int64 `json:"ttl"`
			}
			_ = json.Unmarshal(task, &tp)
			tr.TTL = tp.TTL
		}
		meta := map[string]json.RawMessage{}
		if m, ok := p["_meta"]; ok {
			_ = json.Unmarshal(m, &meta)
		}
		meta[taskMetaKey], _ = json.Marshal(tr)
		delete(p, "task")
		p["_meta"], _ = json.Marshal(meta)
		params, _ := json.Marshal(p)
		c.remember(req.ID, rewriteRPC)
		return &jsonrpc.Request{ID: req.ID, Method: req.Method, Params: params, Extra: req.Extra}
	}
	return req
}

// callTasksTool is req as a call of tasksToolName with args; meta, the request's _meta, goes
// along (the 2026-07-28 protocol reads its version there).
func (c *taskRewriter) callTasksTool(req *jsonrpc.Request, args map[string]any, meta json.RawMessage) *jsonrpc.Request {
	p := map[string]any{"name": tasksToolName, "arguments": args}
	if len(meta) > 0 && string(meta) != "null" {
		p["_meta"] = meta
	}
	params, _ := json.Marshal(p)
	c.remember(req.ID, rewriteRPC)
	return &jsonrpc.Request{ID: req.ID, Method: "tools/call", Params: params, Extra: req.Extra}
}

// response rewrites the answer to a request that request rewrote. A result that carries
// _meta[rpcMetaKey] is answered as that value even when its request is not known here (a
// stream replayed after a dropped HTTP connection): only tasks.go puts it there.
func (c *taskRewriter) response(resp *jsonrpc.Response) *jsonrpc.Response {
	kind := c.forget(resp.ID)
	if resp.Error != nil {
		return resp
	}
	if kind == "" && bytes.Contains(resp.Result, []byte(`"`+rpcMetaKey+`"`)) {
		kind = rewriteRPC
	}
	if kind == "" {
		return resp
	}
	out := *resp
	switch kind {
	case rewriteRPC:
		var r struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			if v, ok := r.Meta[rpcMetaKey]; ok {
				out.Result = v
			}
		}
	case rewriteInit:
		const key = `"capabilities":{`
		if i := bytes.Index(resp.Result, []byte(key)); i >= 0 {
			j := i + len(key)
			b := slices.Concat(resp.Result[:j], []byte(serverTasksCapability), resp.Result[j:])
			if bytes.HasPrefix(resp.Result[j:], []byte("}")) {
				b = slices.Concat(resp.Result[:j], []byte(serverTasksCapability[:len(serverTasksCapability)-1]), resp.Result[j:])
			}
			out.Result = b
		}
	case rewriteDiscover:
		out.Result = declareExtension(resp.Result)
	case rewriteList:
		out.Result = markTaskTools(resp.Result)
	}
	return &out
}

// declareExtension adds the Tasks extension to the capabilities of a server/discover result.
func declareExtension(result json.RawMessage) json.RawMessage {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil {
		return result
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(r["capabilities"], &caps) != nil || caps == nil {
		return result
	}
	ext := map[string]json.RawMessage{}
	if e, ok := caps["extensions"]; ok && json.Unmarshal(e, &ext) != nil {
		return result
	}
	ext[tasksExtension] = json.RawMessage(`{}`)
	caps["extensions"], _ = json.Marshal(ext)
	r["capabilities"], _ = json.Marshal(caps)
	b, err := json.Marshal(r)
	if err != nil {
		return result
	}
	return b
}

// markTaskTools adds execution.taskSupport "optional" to the TaskTools of a tools/list result,
// leaving every other byte as it was.
func markTaskTools(result json.RawMessage) json.RawMessage {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil {
		return result
	}
	var tools []json.RawMessage
	if json.Unmarshal(r["tools"], &tools) != nil {
		return result
	}
	var b bytes.Buffer
	b.WriteString(`[`)
	for i, t := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		var head struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(t, &head)
		if slices.Contains(TaskTools, head.Name) && bytes.HasPrefix(t, []byte("{")) && !bytes.Contains(t, []byte(`"execution":`)) {
			b.WriteString(`{"execution":{"taskSupport":"optional"},`)
			b.Write(t[1:])
			continue
		}
		b.Write(t)
	}
	b.WriteString(`]`)
	i := bytes.Index(result, r["tools"])
	if i < 0 {
		return result
	}
	return slices.Concat(result[:i], b.Bytes(), result[i+len(r["tools"]):])
}
