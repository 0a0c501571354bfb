package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"toolhost/authz"
)

// approvalsData is what the approvals page and its live fragment show.
func (c *Console) approvalsData(ctx context.Context, s *session) (map[string]any, error) {
	pending, err := c.o.Guard.Approvals().List(ctx, "", authz.StatusPending)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	now := c.o.Now()
	live := pending[:0]
	for _, ap := range pending {
		if ap.Expires.Wall.IsZero() || ap.Expires.Wall.After(now) {
			live = append(live, ap)
		}
	}
	grants, err := c.o.Guard.Grants().List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	return map[string]any{"Pending": live, "Grants": grants, "CSRF": s.csrf, "ToolCall": toolCall}, nil
}

// toolCall is the call that asked, as the model made it.
func toolCall(ap authz.Approval) string {
	if ap.Command != "" {
		return "terminal_operations run_command " + strconv.Quote(ap.Command)
	}
	target := "path=" + strconv.Quote(ap.Path)
	if ap.Host != "" {
		target = "host=" + strconv.Quote(ap.Host)
	}
	return fmt.Sprintf("user_collaboration request_authorization access=%q %s", ap.Access, target)
}

func (c *Console) approvalsPage(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := c.approvalsData(r.Context(), s)
	if err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the approval requests.", err)
		return
	}
	c.render(w, r, http.StatusOK, "approvals", s, data)
}

// decide answers POST /approvals/ID: decision=approve|deny, duration=once|MINUTES.
func (c *Console) decide(w http.ResponseWriter, r *http.Request, s *session) {
	id := strings.Trim(strings.TrimPrefix(r.URL.Path, "/approvals/"), "/")
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	var err error
	switch r.PostFormValue("decision") {
	case "approve":
		once, minutes := false, 0
		switch d := r.PostFormValue("duration"); d {
		case "once":
			once = true
		default:
			minutes, err = strconv.Atoi(d)
			if err != nil || minutes <= 0 || time.Duration(minutes)*time.Minute > authz.MaxGrantTTL {
				c.fail(w, r, s, http.StatusBadRequest, fmt.Sprintf("duration must be once or between 1 and %d minutes", int(authz.MaxGrantTTL/time.Minute)), nil)
				return
			}
		}
		_, _, err = c.o.Guard.Approve(ctx, id, time.Duration(minutes)*time.Minute, once, decidedBy(r))
	case "deny":
		_, err = c.o.Guard.Deny(ctx, id, decidedBy(r))
	default:
		c.fail(w, r, s, http.StatusBadRequest, "decision must be approve or deny", nil)
		return
	}
	switch {
	case errors.Is(err, authz.ErrNotFound):
		c.fail(w, r, s, http.StatusNotFound, "No such approval request.", nil)
	case errors.Is(err, authz.ErrNotPending):
		c.fail(w, r, s, http.StatusConflict, "This request was already answered or has expired.", nil)
	case err != nil:
		c.fail(w, r, s, http.StatusInternalServerError, "The decision was not recorded.", err)
	default:
		c.o.Logger.Info("console decision", "request", id, "decision", r.PostFormValue("decision"), "duration", r.PostFormValue("duration"))
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

// revoke answers POST /grants/ID/revoke.
func (c *Console) revoke(w http.ResponseWriter, r *http.Request, s *session) {
	id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/grants/"), "/revoke")
	if !ok || id == "" || strings.Contains(id, "/") {
		http.NotFound(w, r)
		return
	}
	err := c.o.Guard.Revoke(r.Context(), id, decidedBy(r))
	switch {
	case errors.Is(err, authz.ErrNotFound):
		c.fail(w, r, s, http.StatusNotFound, "No such grant (it may have expired or been used up).", nil)
	case err != nil:
		c.fail(w, r, s, http.StatusInternalServerError, "The grant was not revoked.", err)
	default:
		c.o.Logger.Info("console revoked grant", "grant", id)
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}
