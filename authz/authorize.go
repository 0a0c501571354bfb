package authz

import (
	"context"
	"fmt"
	"time"
)

// AuthorizationRequest is the argument of user_collaboration request_authorization.
type AuthorizationRequest struct {
	Conversation string
	Path         string // as the model gave it; a host (or URL) when Access has the network class
	Access       string // tool.operation or tool:class
	Recursive    bool
	Once         bool
	Minutes      int
	Reason       string
}

// RequestAuthorization records a pending approval request for the model's request. It grants
// nothing: a human approves it with Approve (CLI, approval endpoint), or the MCP layer asks the user
// by elicitation and calls CreateGrant on acceptance. Unusable input is a *Denial or wraps
// ErrInvalidAccess.
func (g *Guard) RequestAuthorization(ctx context.Context, r AuthorizationRequest) (Approval, error) {
	if a, err := ParseAccess(r.Access); err == nil && a.Class == ClassCommand {
		// The exact command must be bound to the request; the terminal files it (RequestCommand).
		return Approval{}, fmt.Errorf("%w: command approvals are requested by the tool that runs the command, when a rule asks; run the command and follow its answer", ErrInvalidAccess)
	}
	c, host, err := g.canonicalTarget(r.Access, r.Path)
	if err != nil {
		return Approval{}, err
	}
	ap, err := g.approvals.Create(ctx, ApprovalSpec{
		Conversation: r.Conversation, Path: c, Host: host, Access: r.Access, Recursive: r.Recursive,
		Once: r.Once, Minutes: r.Minutes, Reason: r.Reason,
	})
	if err != nil {
		return Approval{}, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "approval_requested", Conversation: ap.Conversation, Path: ap.Path, Host: ap.Host, RequestID: ap.ID})
	if g.autoApprove && (ap.Path == "" || !g.ownPath(ap.Path)) {
		minutes := max(ap.Minutes, 0)
		approved, _, err := g.Approve(ctx, ap.ID, time.Duration(minutes)*time.Minute, ap.Once, AutoApprovedBy)
		if err != nil {
			return ap, err
		}
		return approved, nil
	}
	return ap, nil
}

// CreateGrant canonicalises spec.Path and stores the grant. Call it only on a human's decision (an
// accepted elicitation, the CLI); never with values a model chose without the user seeing them.
func (g *Guard) CreateGrant(ctx context.Context, spec GrantSpec) (Grant, error) {
	target := spec.Path
	if spec.Host != "" {
		if a, err := ParseAccess(spec.Access); err != nil || a.Class != ClassNetwork || spec.Path != "" {
			return Grant{}, fmt.Errorf("%w: a host needs an access of the network class (TOOL:network), and no path", ErrInvalidGrant)
		}
		target = spec.Host
	}
	c, host, err := g.canonicalTarget(spec.Access, target)
	if err != nil {
		return Grant{}, err
	}
	spec.Path, spec.Host = c, host
	gr, err := g.grants.Create(ctx, spec)
	if err != nil {
		return Grant{}, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "grant_created", Conversation: gr.Conversation, Path: gr.Path, Host: gr.Host, GrantID: gr.ID, By: gr.By})
	return gr, nil
}

// Approve approves a pending request (see Approvals.Approve) and audits it.
func (g *Guard) Approve(ctx context.Context, id string, duration time.Duration, once bool, by string) (Approval, Grant, error) {
	ap, gr, err := g.approvals.Approve(ctx, id, duration, once, by)
	if err != nil {
		return ap, gr, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "approval_approved", Conversation: ap.Conversation, Path: ap.Path, Host: ap.Host, RequestID: ap.ID, GrantID: gr.ID, By: by})
	return ap, gr, nil
}

// Deny denies a pending request and audits it.
func (g *Guard) Deny(ctx context.Context, id, by string) (Approval, error) {
	ap, err := g.approvals.Deny(ctx, id, by)
	if err != nil {
		return ap, err
	}
	g.auditEvent(ctx, AuditRecord{Event: "approval_denied", Conversation: ap.Conversation, Path: ap.Path, Host: ap.Host, RequestID: ap.ID, By: by})
	return ap, nil
}

// Revoke revokes a grant and audits who did it (by, an Origin's String).
func (g *Guard) Revoke(ctx context.Context, id, by string) error {
	if err := g.grants.Revoke(ctx, id); err != nil {
		return err
	}
	g.auditEvent(ctx, AuditRecord{Event: "grant_revoked", GrantID: id, By: by})
	return nil
}

func (g *Guard) auditEvent(ctx context.Context, rec AuditRecord) {
	if g.audit == nil {
		return
	}
	rec.Time = g.clock.Now().UTC()
	g.audit.add(ctx, rec)
}
