package authz

import (
	"context"
	"errors"
	"sort"
	"time"
)

// MaxCommandLen bounds the command line of a command approval.
const MaxCommandLen = 8 << 10

// TerminalTool is the tool name of terminal grants and command approvals.
const TerminalTool = "terminal_operations"

// CommandAccess is the access of a command approval: running one exact command line that a
// command rule asks about.
const CommandAccess = TerminalTool + ":command"

// CommandRequest is a command that a rule asks the user about.
type CommandRequest struct {
	Conversation string
	// Dir is the canonical directory the command runs in.
	Dir string
	// Command is the exact line, as it would run.
	Command string
	// Reason says which rule asked and why; it is shown to the user.
	Reason string
}

// RequestCommand files a pending approval for a command line, or returns the one already
// pending for the same conversation, directory and line. The model cannot file these
// itself: the terminal does, with the exact line it refused to run.
func (g *Guard) RequestCommand(ctx context.Context, r CommandRequest) (Approval, error) {
	pending, err := g.approvals.List(ctx, r.Conversation, StatusPending)
	if err != nil && !errors.Is(err, ErrNoStore) {
		return Approval{}, err
	}
	for _, ap := range pending {
		if ap.Access == CommandAccess && ap.Path == r.Dir && ap.Command == r.Command {
			return ap, nil
		}
	}
	ap, err := g.approvals.Create(ctx, ApprovalSpec{
		Conversation: r.Conversation, Path: r.Dir, Access: CommandAccess, Once: true,
		Reason: r.Reason, Command: r.Command,
	})
	if err != nil {
		return Approval{}, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "approval_requested", Conversation: ap.Conversation, Path: ap.Path, RequestID: ap.ID})
	return ap, nil
}

// CommandGranted reports whether the user approved running exactly this command line in dir
// for the conversation, and uses the grant (a one-time grant is used up).
func (g *Guard) CommandGranted(ctx context.Context, conversation, dir, command string) (Grant, bool, error) {
	r := &Request{Conversation: conversation, Tool: TerminalTool, Operation: "run_command", Class: ClassCommand, Command: command}
	gr, ok, err := g.grants.use(ctx, r, dir, "")
	if err != nil || !ok {
		return Grant{}, false, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "decision", Conversation: conversation, Tool: TerminalTool, Operation: "command",
		Class: ClassCommand, Path: dir, Outcome: OutcomeAllowedByGrant, GrantID: gr.ID})
	return gr, true, nil
}

// GrantedPath is a path the user granted terminals to write.
type GrantedPath struct {
	Path      string
	Recursive bool
	Expires   time.Time // zero for configured grants
}

// TerminalWritePaths lists the paths that grants active now let terminal commands of the
// conversation write: grants whose access covers a write by terminal_operations
// (terminal_operations:write, *:write, or one of its operations by name). The sandbox of a
// command or session started now allows writing there.
func (g *Guard) TerminalWritePaths(ctx context.Context, conversation string) ([]GrantedPath, error) {
	list, err := g.grants.List(ctx, conversation)
	if err != nil {
		return nil, err
	}
	var out []GrantedPath
	for _, gr := range list {
		if gr.Command != "" {
			continue
		}
		a, err := ParseAccess(gr.Access)
		if err != nil {
			continue
		}
		for _, op := range []string{"run_command", "create_session", "send_input"} {
			if a.covers(&Request{Tool: TerminalTool, Operation: op, Class: ClassWrite}) {
				out = append(out, GrantedPath{Path: gr.Path, Recursive: gr.Recursive, Expires: gr.Expires.Wall})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
