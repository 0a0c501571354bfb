package authz

import (
	"context"
	"errors"
	"sort"
	"time"
)

// MaxCommandLen bounds the command line of a command approval.
const MaxCommandLen = 8 << 10

// Runner names the tool that runs shell commands and its operations that start commands or
// type into a shell. authz knows no tool or operation by name: the terminal's wiring passes
// it (the MCP layer's operation rows declare which operations run commands).
type Runner struct {
	Tool string
	// Operations start commands or send them input: a write grant covering one of them lets
	// the commands write (WritePaths).
	Operations []string
}

// CommandAccess is the access of a command approval for the tool: running one exact command
// line that a command rule asks about ("TOOL:command").
func CommandAccess(tool string) string {
	return Access{Tool: tool, Class: ClassCommand}.String()
}

// CommandRequest is a command that a rule asks the user about.
type CommandRequest struct {
	Conversation string
	// Tool runs the command; the approval's access is CommandAccess(Tool).
	Tool string
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
	access := CommandAccess(r.Tool)
	pending, err := g.approvals.List(ctx, r.Conversation, StatusPending)
	if err != nil && !errors.Is(err, ErrNoStore) {
		return Approval{}, err
	}
	for _, ap := range pending {
		if ap.Access == access && ap.Path == r.Dir && ap.Command == r.Command {
			return ap, nil
		}
	}
	ap, err := g.approvals.Create(ctx, ApprovalSpec{
		Conversation: r.Conversation, Path: r.Dir, Access: access, Once: true,
		Reason: r.Reason, Command: r.Command,
	})
	if err != nil {
		return Approval{}, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "approval_requested", Conversation: ap.Conversation, Path: ap.Path, RequestID: ap.ID})
	return ap, nil
}

// CommandGranted reports whether the user approved running exactly the command line c.Command
// by c.Tool in c.Dir for c.Conversation, and uses the grant (a one-time grant is used up).
// c.Reason is not used.
func (g *Guard) CommandGranted(ctx context.Context, c CommandRequest) (Grant, bool, error) {
	// A command grant has the class form (Tool:command), so the operation is the class: no
	// operation of the tool is one.
	r := &Request{Conversation: c.Conversation, Tool: c.Tool, Operation: string(ClassCommand), Class: ClassCommand, Command: c.Command}
	gr, ok, err := g.grants.use(ctx, r, c.Dir, "")
	if err == nil && !ok && g.autoGrantCommand(ctx, c) {
		gr, ok, err = g.grants.use(ctx, r, c.Dir, "")
	}
	if err != nil || !ok {
		return Grant{}, false, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "decision", Conversation: c.Conversation, Tool: c.Tool, Operation: string(ClassCommand),
		Class: ClassCommand, Path: c.Dir, Outcome: OutcomeAllowedByGrant, GrantID: gr.ID})
	return gr, true, nil
}

// GrantedPath is a path the user granted terminals to write, or to read although it is protected.
type GrantedPath struct {
	Path      string
	Recursive bool
	Expires   time.Time // zero for configured grants
}

// WritePaths lists the paths that grants active now let the commands of the conversation
// write: grants whose access covers a write by one of run's operations (run.Tool:write,
// *:write, or one of the operations by name). The sandbox of a command or session started now
// allows writing there.
func (g *Guard) WritePaths(ctx context.Context, conversation string, run Runner) ([]GrantedPath, error) {
	return g.grantedPaths(ctx, conversation, run, ClassWrite)
}

// grantedPaths lists the paths of the conversation's grants that cover class for one of
// run.Operations.
func (g *Guard) grantedPaths(ctx context.Context, conversation string, run Runner, class Class) ([]GrantedPath, error) {
	list, err := g.grants.List(ctx, conversation)
	if err != nil {
		return nil, err
	}
	return coveringPaths(list, run, class), nil
}

// coveringPaths are the paths of the grants in list that cover class for one of
// run.Operations, sorted.
func coveringPaths(list []Grant, run Runner, class Class) []GrantedPath {
	var out []GrantedPath
	for _, gr := range list {
		if gr.Command != "" {
			continue
		}
		a, err := ParseAccess(gr.Access)
		if err != nil {
			continue
		}
		for _, op := range run.Operations {
			if a.covers(&Request{Tool: run.Tool, Operation: op, Class: class}) {
				out = append(out, GrantedPath{Path: gr.Path, Recursive: gr.Recursive, Expires: gr.Expires.Wall})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// ReadPaths lists the paths the conversation's grants let run's commands read although the
// guard protects them (a credential directory the user opened to terminals): grants whose
// access covers a read by one of run.Operations. The terminal sandbox hides every protected
// path but these.
func (g *Guard) ReadPaths(ctx context.Context, conversation string, run Runner) ([]GrantedPath, error) {
	return g.grantedPaths(ctx, conversation, run, ClassRead)
}
