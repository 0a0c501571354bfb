// Package server builds toolhost's MCP server on the go-sdk and serves it over stdio and streamable
// HTTP. It owns what the SDK leaves to applications: tolerant tool-name resolution, panic
// recovery outside tool handlers, a stdio reader that survives malformed lines, and HTTP
// hardening (bearer token, Origin and Host checks, limits). The registry it serves answers
// tools/list itself, in the fixed order.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/consolidated"
)

// Options configure the MCP server.
type Options struct {
	Name, Version string
	Instructions  string
	// Registry is the tool list: the server registers its tools, their resources and their
	// subscription handlers from it.
	Registry *consolidated.Registry
	Logger   *slog.Logger
	// Middleware runs inside recovery and the principal, before a tool's name is resolved:
	// e.g. to hold requests until the engines are open, or to serve prompts.
	Middleware []mcp.Middleware
	// Principal is who calls when the request carries no token (stdio, --no-auth); the zero
	// value means authz.StdioPrincipal.
	Principal authz.Principal
	// ListTTL is how long a client on 2026-07-28 may cache tools/list, prompts/list and
	// resources/templates/list (their ttlMs), asked per answer; nil leaves 0.
	ListTTL func() time.Duration
}

// New builds the MCP server with toolhost's middleware.
func New(o Options) *mcp.Server {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{
		Instructions: o.Instructions,
		Logger:       logger,
		Capabilities: capabilities(),
		PageSize:     1000,
		// The SDK refuses resources/subscribe without these; the registry passes them to the
		// advertised tools that track subscriptions.
		SubscribeHandler:   o.Registry.Subscribe,
		UnsubscribeHandler: o.Registry.Unsubscribe,
		// Resource template variables and prompt arguments that name paths.
		CompletionHandler: o.Registry.Complete,
		// A client's roots choose its session's workspace when the registry uses roots.
		InitializedHandler:      o.Registry.Initialized,
		RootsListChangedHandler: o.Registry.RootsChanged,
	})
	o.Registry.Register(s)
	mw := append([]mcp.Middleware{recoverMiddleware(logger), listTTLMiddleware(o.ListTTL), principalMiddleware(o.Principal)}, o.Middleware...)
	s.AddReceivingMiddleware(append(mw, resolveMiddleware(o.Registry))...)
	return s
}

// Warm registers a tool on a server nobody serves: the go-sdk's first AddTool compiles its
// JSON decoders (about a millisecond on a small machine), which New's registration would
// otherwise do on the way to a client's first answer. A stdio server calls it on another
// goroutine while it loads its configuration.
func Warm() {
	mcp.NewServer(&mcp.Implementation{Name: "warm", Version: "0"}, nil).AddTool(&mcp.Tool{Name: "warm", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
}

// listTTLMiddleware sets the ttlMs of the lists a client may cache, on 2026-07-28 (SEP-2549):
// the tool list is byte-identical across runs, and a change that alters a list is announced
// at once (notifications/tools/list_changed, on a subscriptions/listen stream). Earlier
// protocol versions have no such field to honour, and their answers stay as they were. The
// scope is private: a list depends on the caller's tier.
func listTTLMiddleware(ttl func() time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil || ttl == nil || !cachedProtocol(req) {
				return res, err
			}
			var c *mcp.Cacheable
			switch r := res.(type) {
			case *mcp.ListToolsResult:
				c = &r.Cacheable
			case *mcp.ListPromptsResult:
				c = &r.Cacheable
			case *mcp.ListResourceTemplatesResult:
				c = &r.Cacheable
			default:
				return res, err
			}
			c.TTLMs, c.CacheScope = int(ttl().Milliseconds()), "private"
			return res, nil
		}
	}
}

// cachedProtocol reports whether req is on a protocol version with list caching (2026-07-28
// and later).
func cachedProtocol(req mcp.Request) bool {
	v, ok := req.(interface{ ProtocolVersion() string })
	return ok && v.ProtocolVersion() >= "2026-07-28"
}

// capabilities are what the server declares at initialize, whatever it serves: all of them are
// set here, none left for the SDK to derive from what is registered.
func capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{
		// The operator console switches operations while clients are connected.
		Tools:   &mcp.ToolCapabilities{ListChanged: true},
		Prompts: &mcp.PromptCapabilities{ListChanged: false},
		// Logging: clients that set a level (logging/setLevel) hear of executions starting and
		// ending (notifications/message); toolhost's own log stays on stderr or in a file.
		Logging: &mcp.LoggingCapabilities{},
		// Resources follow the registry (a tool's, the executions'); subscriptions go to the
		// tools that track them.
		Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		// Resource template variables and prompt arguments that name paths.
		Completions: &mcp.CompletionCapabilities{},
	}
}

// recoverMiddleware turns a panic anywhere in request handling into a JSON-RPC internal error;
// the go-sdk would otherwise let it end the process.
func recoverMiddleware(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					logger.Error("panic in request", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in toolhost; see the server log"}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// resolveMiddleware accepts the tool names models get wrong in predictable ways: a dotted
// "tool.operation" name or an operation sent as a tool. Disabled tools answer with an isError
// result that says so instead of an unknown-tool protocol error.
func resolveMiddleware(reg *consolidated.Registry) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			if slices.Contains(reg.Names(), cr.Params.Name) {
				return next(ctx, method, req)
			}
			tool, args, found := reg.Resolve(cr.Params.Name, cr.Params.Arguments)
			if !found {
				return next(ctx, method, req)
			}
			if !slices.Contains(reg.Names(), tool) {
				return reg.Dispatch(ctx, tool, args, cr), nil
			}
			p := *cr.Params
			p.Name, p.Arguments = tool, json.RawMessage(args)
			cr2 := *cr
			cr2.Params = &p
			return next(ctx, method, &cr2)
		}
	}
}

// principalMiddleware puts the caller's principal into the context of every request: the one
// the HTTP authentication resolved from the bearer token (carried as the SDK's TokenInfo), else
// the server's own (stdio). tools/list then shows only what the principal's tier may call (the
// registry answers it for the principal in the context).
func principalMiddleware(def authz.Principal) mcp.Middleware {
	if def.Name == "" {
		def = authz.StdioPrincipal
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p := def
			if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
				p = PrincipalOf(ex.TokenInfo)
			}
			return next(authz.WithPrincipal(ctx, p), method, req)
		}
	}
}
