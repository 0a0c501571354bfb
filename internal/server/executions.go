package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// ExecutionAPI is what the execution routes serve. A nil Metrics leaves /metrics out.
type ExecutionAPI struct {
	Executions *engine.Engine
	// Limits rate-limit the API's own requests per principal: every answer carries the
	// RateLimit-* headers, a refused one is 429 with Retry-After.
	Limits  *engine.Limits
	Metrics http.Handler
}

// ExecutionRoutes are the execution history's endpoints, for HTTPOptions.PrincipalRoutes:
// the operator token opens them as the admin operator, a client token as its own principal.
//
//	GET  /api/executions?tool=&category=&status=&conversation=&principal=&since=&until=&limit=&offset=
//	GET  /api/executions/ID
//	POST /api/executions/ID/cancel
//	GET  /api/stats
//	GET  /metrics                                      Prometheus text format
//
// A principal sees and cancels only its own executions unless it is an admin.
func ExecutionRoutes(o ExecutionAPI) map[string]http.Handler {
	h := limited(ExecutionsHandler(o.Executions), o.Limits)
	routes := map[string]http.Handler{"/api/executions": h, "/api/executions/": h, "/api/stats": h}
	if o.Metrics != nil {
		routes["/metrics"] = limited(o.Metrics, o.Limits)
	}
	return routes
}

// limited lets a request through with a principal (set by the credential's check) that is
// within its rate limit, else refuses it whole.
func limited(h http.Handler, lim *engine.Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := authz.PrincipalFrom(r.Context())
		if !ok {
			writeError(w, http.StatusUnauthorized, "", "a bearer token is required")
			return
		}
		if lim != nil {
			own, _ := engine.ParseRate(p.Rate)
			q, err := lim.AllowRequest(p, own)
			setRateLimitHeaders(w.Header(), q)
			var le *engine.LimitError
			if errors.As(err, &le) {
				w.Header().Set("Retry-After", strconv.Itoa(ceilSeconds(le.Wait)))
				writeError(w, http.StatusTooManyRequests, "", err.Error())
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// setRateLimitHeaders reports a principal's quota on every answer in the fields of the IETF
// draft that HTTP clients and proxies read most widely (draft-ietf-httpapi-ratelimit-headers
// up to -06): RateLimit-Limit (requests per window), RateLimit-Remaining (requests left now),
// RateLimit-Reset (seconds until the whole quota is back) and RateLimit-Policy (LIMIT;w=SECONDS).
// A refused request adds Retry-After, the seconds until one passes. No limit, no fields.
func setRateLimitHeaders(h http.Header, q engine.Quota) {
	if q.Limit <= 0 {
		return
	}
	h.Set("RateLimit-Limit", strconv.Itoa(q.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(q.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(q.Reset)))
	h.Set("RateLimit-Policy", fmt.Sprintf("%d;w=%d", q.Limit, ceilSeconds(q.Window)))
}

// ceilSeconds is d in whole seconds, rounded up (delta-seconds never promise too early).
func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// ExecutionsHandler serves the execution history, one execution, cancellation and stats.
func ExecutionsHandler(e *engine.Engine) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viewer, _ := authz.PrincipalFrom(r.Context())
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		defer cancel()
		rest := strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/executions"), "/")
		switch {
		case r.URL.Path == "/api/stats" && r.Method == http.MethodGet:
			s, err := e.Stats(ctx, viewer)
			if err != nil {
				writeError(w, http.StatusInternalServerError, "", "stats unavailable; see the server log")
				return
			}
			writeJSON(w, http.StatusOK, s)
		case r.URL.Path == "/api/stats":
			methodNotAllowed(w, "GET")
		case rest == "" && r.Method == http.MethodGet:
			f, err := ParseFilter(r.URL.Query())
			if err != nil {
				writeFilterError(w, err)
				return
			}
			f.Viewer = viewer
			page, err := e.List(ctx, f)
			if err != nil {
				writeFilterError(w, err)
				return
			}
			writeJSON(w, http.StatusOK, page)
		case rest == "":
			methodNotAllowed(w, "GET")
		case !strings.Contains(rest, "/") && r.Method == http.MethodGet:
			rec, err := e.Get(ctx, viewer, rest)
			if errors.Is(err, engine.ErrNotFound) {
				writeError(w, http.StatusNotFound, "id", fmt.Sprintf("no execution %q", rest))
				return
			} else if err != nil {
				writeError(w, http.StatusInternalServerError, "", "history unavailable; see the server log")
				return
			}
			writeJSON(w, http.StatusOK, rec)
		case strings.HasSuffix(rest, "/cancel") && !strings.Contains(strings.TrimSuffix(rest, "/cancel"), "/"):
			if r.Method != http.MethodPost {
				methodNotAllowed(w, "POST")
				return
			}
			id := strings.TrimSuffix(rest, "/cancel")
			rec, err := e.Cancel(ctx, viewer, id)
			switch {
			case errors.Is(err, engine.ErrNotFound):
				writeError(w, http.StatusNotFound, "id", fmt.Sprintf("no execution %q", id))
			case errors.Is(err, engine.ErrFinished):
				writeJSON(w, http.StatusConflict, map[string]any{"error": fmt.Sprintf("execution %s already finished (%s)", id, rec.Status), "execution": rec})
			case err != nil:
				writeJSON(w, http.StatusAccepted, map[string]any{"error": "cancel requested; the execution has not ended yet", "execution": rec})
			default:
				writeJSON(w, http.StatusOK, rec)
			}
		default:
			writeError(w, http.StatusNotFound, "", "use /api/executions, /api/executions/ID, /api/executions/ID/cancel or /api/stats")
		}
	})
}

// ParseFilter reads the history filters of a query string; unknown parameters are refused so a
// typo does not silently return everything.
func ParseFilter(q map[string][]string) (engine.Filter, error) {
	var f engine.Filter
	for key, vs := range q {
		v := vs[len(vs)-1]
		switch key {
		case "tool":
			f.Tool = v
		case "category":
			f.Category = authz.Category(v)
		case "status":
			f.Status = engine.Status(v)
		case "conversation":
			f.Conversation = v
		case "principal":
			f.Principal = v
		case "since", "until":
			t, err := ParseTime(v, time.Now())
			if err != nil {
				return f, &engine.FilterError{Param: key, Message: err.Error()}
			}
			if key == "since" {
				f.Since = t
			} else {
				f.Until = t
			}
		case "limit", "offset":
			n, err := strconv.Atoi(v)
			if err != nil {
				return f, &engine.FilterError{Param: key, Message: key + " must be a whole number"}
			}
			if key == "limit" {
				if n == 0 {
					return f, &engine.FilterError{Param: "limit", Message: fmt.Sprintf("limit must be between 1 and %d", engine.MaxLimit)}
				}
				f.Limit = n
			} else {
				f.Offset = n
			}
		default:
			return f, &engine.FilterError{Param: key, Message: "unknown parameter; filters: tool, category, status, conversation, principal, since, until, limit, offset"}
		}
	}
	return f, f.Check()
}

// ParseTime reads an RFC 3339 time, or a duration meaning that long before now ("15m", "2h").
func ParseTime(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time (2026-01-02T15:04:05Z) nor a duration ago (15m, 2h)", s)
	}
	return t, nil
}

func writeFilterError(w http.ResponseWriter, err error) {
	var fe *engine.FilterError
	if errors.As(err, &fe) {
		writeError(w, http.StatusBadRequest, fe.Param, fe.Message)
		return
	}
	writeError(w, http.StatusInternalServerError, "", "history unavailable; see the server log")
}

func writeError(w http.ResponseWriter, status int, param, msg string) {
	body := map[string]any{"error": msg}
	if param != "" {
		body["param"] = param
	}
	writeJSON(w, status, body)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "", "method not allowed; use "+allow)
}
