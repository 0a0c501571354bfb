package console

import (
	"net/http"
	"time"

	"toolhost/internal/sysfile"
)

// Health describes the running server for the health page.
type Health struct {
	Version   string
	Started   time.Time
	Workdir   string
	Profile   string
	StateDir  string
	Sandbox   string // the sandbox status line
	Embedder  string
	Listeners []string
	// Sessions counts the live HTTP sessions against their bounds ("" without any).
	Sessions string
	// State is the state directory by part (the database, the audit log, ...), largest
	// concern first as the wiring orders them; nil when it cannot be read.
	State []StatePart
}

// StatePart is one part of the state directory and what it takes on disk.
type StatePart struct {
	Name   string
	Bytes  int64
	Detail string
}

func (c *Console) healthPage(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Health == nil {
		c.render(w, r, http.StatusOK, "health", s, map[string]any{"Missing": true})
		return
	}
	h := c.o.Health(r.Context())
	data := map[string]any{"H": h, "Uptime": c.o.Now().Sub(h.Started)}
	if h.State != nil {
		var total int64
		for _, p := range h.State {
			total += p.Bytes
		}
		data["StateSize"] = total
	} else if h.StateDir != "" {
		size, err := sysfile.TreeSize(r.Context(), h.StateDir)
		if err != nil {
			c.o.Logger.Warn("console state dir size", "err", err)
		}
		data["StateSize"] = size
	}
	c.render(w, r, http.StatusOK, "health", s, data)
}
