package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"toolhost/authz"
)

// ApprovalsHandler serves the approval endpoint, an operator route (mount it in
// HTTPOptions.OperatorRoutes, behind Operator):
//
//	GET  /api/approvals             pending requests
//	POST /api/approvals/ID          {"decision":"approve"|"deny","minutes":10,"once":true}
//
// It is how a console (or curl) answers a model's authorization request without a terminal.
// The grant records the request's origin (the peer process and its user) as its By.
func ApprovalsHandler(g *authz.Guard) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/approvals"), "/")
		by := decidedBy(r)
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		defer cancel()
		switch {
		case r.Method == http.MethodGet && id == "":
			list, err := g.Approvals().List(ctx, "", authz.StatusPending)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"approvals": list})
		case r.Method == http.MethodPost && id != "":
			var body struct {
				Decision string `json:"decision"`
				Minutes  int    `json:"minutes"`
				Once     bool   `json:"once"`
			}
			if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
				http.Error(w, `body must be {"decision":"approve"|"deny","minutes":N,"once":bool}`, http.StatusBadRequest)
				return
			}
			if maxMinutes := int(authz.MaxGrantTTL / time.Minute); body.Minutes < 0 || body.Minutes > maxMinutes {
				// Checked here: a huge count of minutes overflows time.Duration into a short grant.
				http.Error(w, fmt.Sprintf("minutes must be between 0 and %d", maxMinutes), http.StatusBadRequest)
				return
			}
			var (
				ap    authz.Approval
				grant authz.Grant
				err   error
			)
			switch body.Decision {
			case "approve":
				ap, grant, err = g.Approve(ctx, id, time.Duration(body.Minutes)*time.Minute, body.Once, by)
			case "deny":
				ap, err = g.Deny(ctx, id, by)
			default:
				http.Error(w, `decision must be "approve" or "deny"`, http.StatusBadRequest)
				return
			}
			switch {
			case errors.Is(err, authz.ErrNotFound):
				http.Error(w, "no such approval request", http.StatusNotFound)
			case errors.Is(err, authz.ErrNotPending):
				http.Error(w, "approval request is not pending", http.StatusConflict)
			case err != nil:
				http.Error(w, err.Error(), http.StatusBadRequest)
			default:
				writeJSON(w, http.StatusOK, map[string]any{"approval": ap, "grant": grant})
			}
		default:
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "use GET /api/approvals or POST /api/approvals/ID", http.StatusMethodNotAllowed)
		}
	})
}

// GrantsHandler serves the grants endpoint, an operator route:
//
//	GET    /api/grants        active grants
//	DELETE /api/grants/ID     revoke one
func GrantsHandler(g *authz.Guard) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/grants"), "/")
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		defer cancel()
		switch {
		case r.Method == http.MethodGet && id == "":
			list, err := g.Grants().List(ctx, "")
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"grants": list})
		case r.Method == http.MethodDelete && id != "":
			switch err := g.Revoke(ctx, id, decidedBy(r)); {
			case errors.Is(err, authz.ErrNotFound):
				http.Error(w, "no such grant", http.StatusNotFound)
			case err != nil:
				http.Error(w, err.Error(), http.StatusBadRequest)
			default:
				writeJSON(w, http.StatusOK, map[string]any{"revoked": id, "by": decidedBy(r)})
			}
		default:
			w.Header().Set("Allow", "GET, DELETE")
			http.Error(w, "use GET /api/grants or DELETE /api/grants/ID", http.StatusMethodNotAllowed)
		}
	})
}

// decidedBy is who decides through r, as the grant records it: the origin Operator found (the
// peer process and its user), else just the channel.
func decidedBy(r *http.Request) string {
	if o, ok := authz.OriginFrom(r.Context()); ok {
		return o.String()
	}
	return "http"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
