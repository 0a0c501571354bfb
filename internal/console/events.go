package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// topic is one live part of a page: the fragment the event stream sends when it changes.
type topic struct {
	page, fragment string
	data           func(c *Console, ctx context.Context, r *http.Request, s *session) (map[string]any, error)
}

// topics are the live parts, by the name a page's data-live attribute gives.
var topics = map[string]topic{
	"approvals": {page: "approvals", fragment: "live", data: func(c *Console, ctx context.Context, _ *http.Request, s *session) (map[string]any, error) {
		return c.approvalsData(ctx, s)
	}},
	"terminals": {page: "terminals", fragment: "live", data: (*Console).terminalsData},
	"activity":  {page: "activity", fragment: "live", data: (*Console).activityData},
	"memory":    {page: "memory", fragment: "imports", data: (*Console).importsData},
}

// keepAlive is how often an idle stream sends a comment, so proxies and the browser keep it.
const keepAlive = 15 * time.Second

// events streams a topic's fragment as server-sent events (GET /events?topic=NAME), each
// time its rendering changes. Every connection polls on its own: the sources are shared by
// several processes (approvals come from any toolhost process on the state directory), and
// a few open pages cost a few cheap reads.
func (c *Console) events(w http.ResponseWriter, r *http.Request, s *session) {
	name := r.URL.Query().Get("topic")
	t, ok := topics[name]
	if !ok {
		http.Error(w, "unknown topic", http.StatusNotFound)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	ctx := r.Context()
	tick := time.NewTicker(c.o.Poll)
	defer tick.Stop()
	last, idle := "", time.Now()
	for {
		if c.auth.session(r) == nil {
			return // signed out, expired, or the credential changed: the stream ends with the session
		}
		data, err := t.data(c, ctx, r, s)
		if err == nil {
			var html string
			if html, err = c.fragment(t.page, t.fragment, data); err == nil && html != last {
				last, idle = html, time.Now()
				if !writeEvent(w, name, html) {
					return
				}
				flusher.Flush()
			}
		}
		if err != nil && ctx.Err() == nil {
			c.o.Logger.Warn("console live update", "topic", name, "err", err)
		}
		if time.Since(idle) > keepAlive {
			idle = time.Now()
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
		select {
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		case <-tick.C:
		}
	}
}

// writeEvent writes one event; each line of the HTML becomes a data line.
func writeEvent(w http.ResponseWriter, name, html string) bool {
	var b strings.Builder
	b.WriteString("event: " + name + "\n")
	for _, line := range strings.Split(html, "\n") {
		b.WriteString("data: " + strings.TrimRight(line, "\r") + "\n")
	}
	b.WriteString("\n")
	_, err := fmt.Fprint(w, b.String())
	return err == nil
}
