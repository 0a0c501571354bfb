package console

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"toolhost/authz"
	"toolhost/internal/secret"
	"toolhost/internal/terminal"
)

// The user's hand on a terminal. The console's Type page (/terminals/type) and `toolhost
// attach` (through the operator API, /api/terminals/) type into a session as the user, through
// the one write path a model uses (terminal.Manager.Send, with Input.User set):
//
//   - The user is whom the command rules serve, so what the user types is not checked against
//     them (gate.WithUser); the rules still read it, so an alias the user defines is known
//     when a model's later line uses it.
//   - Every batch of keys is audited (event terminal_input in audit.jsonl: who, where, the
//     keys with secrets masked, or only their count when the terminal hides them), refusals
//     too.
//   - The model's next read of the session names the keys as the user's (terminal.UserInputs).
//   - Keys typed while the terminal does not echo and reads lines (a password prompt: ECHO
//     off, ICANON on) are never written anywhere: the audit and the model get their count.
//   - Only the operator types: a console session (signed in with the operator token, CSRF and
//     Origin checked) or the operator token itself on the API. An MCP client token, whatever
//     its tier, is refused and audited: its keys would be a model's, beyond the rules.

// MaxTypedBytes bounds one batch of keys (a paste included).
const MaxTypedBytes = 16 << 10

// typedAudit is the audit record of one batch of keys.
type typedAudit struct {
	authz.AuditRecord
	Session string `json:"session,omitempty"`
	Via     string `json:"via"`
	Bytes   int    `json:"bytes"`
	// Keys are the keys as terminal.KeysText shows them, secrets masked; empty when Hidden.
	Keys   string `json:"keys,omitempty"`
	Hidden bool   `json:"hidden,omitempty"`
	// Reason says why a batch was refused.
	Reason string `json:"reason,omitempty"`
}

// Audit outcomes of terminal_input.
const (
	outcomeTyped   = "typed"
	outcomeRefused = "refused"
)

// typeError is a refused batch: the HTTP status and the text for the user.
type typeError struct {
	status int
	msg    string
}

func (e *typeError) Error() string { return e.msg }

// typeKeys types keys into session id of conv as the user, audits the batch and keeps it for
// the model's next read. by is who typed (the request's origin), via where ("console",
// "attach", "api").
func (c *Console) typeKeys(ctx context.Context, conv, id, keys, via, by string) error {
	m := c.o.Terminals
	rec := typedAudit{AuditRecord: authz.AuditRecord{Time: c.o.Now().UTC(), Event: "terminal_input", Conversation: conv,
		Tool: "terminal_operations", Operation: "send_input", By: by, PID: os.Getpid()}, Session: id, Via: via, Bytes: len(keys)}
	refuse := func(status int, msg string) error {
		rec.Outcome, rec.Reason = outcomeRefused, msg
		if err := c.audit(ctx, rec); err != nil {
			c.o.Logger.Error("console: a refused keystroke batch was not audited", "err", err)
		}
		return &typeError{status, msg}
	}
	switch {
	case m == nil:
		return refuse(http.StatusNotFound, "no terminal engine in this server")
	case c.o.Store == nil:
		return &typeError{http.StatusServiceUnavailable, "no audit log in this server: keys are not typed unaudited"}
	case keys == "":
		return refuse(http.StatusBadRequest, "no keys: send at least one byte")
	case len(keys) > MaxTypedBytes:
		return refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("%d bytes in one batch; at most %d can be typed at once", len(keys), MaxTypedBytes))
	}
	info, ok := sessionInfo(m, conv, id)
	if !ok {
		return refuse(http.StatusNotFound, fmt.Sprintf("no running session %q in conversation %q", id, conv))
	}
	// The terminal's mode is read before and after the write (Send may wait for a command to
	// start first): keys count as hidden when either look found them so.
	hidden := !showsKeys(info.PID)
	no := false
	if _, err := m.Send(ctx, conv, id, terminal.Input{Text: keys, PressEnter: &no, User: true}); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, terminal.ErrEnded) || errors.Is(err, terminal.ErrNoSession) {
			status = http.StatusNotFound
		}
		return refuse(status, "not typed: "+err.Error())
	}
	rec.Hidden = hidden || !showsKeys(info.PID)
	if !rec.Hidden {
		rec.Keys = terminal.KeysText(secret.Text(keys))
	}
	c.o.Typed.Add(conv, id, terminal.Typed{At: c.o.Now(), Via: via, Text: keys, Hidden: rec.Hidden})
	rec.Outcome = outcomeTyped
	if err := c.audit(ctx, rec); err != nil {
		c.o.Logger.Error("console: typed keys were not audited", "conversation", conv, "session", id, "err", err)
		return &typeError{http.StatusInternalServerError, "typed, but the audit record was not written: " + err.Error()}
	}
	return nil
}

// audit appends rec to the audit log, even when the request that caused it has ended.
func (c *Console) audit(ctx context.Context, rec typedAudit) error {
	if c.o.Store == nil {
		return errors.New("no store")
	}
	return c.o.Store.AppendAudit(context.WithoutCancel(ctx), rec)
}

// sessionInfo finds a running session of this process's engine.
func sessionInfo(m *terminal.Manager, conv, id string) (terminal.Info, bool) {
	for _, in := range m.Sessions(conv) {
		if in.ID == id && in.Kind == "session" && in.State == terminal.StateRunning {
			return in, true
		}
	}
	return terminal.Info{}, false
}

// typeKeysPage answers POST /terminals/input (conversation, id, keys): the Type page's
// script sends each batch of keys here with the session's CSRF token.
func (c *Console) typeKeysPage(w http.ResponseWriter, r *http.Request, s *session) {
	conv, id, keys := r.PostFormValue("conversation"), r.PostFormValue("id"), r.PostFormValue("keys")
	writeTyped(w, c.typeKeys(r.Context(), conv, id, keys, "console", decidedBy(r)))
}

// writeTyped answers a batch: 204, or the refusal's status and text.
func writeTyped(w http.ResponseWriter, err error) {
	var te *typeError
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.As(err, &te):
		http.Error(w, te.msg, te.status)
	default:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// screenView is what the Type page and toolhost attach poll: the rendered screen and the
// session's state.
type screenView struct {
	Screen string `json:"screen"`
	State  string `json:"state"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
}

// screenOf renders session id of conv; false when this process runs no such session.
func (c *Console) screenOf(conv, id string) (screenView, bool) {
	m := c.o.Terminals
	if m == nil {
		return screenView{}, false
	}
	for _, in := range m.Sessions(conv) {
		if in.ID != id || in.Kind != "session" {
			continue
		}
		v := screenView{State: in.State, Cols: in.Cols, Rows: in.Rows}
		if in.State == terminal.StateRunning {
			v.Screen, _ = m.Screen(conv, id)
		}
		return v, true
	}
	return screenView{}, false
}

// typeScreen answers GET /terminals/screen?conversation=&id= as JSON (screenView).
func (c *Console) typeScreen(w http.ResponseWriter, r *http.Request, s *session) {
	writeScreen(w, c, r.FormValue("conversation"), r.FormValue("id"))
}

func writeScreen(w http.ResponseWriter, c *Console, conv, id string) {
	v, ok := c.screenOf(conv, id)
	if !ok {
		http.Error(w, fmt.Sprintf("no session %q in conversation %q in this server", id, conv), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// typePage is the Type page (GET /terminals/type?conversation=&id=): the session's screen,
// which takes the keyboard when clicked.
func (c *Console) typePage(w http.ResponseWriter, r *http.Request, s *session) {
	conv, id := r.FormValue("conversation"), r.FormValue("id")
	v, ok := c.screenOf(conv, id)
	if !ok || v.State != terminal.StateRunning {
		c.fail(w, r, s, http.StatusNotFound, fmt.Sprintf("No running session %q in conversation %q.", id, conv), nil)
		return
	}
	c.render(w, r, http.StatusOK, "type", s, map[string]any{"Conversation": conv, "ID": id, "V": v})
}

// TerminalAPI is the operator API of typing, for `toolhost attach` and scripts: POST
// /api/terminals/input?conversation=&id=[&via=attach] takes the raw keys as its body, GET
// /api/terminals/screen?conversation=&id= answers the screen as JSON. Serve it behind the
// operator token and the peer check (internal/server's PrincipalRoutes): a request that
// carries an MCP client token reaches it too, and is refused and audited here.
func (c *Console) TerminalAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		conv, id := q.Get("conversation"), q.Get("id")
		if !c.operatorRequest(r) {
			who := "a client token"
			if p, ok := authz.PrincipalFrom(r.Context()); ok {
				who = fmt.Sprintf("client token %s (tier %s)", p.Name, p.Tier)
			}
			msg := who + " may not use the terminals' operator API: only the operator types into a terminal, with the operator token (operator-token in the state directory), never an MCP client token"
			if r.Method == http.MethodPost && strings.TrimPrefix(r.URL.Path, "/api/terminals/") == "input" {
				rec := typedAudit{AuditRecord: authz.AuditRecord{Time: c.o.Now().UTC(), Event: "terminal_input", Outcome: outcomeRefused,
					Conversation: conv, Tool: "terminal_operations", Operation: "send_input", By: who, PID: os.Getpid()}, Session: id, Via: "api", Reason: msg}
				if err := c.audit(r.Context(), rec); err != nil {
					c.o.Logger.Error("console: a refused keystroke batch was not audited", "err", err)
				}
			}
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		switch strings.TrimPrefix(r.URL.Path, "/api/terminals/") {
		case "input":
			if r.Method != http.MethodPost {
				http.Error(w, "POST the keys", http.StatusMethodNotAllowed)
				return
			}
			via := "api"
			if q.Get("via") == "attach" {
				via = "attach"
			}
			keys, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxTypedBytes+1))
			if err != nil && !errors.As(err, new(*http.MaxBytesError)) {
				http.Error(w, "cannot read the keys: "+err.Error(), http.StatusBadRequest)
				return
			}
			writeTyped(w, c.typeKeys(r.Context(), conv, id, string(keys), via, decidedBy(r)))
		case "screen":
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				http.Error(w, "GET the screen", http.StatusMethodNotAllowed)
				return
			}
			writeScreen(w, c, conv, id)
		default:
			http.NotFound(w, r)
		}
	})
}

// operatorRequest reports whether r carries the operator token itself (the credential
// console sessions are bound to).
func (c *Console) operatorRequest(r *http.Request) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	want, err := c.o.Credential()
	got = strings.TrimSpace(got)
	return err == nil && want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// refusedTyping audits a batch of keys the console refused before its handler ran (no
// session, a wrong CSRF token); other requests pass untouched.
func (c *Console) refusedTyping(r *http.Request, reason string) {
	if r.Method != http.MethodPost || r.URL.Path != "/terminals/input" {
		return
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxFormBytes)
	conv, id, keys := r.PostFormValue("conversation"), r.PostFormValue("id"), r.PostFormValue("keys")
	rec := typedAudit{AuditRecord: authz.AuditRecord{Time: c.o.Now().UTC(), Event: "terminal_input", Outcome: outcomeRefused,
		Conversation: conv, Tool: "terminal_operations", Operation: "send_input", By: decidedBy(r), PID: os.Getpid()},
		Session: id, Via: "console", Bytes: len(keys), Reason: reason}
	if err := c.audit(r.Context(), rec); err != nil {
		c.o.Logger.Error("console: a refused keystroke batch was not audited", "err", err)
	}
}
