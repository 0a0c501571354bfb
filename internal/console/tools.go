package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Tools is what the tools page lists and switches. internal/app implements it over the
// registry, the running MCP servers and the managed toggles file.
type Tools interface {
	// Catalog lists every declared tool in the fixed order with its operations.
	Catalog() Catalog
	// SetEnabled switches one operation on or off: written to the toggles file atomically,
	// applied to the running servers at once (connected clients get
	// notifications/tools/list_changed), kept across restarts.
	SetEnabled(ctx context.Context, tool, op string, on bool) error
	// UpdateToken sets a client token's tier and rate (rate "default": the configured
	// per-principal rate), audited as by. The token's next call runs at the new tier and
	// rate, without a restart; connected clients are told the tool list changed.
	UpdateToken(ctx context.Context, name, tier, rate, by string) error
}

// Catalog is the tools page's content.
type Catalog struct {
	// Profile is the active profile; Profiles are every profile with what it does. The
	// page does not choose the profile: each process takes it from its configuration and
	// command line at start (see the tools page).
	Profile  string
	Profiles []ProfileInfo
	// ProfileFrom says where this server's profile was chosen ("default", "flag --profile",
	// "FILE:LINE"), and Config is the configuration file that chooses it.
	ProfileFrom, Config string
	// Tools are every declared tool, in the fixed order.
	Tools []ToolInfo
	// File is where the console writes its switches.
	File string
	// Tokens are the HTTP client tokens with their tiers (`toolhost token create/revoke`;
	// the page changes a tier or rate, as `toolhost token update` does).
	Tokens []TokenInfo
	// Tiers are the token tiers, lowest first.
	Tiers []string
}

// TokenInfo is one client token as the tools page lists it; never its secret.
type TokenInfo struct {
	Name, Tier, Rate string
	Created          time.Time
}

// ProfileInfo names a profile and says what it enables.
type ProfileInfo struct {
	Name, Summary string
}

// ToolInfo is one tool, in the fixed order.
type ToolInfo struct {
	Name       string
	Place      int // 1-based place in the fixed order
	Advertised bool
	Operations []OperationInfo
}

// OperationInfo is one operation with its risk and state.
type OperationInfo struct {
	Name, Summary, Risk string
	// Tier is the lowest token tier that may call it.
	Tier    string
	Enabled bool
	// Locked says why the console cannot switch it on (the profile disables it); "" when it can.
	Locked string
}

func (c *Console) toolsPage(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Tools == nil {
		c.render(w, r, http.StatusOK, "tools", s, map[string]any{"Missing": true})
		return
	}
	c.render(w, r, http.StatusOK, "tools", s, map[string]any{"Catalog": c.o.Tools.Catalog(), "Saved": r.URL.Query().Get("saved")})
}

// toggle answers POST /tools: tool=NAME switch=OP=1|OP=0. The page has one form per tool and
// a button per operation that carries its switch, so the CSRF token is not repeated in every
// row.
func (c *Console) toggle(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Tools == nil {
		c.fail(w, r, s, http.StatusNotFound, "Tool switches are not available in this server.", nil)
		return
	}
	tool := r.PostFormValue("tool")
	op, on, _ := strings.Cut(r.PostFormValue("switch"), "=")
	if tool == "" || op == "" || on != "1" && on != "0" {
		c.fail(w, r, s, http.StatusBadRequest, "A switch needs tool and switch=OPERATION=1 or =0.", nil)
		return
	}
	if err := c.o.Tools.SetEnabled(r.Context(), tool, op, on == "1"); err != nil {
		c.fail(w, r, s, http.StatusBadRequest, "Not switched: "+err.Error(), err)
		return
	}
	c.o.Logger.Info("console switched operation", "tool", tool, "op", op, "on", on == "1")
	http.Redirect(w, r, "/tools?saved="+tool+"."+op+"#"+tool, http.StatusSeeOther)
}

// updateToken answers POST /tokens: name=NAME tier=TIER rate=RATE (empty: the default rate).
// Only the operator reaches it: like every console action it needs the session, the CSRF
// token, the console's Origin and a peer process that toolhost did not start.
func (c *Console) updateToken(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Tools == nil {
		c.fail(w, r, s, http.StatusNotFound, "Client tokens are not available in this server.", nil)
		return
	}
	name, tier, rate := r.PostFormValue("name"), r.PostFormValue("tier"), strings.TrimSpace(r.PostFormValue("rate"))
	if name == "" || tier == "" {
		c.fail(w, r, s, http.StatusBadRequest, "A token change needs name and tier.", nil)
		return
	}
	if rate == "" {
		rate = "default"
	}
	if err := c.o.Tools.UpdateToken(r.Context(), name, tier, rate, decidedBy(r)); err != nil {
		c.fail(w, r, s, http.StatusBadRequest, "Not changed: "+err.Error(), err)
		return
	}
	c.o.Logger.Info("console changed token", "token", name, "tier", tier, "rate", rate)
	http.Redirect(w, r, "/tools?saved="+url.QueryEscape("token "+name)+"#tokens", http.StatusSeeOther)
}
