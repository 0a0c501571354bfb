package authz

import (
	"context"
	"net/netip"
)

// Auto-approval (Config.AutoApprove) is for disposable environments where nobody answers: CI,
// containers. What a model would have to ask the user for is granted at once, as if the user had
// approved it, each grant with By "auto_approve (configuration)" and an "auto_approved" audit
// record:
//
//   - a path refused with a grantable code (outside the working directory, credentials, .git
//     internals, hard links): a grant of the request's tool and class on that path, for the
//     conversation, for the default grant time;
//   - a network address refused for its class (loopback, private, link-local): a grant of
//     the host, for the conversation;
//   - a command a rule asks about: a one-time grant of that exact command line;
//   - request_authorization: its request approved at once.
//
// Never granted: toolhost's own configuration, state, token and prompts (a model could then
// change its own rules), cloud metadata services (credentials of the machine), and whatever is
// denied outright (deny rules, the [web] deny list, toolhost's listeners, non-regular files).
// The wiring refuses the setting on the user's default state directory, says so at start, and
// marks every result.

// AutoApprovedBy is the By of what auto-approval grants.
const AutoApprovedBy = "auto_approve (configuration)"

// AutoApprove reports whether the guard grants what would be asked.
func (g *Guard) AutoApprove() bool { return g.autoApprove }

// ownPath reports whether c is one of toolhost's own protected paths, inside one, or an
// ancestor of one (renaming or deleting it would take the file along).
func (g *Guard) ownPath(c string) bool {
	for _, r := range g.rules().protected {
		if _, ok := r.match(c); ok {
			return true
		}
		if _, ok := r.below(c); ok {
			return true
		}
	}
	return false
}

// autoGrantPath grants what den asks for, when auto-approval is on and den may be granted:
// true when it made a grant (decide then decides again).
func (g *Guard) autoGrantPath(ctx context.Context, r *Request, den *Denial) bool {
	if !g.autoApprove || !den.Grantable() || den.Canonical == "" || g.ownPath(den.Canonical) {
		return false
	}
	spec := GrantSpec{Conversation: r.Conversation, Access: Access{Tool: r.Tool, Class: r.Class}.String(), Path: den.Canonical, By: AutoApprovedBy}
	return g.autoGrant(ctx, spec)
}

// autoGrantHost grants a network target host to the conversation's tool.
func (g *Guard) autoGrantHost(ctx context.Context, conv, access, host string, class AddrClass) bool {
	if !g.autoApprove || class == AddrMetadata || host == "" {
		return false
	}
	if ip, err := netip.ParseAddr(host); err == nil && ClassifyAddr(ip) == AddrMetadata {
		return false
	}
	return g.autoGrant(ctx, GrantSpec{Conversation: conv, Access: access, Host: host, By: AutoApprovedBy})
}

// autoGrantCommand grants one run of exactly the command line c.
func (g *Guard) autoGrantCommand(ctx context.Context, c CommandRequest) bool {
	if !g.autoApprove {
		return false
	}
	return g.autoGrant(ctx, GrantSpec{Conversation: c.Conversation, Access: CommandAccess(c.Tool), Path: c.Dir, Once: true,
		Command: c.Command, Reason: c.Reason, By: AutoApprovedBy})
}

func (g *Guard) autoGrant(ctx context.Context, spec GrantSpec) bool {
	gr, err := g.grants.Create(ctx, spec)
	if err != nil {
		g.log.Warn("auto_approve: grant not made", "access", spec.Access, "path", spec.Path, "host", spec.Host, "err", err)
		return false
	}
	g.auditEvent(ctx, AuditRecord{Event: "auto_approved", Conversation: gr.Conversation, Path: gr.Path, Host: gr.Host, GrantID: gr.ID, By: AutoApprovedBy})
	return true
}
