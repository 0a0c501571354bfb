package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"toolhost/store"
)

// topic is one live part of a page: the fragment the event stream sends when it changes.
type topic struct {
	page, fragment string
	data           func(c *Console, ctx context.Context, r *http.Request, s *session) (map[string]any, error)
	// stored says the part shows only what the store holds (and the clock): its stream
	// renders when a commit or the store's Version says the store changed, not on every poll.
	stored bool
}

// topics are the live parts, by the name a page's data-live attribute gives. Terminals,
// activity (running executions live in memory and in the engine's journals) and imports are
// not in the store, so their streams render on every poll.
var topics = map[string]topic{
	"approvals": {page: "approvals", fragment: "live", stored: true, data: func(c *Console, ctx context.Context, _ *http.Request, s *session) (map[string]any, error) {
		return c.approvalsData(ctx, s)
	}},
	"terminals": {page: "terminals", fragment: "live", data: (*Console).terminalsData},
	"activity":  {page: "activity", fragment: "live", data: (*Console).activityData},
	"memory":    {page: "memory", fragment: "imports", data: (*Console).importsData},
}

// keepAlive is how often an idle stream sends a comment, so proxies and the browser keep it.
const keepAlive = 15 * time.Second

// events streams a topic's fragment as server-sent events (GET /events?topic=NAME), each
// time its rendering changes.
//
// A stored topic does not read the store to find out: approvals come from any toolhost
// process on the state directory, so the stream wakes at once on this process's commits
// (store.Commits) and, every Watch, compares the store's Version (one stat of the file) for
// the others' commits. It renders only then, and every Refresh whatever they say (a request
// expires without a write). An idle open page costs a stat per Watch instead of two read
// transactions and a render per Poll. Other topics render every Poll.
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
	st := c.o.Store
	stored := t.stored && st != nil
	every := c.o.Poll
	if stored {
		every = c.o.Watch
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	last, idle, rendered := "", time.Now(), time.Time{}
	var seen store.Version
	var commits <-chan struct{}
	for {
		if stored {
			// Taken before the read, so a commit during it is seen on the next round.
			commits, seen = st.Commits(), st.Version()
		}
		// The credential is a file: it is read with each render, and at least every
		// Refresh; a sign-out of this console ends the stream at the next tick.
		if c.auth.session(r) == nil {
			return // signed out, expired, or the credential changed: the stream ends with the session
		}
		rendered = time.Now()
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
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-c.closed:
				return
			case <-commits:
				break wait
			case <-tick.C:
				if !c.auth.live(s) {
					return
				}
				if time.Since(idle) > keepAlive {
					idle = time.Now()
					if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
						return
					}
					flusher.Flush()
				}
				if !stored || time.Since(rendered) >= c.o.Refresh || seen.Changed(st.Version()) {
					break wait
				}
			}
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
