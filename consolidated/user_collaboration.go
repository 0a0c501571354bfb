package consolidated

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/prompts"
)

// CollaborationConfig configures user_collaboration.
type CollaborationConfig struct {
	Guard *authz.Guard
	// MaxWait is how long check_request waits for a pending decision before answering; clients
	// abort calls at 60 s. Default 15 s.
	MaxWait time.Duration
	// PromptsDir holds the user's own prompts, which get_prompt lists and reads with the
	// embedded ones (the prompts package).
	PromptsDir string
	// Logger hears of user prompt files that were skipped; nil discards.
	Logger *slog.Logger
}

type askArgs struct {
	Question string   `json:"question" jsonschema:"Question."`
	Options  []string `json:"options,omitempty" jsonschema:"Allowed answers."`
}

type authorizeArgs struct {
	Path      string `json:"path" jsonschema:"Path to authorize."`
	Access    string `json:"access" jsonschema:"tool.operation or tool:class (file_operations:write)."`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"Whole directory tree."`
	Once      bool   `json:"once,omitempty" jsonschema:"Single use."`
	Minutes   int    `json:"minutes,omitempty" jsonschema:"Duration (default 5)."`
	Reason    string `json:"reason,omitempty" jsonschema:"Why (shown to the user)."`
}

type checkRequestArgs struct {
	RequestID string `json:"request_id" jsonschema:"From request_authorization."`
}

type getPromptArgs struct {
	Prompt string `json:"prompt,omitempty" alias:"name,prompt_name" jsonschema:"Name; omit to list."`
}

// elicitKey names toolhost's input request in a multi-round-trip call.
const elicitKey = "toolhost_answer"

// UserCollaborationTool lets the model ask the user a question and request authorization. Answers
// and grants come only from the human: through MCP elicitation when the client supports it, else
// through `toolhost approve` or the approval endpoint. Nothing in the arguments grants anything.
func UserCollaborationTool(cfg CollaborationConfig) *Tool {
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 15 * time.Second
	}
	key := make([]byte, 32)
	rand.Read(key)
	u := &collaboration{cfg: cfg, key: key}
	return &Tool{
		Name:        "user_collaboration",
		Title:       "Ask the user",
		Description: "Ask the user: " + OperationsPlaceholder + ". Questions, and authorization for paths outside the working directory or protected ones.",
		Operations: []Operation{
			Op("ask", "question to the user", RiskState, u.ask).WithTimeout(10 * time.Minute).WithCategory(authz.CategoryDangerous),
			Op("request_authorization", "ask the user to grant access", RiskState, u.requestAuthorization).WithTimeout(10 * time.Minute).WithCategory(authz.CategoryDangerous),
			Op("check_request", "status of a request", RiskState, u.checkRequest).WithTimeout(time.Minute).WithCategory(authz.CategorySafe),
			Op("get_prompt", "list the prompts, or read one", RiskRead, u.getPrompt),
		},
	}
}

// AskCall names the call that asks the user for a grant, this tool's request_authorization
// polled with check_request: the guard spells it out in the next step of a refusal a grant can
// fix (authz.Config.Ask), since authz knows no tool or operation by name.
func AskCall() authz.AskCall {
	return authz.AskCall{Tool: "user_collaboration", Request: "request_authorization", Poll: "check_request"}
}

type collaboration struct {
	cfg CollaborationConfig
	key []byte
}

// sign binds an approval id to this server, so that the answer to an elicitation can only
// approve the request the server itself asked about.
func (u *collaboration) sign(id string) string {
	m := hmac.New(sha256.New, u.key)
	m.Write([]byte(id))
	return id + "." + hex.EncodeToString(m.Sum(nil))
}

func (u *collaboration) verify(state string) (string, bool) {
	id, _, ok := strings.Cut(state, ".")
	if !ok || !hmac.Equal([]byte(u.sign(id)), []byte(state)) {
		return "", false
	}
	return id, true
}

// elicitation returns the client's answer to our input request, if this call carries one.
func elicitation(c *Call) (*mcp.ElicitResult, string) {
	if c.Request == nil || c.Request.Params == nil {
		return nil, ""
	}
	if r, ok := c.Request.Params.InputResponses[elicitKey].(*mcp.ElicitResult); ok {
		return r, c.Request.Params.RequestState
	}
	return nil, ""
}

// canElicit reports whether the client declared form elicitation.
func canElicit(c *Call) bool {
	if c.Request == nil {
		return false
	}
	caps := c.Request.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil
}

func (u *collaboration) ask(ctx context.Context, c *Call, a *askArgs) (*Result, error) {
	q := strings.TrimSpace(a.Question)
	if q == "" {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "question", Message: "question is empty"}
	}
	if ans, _ := elicitation(c); ans != nil {
		switch ans.Action {
		case "accept":
			v, _ := ans.Content["answer"].(string)
			return &Result{Text: "The user answered: " + v, Structured: map[string]any{"action": "accept", "answer": v}}, nil
		default:
			return &Result{Text: "The user " + declined(ans.Action) + " the question; continue without an answer or ask in your reply.",
				Structured: map[string]any{"action": ans.Action}}, nil
		}
	}
	if !canElicit(c) {
		return nil, &ToolError{Code: CodeUnsupported, Message: "this client cannot show questions (no elicitation support)",
			Next: "ask the user in your reply and wait for their message"}
	}
	answer := map[string]any{"type": "string", "title": "Answer"}
	if len(a.Options) > 0 {
		answer["enum"] = a.Options
	}
	return &Result{InputRequests: mcp.InputRequestMap{elicitKey: &mcp.ElicitParams{
		Mode:    "form",
		Message: q,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"answer": answer},
			"required":   []string{"answer"},
		},
	}}}, nil
}

func declined(action string) string {
	if action == "cancel" {
		return "cancelled"
	}
	return "declined"
}

func (u *collaboration) requestAuthorization(ctx context.Context, c *Call, a *authorizeArgs) (*Result, error) {
	g := u.cfg.Guard
	if ans, state := elicitation(c); ans != nil {
		id, ok := u.verify(state)
		if !ok {
			return nil, &ToolError{Code: CodeInvalidState, Message: "the answer does not belong to a request this server made; request authorization again"}
		}
		pending, err := g.Approvals().Get(ctx, id)
		if errors.Is(err, authz.ErrNotFound) || err == nil && pending.Conversation != c.Conversation {
			return nil, &ToolError{Code: CodeInvalidState, Message: "the answer does not belong to a request of this conversation; request authorization again"}
		}
		if err != nil {
			return nil, err
		}
		if ans.Action != "accept" {
			_, err := g.Deny(ctx, id, elicitedBy(ctx, c))
			if err != nil && !errors.Is(err, authz.ErrNotPending) {
				return nil, err
			}
			return &Result{Text: fmt.Sprintf("The user %s: no grant for %s on %s. Do not retry the same request unless the user asks you to.", declined(ans.Action), pending.Access, pending.Target()),
				Structured: map[string]any{"request_id": id, "status": "denied"}}, nil
		}
		// Defaults are what the user was shown (the stored request), never the arguments of this
		// retry, which need not match them.
		minutes, once := pending.Minutes, pending.Once
		if v, ok := ans.Content["minutes"].(float64); ok {
			minutes = int(v)
		}
		if v, ok := ans.Content["once"].(bool); ok {
			once = v
		}
		minutes = max(1, min(orInt(minutes, 5), 24*60))
		_, grant, err := g.Approve(ctx, id, time.Duration(minutes)*time.Minute, once, elicitedBy(ctx, c))
		if errors.Is(err, authz.ErrNotPending) {
			return nil, &ToolError{Code: CodeNotPending, Param: "request_id", Message: fmt.Sprintf("request %s was already decided or has expired", id),
				Next: fmt.Sprintf("the user_collaboration tool with {\"operation\":\"check_request\",\"request_id\":%q} shows its outcome", id)}
		}
		if err != nil {
			return nil, GuardError(err, "path")
		}
		return grantedResult(id, grant), nil
	}
	if acc, err := authz.ParseAccess(a.Access); err == nil && acc.Class == authz.ClassCommand {
		// The guard refuses these too, but knows no tool by name: the answer names the one
		// that files them.
		return nil, GuardError(fmt.Errorf("%w: command approvals are requested by %s itself when a rule asks; run the command and follow its answer",
			authz.ErrInvalidAccess, terminalToolName), "path")
	}
	ap, err := g.RequestAuthorization(ctx, authz.AuthorizationRequest{
		Conversation: c.Conversation, Path: a.Path, Access: a.Access, Recursive: a.Recursive,
		Once: a.Once, Minutes: a.Minutes, Reason: a.Reason,
	})
	if err != nil {
		return nil, GuardError(err, "path")
	}
	if ap.Status == authz.StatusApproved {
		// [guard] auto_approve approved it as it was filed.
		grant, err := g.Grants().Get(ctx, ap.GrantID)
		if err != nil {
			return nil, err
		}
		return grantedResult(ap.ID, grant), nil
	}
	if canElicit(c) {
		scope := ap.Target()
		if ap.Recursive && ap.Host != "" {
			scope += " (and its subdomains)"
		} else if ap.Recursive {
			scope += " (and everything inside)"
		}
		msg := fmt.Sprintf("Allow %s on %s?", ap.Access, scope)
		if ap.Reason != "" {
			msg += "\nReason given: " + ap.Reason
		}
		return &Result{RequestState: u.sign(ap.ID), InputRequests: mcp.InputRequestMap{elicitKey: &mcp.ElicitParams{
			Mode:    "form",
			Message: msg,
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"minutes": map[string]any{"type": "integer", "title": "Minutes", "minimum": 1, "maximum": 1440, "default": orInt(ap.Minutes, 5)},
					"once":    map[string]any{"type": "boolean", "title": "Only once", "default": ap.Once},
				},
			},
		}}}, nil
	}
	return pendingResult(ap, approvalPlace(c)), nil
}

func (u *collaboration) checkRequest(ctx context.Context, c *Call, a *checkRequestArgs) (*Result, error) {
	g := u.cfg.Guard
	deadline := time.Now().Add(u.cfg.MaxWait)
	for {
		ap, err := g.Approvals().Get(ctx, a.RequestID)
		if errors.Is(err, authz.ErrNotFound) {
			return nil, &ToolError{Code: CodeNotFound, Param: "request_id", Message: fmt.Sprintf("no authorization request %q", truncate(a.RequestID, 40))}
		}
		if err != nil {
			return nil, err
		}
		if ap.Conversation != c.Conversation && ap.Conversation != "" {
			return nil, &ToolError{Code: CodeNotFound, Param: "request_id", Message: "that request belongs to another conversation"}
		}
		switch ap.Status {
		case authz.StatusApproved:
			grant, err := g.Grants().Get(ctx, ap.GrantID)
			if err != nil {
				return &Result{Text: fmt.Sprintf("Request %s was approved, but its grant has expired or was used; request authorization again if you still need it.", ap.ID),
					Structured: map[string]any{"request_id": ap.ID, "status": "expired"}}, nil
			}
			return grantedResult(ap.ID, grant), nil
		case authz.StatusDenied:
			return &Result{Text: fmt.Sprintf("Request %s was denied by the user. Do not retry it unless the user asks you to.", ap.ID),
				Structured: map[string]any{"request_id": ap.ID, "status": "denied"}}, nil
		case authz.StatusExpired:
			return &Result{Text: fmt.Sprintf("Request %s expired without an answer.", ap.ID),
				Structured: map[string]any{"request_id": ap.ID, "status": "expired"}}, nil
		}
		if !time.Now().Before(deadline) {
			return pendingResult(ap, approvalPlace(c)), nil
		}
		select {
		case <-ctx.Done():
			return pendingResult(ap, approvalPlace(c)), nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func grantedResult(requestID string, g authz.Grant) *Result {
	uses := "until it expires"
	if g.Uses > 0 {
		uses = fmt.Sprintf("%d use(s)", g.Uses)
	}
	scope := g.Target()
	if g.Recursive && g.Host != "" {
		scope = "host *." + g.Host + " and " + g.Host
	} else if g.Recursive {
		scope += "/**"
	}
	text := fmt.Sprintf("Granted %s on %s until %s (%s). Retry the operation now.", g.Access, scope, g.Expires.Wall.Format(time.TimeOnly), uses)
	if terminalWriteGrant(g.Access) {
		text += " Terminal commands and sessions started from now on may write there; a session already running keeps its old sandbox (close_session, then create_session)."
	}
	return &Result{
		Text: text,
		Structured: map[string]any{"request_id": requestID, "status": "approved", "grant_id": g.ID,
			"access": g.Access, "path": g.Path, "host": g.Host, "recursive": g.Recursive, "expires": g.Expires.Wall},
	}
}

// pendingResult tells the model that request ap waits for the user, and where the user
// answers it (place: the console, else the CLI).
func pendingResult(ap authz.Approval, place *ApprovalPlace) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "Authorization request %s is pending: %s on %s.\n%s", ap.ID, ap.Access, ap.Target(), place.pending(ap.ID))
	fmt.Fprintf(&b, "\nThen call the user_collaboration tool's check_request with request_id %q; it waits a few seconds for the decision.", ap.ID)
	return &Result{Text: b.String(), Structured: map[string]any{"request_id": ap.ID, "status": "pending", "access": ap.Access, "path": ap.Path, "host": ap.Host}}
}

// approvalPlace is where the user of call c answers authorization requests.
func approvalPlace(c *Call) *ApprovalPlace {
	if c == nil || c.Env == nil {
		return nil
	}
	return c.Env.Approvals
}

func orInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// elicitedBy is who answered an elicitation, as the grant records it: the channel, the principal
// whose client asked the user, and the client as it named itself (its own claim, shown as such).
func elicitedBy(ctx context.Context, c *Call) string {
	by := "elicitation"
	if p, ok := authz.PrincipalFrom(ctx); ok && p.Name != "" {
		by += ":" + p.Name
	}
	if c.Request != nil && c.Request.Session != nil {
		if ip := c.Request.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			name := strings.TrimSpace(ip.ClientInfo.Name + " " + ip.ClientInfo.Version)
			name = strings.Map(func(r rune) rune {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
					return ' '
				}
				return r
			}, name)
			if r := []rune(name); len(r) > 64 {
				name = string(r[:64])
			}
			if name != "" {
				by += " (client says " + name + ")"
			}
		}
	}
	return by
}

// getPrompt lists the prompts (embedded and the user's), or shows one as written: its
// arguments, then its text with {{argument}} placeholders for the model to fill in. A prompt
// is guidance to follow, not a command toolhost runs.
func (u *collaboration) getPrompt(_ context.Context, c *Call, a *getPromptArgs) (*Result, error) {
	all, err := prompts.List(u.cfg.PromptsDir)
	if err != nil && u.cfg.Logger != nil {
		u.cfg.Logger.Warn("user prompts skipped", "dir", u.cfg.PromptsDir, "err", err)
	}
	if all == nil {
		return nil, err
	}
	name := strings.TrimSpace(a.Prompt)
	var b strings.Builder
	if name == "" {
		fmt.Fprintf(&b, "Prompts (%d):", len(all))
		for _, p := range all {
			fmt.Fprintf(&b, "\n- %s: %s", p.Name, p.Description)
			if args := promptArgs(p, false); args != "" {
				b.WriteString(" (" + args + ")")
			}
		}
		b.WriteString("\nRead one with the user_collaboration tool's get_prompt and prompt=NAME.")
		return &Result{Text: b.String()}, nil
	}
	i := slices.IndexFunc(all, func(p prompts.Prompt) bool { return p.Name == name })
	if i < 0 {
		names := make([]string, len(all))
		for j, p := range all {
			names[j] = p.Name
		}
		return nil, &ToolError{Code: CodeNotFound, Param: "prompt", Message: fmt.Sprintf("no prompt %q", name),
			Next: "prompts: " + strings.Join(names, ", ")}
	}
	p := all[i]
	fmt.Fprintf(&b, "Prompt %s: %s", p.Name, p.Description)
	if args := promptArgs(p, true); args != "" {
		b.WriteString("\nArguments, to fill in where {{name}} stands: " + args)
	}
	b.WriteString("\n\n" + strings.TrimRight(p.Body(), "\n"))
	return &Result{Text: b.String()}, nil
}

// promptArgs names a prompt's arguments: "error (required), command=the command that
// produced it", with their descriptions when long.
func promptArgs(p prompts.Prompt, long bool) string {
	parts := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		s := a.Name
		switch {
		case a.Required:
			s += " (required)"
		case a.Default != "":
			s += "=" + a.Default
		}
		if long && a.Description != "" {
			s += ": " + strings.TrimSuffix(a.Description, ".")
		}
		parts[i] = s
	}
	sep := ", "
	if long {
		sep = "; "
	}
	return strings.Join(parts, sep)
}
