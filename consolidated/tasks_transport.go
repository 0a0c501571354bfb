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
// go-sdk does not know: tasks/get, tasks/result, tasks/cancel and tasks/list become calls of
// tasksToolName, a task-augmented tools/call carries its task parameters in _meta, and their
// answers are rewritten back (tasks.go answers them). The initialize answer declares the tasks
// capability; for a client that declared it too, tools/list marks TaskTools
// execution.taskSupport "optional". Other clients see the bytes they always saw.
func TaskTransport(t mcp.Transport) mcp.Transport { return &taskTransport{inner: t} }

type taskTransport struct{ inner mcp.Transport }

func (t *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, rewrites: map[any]string{}}, nil
}

// Kinds of answers taskConn rewrites.
const (
	rewriteRPC  = "rpc"  // the result is in _meta[rpcMetaKey]
	rewriteInit = "init" // declare the tasks capability
	rewriteList = "list" // mark the task tools
)

// serverTasksCapability is what the server declares (2025-11-25 capabilities.tasks).
const serverTasksCapability = `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},`

type taskConn struct {
	mcp.Connection

	mu       sync.Mutex
	rewrites map[any]string // request id -> how to rewrite its answer
	speaks   bool           // the client declared tasks
}

func (c *taskConn) remember(id jsonrpc.ID, kind string) {
	c.mu.Lock()
	c.rewrites[id.Raw()] = kind
	c.mu.Unlock()
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			return msg, nil
		}
		out, answer := c.rewrite(req)
		if answer != nil {
			if err := c.Connection.Write(ctx, answer); err != nil {
				return nil, err
			}
			continue
		}
		return out, nil
	}
}

// rewrite turns a Tasks request into what the SDK serves; answer, when set, is sent to the
// client instead (a request refused on the wire).
func (c *taskConn) rewrite(req *jsonrpc.Request) (out *jsonrpc.Request, answer *jsonrpc.Response) {
	switch req.Method {
	case "initialize":
		var p struct {
			Capabilities struct {
				Tasks      json.RawMessage            `json:"tasks"`
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"capabilities"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			_, ext := p.Capabilities.Extensions["io.modelcontextprotocol/tasks"]
			c.mu.Lock()
			c.speaks = len(p.Capabilities.Tasks) > 0 && string(p.Capabilities.Tasks) != "null" || ext
			c.mu.Unlock()
		}
		c.remember(req.ID, rewriteInit)
	case "tools/list":
		c.mu.Lock()
		speaks := c.speaks
		c.mu.Unlock()
		if speaks {
			c.remember(req.ID, rewriteList)
		}
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		var p map[string]any
		_ = json.Unmarshal(req.Params, &p)
		args := map[string]any{"method": req.Method}
		for _, k := range []string{"taskId", "cursor"} {
			if v, ok := p[k]; ok {
				args[k] = v
			}
		}
		params, _ := json.Marshal(map[string]any{"name": tasksToolName, "arguments": args})
		c.remember(req.ID, rewriteRPC)
		return &jsonrpc.Request{ID: req.ID, Method: "tools/call", Params: params, Extra: req.Extra}, nil
	case "tools/call":
		if !bytes.Contains(req.Params, []byte(`"task"`)) {
			break // the common case, without decoding what may be a large call
		}
		var p map[string]json.RawMessage
		if json.Unmarshal(req.Params, &p) != nil {
			break
		}
		task, ok := p["task"]
		if !ok || string(task) == "null" {
			break
		}
		var name string
		_ = json.Unmarshal(p["name"], &name)
		if !slices.Contains(TaskTools, name) {
			return nil, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "tool " + truncateRunes(name, 80) + " does not run as a task (execution.taskSupport is forbidden)"}}
		}
		meta := map[string]json.RawMessage{}
		if m, ok := p["_meta"]; ok {
			_ = json.Unmarshal(m, &meta)
		}
		meta[taskMetaKey] = task
		delete(p, "task")
		p["_meta"], _ = json.Marshal(meta)
		params, _ := json.Marshal(p)
		c.remember(req.ID, rewriteRPC)
		return &jsonrpc.Request{ID: req.ID, Method: req.Method, Params: params, Extra: req.Extra}, nil
	}
	return req, nil
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || !resp.ID.IsValid() {
		if ok {
			c.forget(resp.ID)
		}
		return c.Connection.Write(ctx, msg)
	}
	kind := c.forget(resp.ID)
	if kind == "" {
		return c.Connection.Write(ctx, msg)
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
	case rewriteList:
		out.Result = markTaskTools(resp.Result)
	}
	return c.Connection.Write(ctx, &out)
}

func (c *taskConn) forget(id jsonrpc.ID) string {
	if !id.IsValid() {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.rewrites[id.Raw()]
	delete(c.rewrites, id.Raw())
	return k
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
