package consolidated

import (
	"context"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/prompts"
	"toolhost/reminders"
	"toolhost/store"
)

// reminderPrompt is the MCP prompt that returns a conversation's current todo reminder, for
// clients that inject it themselves.
const reminderPrompt = "todo_reminder"

// PromptsMiddleware serves prompts/list and prompts/get from the prompts package on every call, so
// that Markdown prompts the user drops into userDir appear without a restart. It also serves the
// todo reminder of the session's own conversation (in the workspace reg routes it to) as a
// prompt, read from the store st returns: the wiring opens the store after the server starts
// serving, and holds prompts/get until then.
func PromptsMiddleware(userDir string, st func() *store.Store, reg *Registry, logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "prompts/list":
				list, err := prompts.List(userDir)
				if err != nil {
					logger.Warn("user prompts skipped", "dir", userDir, "err", err)
				}
				res := &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{}}
				for _, p := range list {
					mp := &mcp.Prompt{Name: p.Name, Description: p.Description}
					for _, a := range p.Arguments {
						mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
					}
					res.Prompts = append(res.Prompts, mp)
				}
				res.Prompts = append(res.Prompts, &mcp.Prompt{Name: reminderPrompt, Description: "The current todo reminder of this session's conversation."})
				return res, nil
			case "prompts/get":
				gr, ok := req.(*mcp.GetPromptRequest)
				if !ok || gr.Params == nil {
					return next(ctx, method, req)
				}
				if gr.Params.Name == reminderPrompt {
					ws, err := reg.route(ctx, gr.Session)
					if err != nil {
						return nil, resourceError(err)
					}
					conv, err := ws.Conversation(ctx, gr.Session, gr.Extra)
					if err != nil {
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "this session has no conversation yet; try again"}
					}
					text, err := reminders.For(ctx, st(), conv)
					if err != nil {
						return nil, err
					}
					if text == "" {
						text = "No todos in this conversation."
					}
					return promptResult("Todo reminder", text), nil
				}
				p, text, err := prompts.Get(gr.Params.Name, userDir, gr.Params.Arguments)
				if err != nil {
					code := int64(jsonrpc.CodeInvalidParams)
					if !errors.Is(err, prompts.ErrNotFound) && !errors.Is(err, prompts.ErrMissingArgument) && !errors.Is(err, prompts.ErrUnknownArgument) {
						code = jsonrpc.CodeInternalError
					}
					return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
				}
				return promptResult(p.Description, text), nil
			}
			return next(ctx, method, req)
		}
	}
}

func promptResult(desc, text string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Description: desc, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}
}
