package consolidated

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// ApprovalPlace says where the user answers authorization requests, so that the text a
// model relays names it: the operator console while `serve` hosts one in this process, else
// the `toolhost approve` command. A model cannot answer there (the console and the CLI refuse
// toolhost's descendants); it can only tell the user where to look. Safe for concurrent use;
// nil and the zero value name the CLI.
type ApprovalPlace struct {
	console atomic.Pointer[string]
	// Elsewhere, when set, finds a console that another toolhost process serves on the same
	// state directory ("" when none runs): the user of a stdio server answers there too.
	Elsewhere func() string
}

// SetConsole records the console's base URL (http://HOST:PORT/); "" goes back to the CLI.
func (p *ApprovalPlace) SetConsole(url string) {
	if url != "" && !strings.HasSuffix(url, "/") {
		url += "/"
	}
	p.console.Store(&url)
}

// Console is the console's base URL: this process's own, else one another process serves on
// the same state, else "".
func (p *ApprovalPlace) Console() string {
	if p == nil {
		return ""
	}
	if u := p.console.Load(); u != nil && *u != "" {
		return *u
	}
	if p.Elsewhere == nil {
		return ""
	}
	u := p.Elsewhere()
	if u != "" && !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// consoleLink is the console's address of request id: the approvals page, scrolled to it.
func (p *ApprovalPlace) consoleLink(id string) string { return p.Console() + "#req-" + id }

// ask is the next step of an error that waits on request id.
func (p *ApprovalPlace) ask(id string) string {
	if p.Console() != "" {
		return fmt.Sprintf("ask the user to approve it in the toolhost console: %s (or in their terminal: toolhost approve %s)", p.consoleLink(id), id)
	}
	return fmt.Sprintf("ask the user to approve it in their terminal: toolhost approve %s (or POST /api/approvals/%s on serve)", id, id)
}

// pending is the paragraph of a pending request's result that says where the user answers.
func (p *ApprovalPlace) pending(id string) string {
	if p.Console() != "" {
		return fmt.Sprintf("Ask the user to approve it in the toolhost console:\n  %s\n(or in a terminal: toolhost approve %s; deny: toolhost deny %s)", p.consoleLink(id), id, id)
	}
	return fmt.Sprintf("Ask the user to approve it in a terminal:\n  toolhost approve %s\n(or deny: toolhost deny %s; an HTTP server also takes POST /api/approvals/%s)", id, id, id)
}
