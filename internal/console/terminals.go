package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"toolhost/internal/terminal"
)

// terminalView is one terminal with its rendered screen (sessions) or output tail (commands).
type terminalView struct {
	terminal.Info
	Screen string
}

// historyBytes is how much of a terminal's log the page shows under its screen.
const historyBytes = 4 << 10

func (c *Console) terminalsData(ctx context.Context, r *http.Request, s *session) (map[string]any, error) {
	data := map[string]any{"CSRF": s.csrf}
	m := c.o.Terminals
	if m == nil {
		data["Missing"] = true
		return data, nil
	}
	type group struct {
		Conversation string
		Terminals    []terminalView
	}
	var groups []group
	for _, conv := range m.Conversations() {
		infos, err := m.List(ctx, conv)
		if err != nil {
			return nil, err
		}
		g := group{Conversation: conv}
		for _, in := range infos {
			v := terminalView{Info: in}
			if in.Kind == "session" && in.State == "running" {
				v.Screen, _ = m.Screen(conv, in.ID)
			} else if h, err := m.History(conv, in.ID, -historyBytes, historyBytes); err == nil {
				v.Screen = h.Text
			}
			g.Terminals = append(g.Terminals, v)
		}
		groups = append(groups, g)
	}
	data["Groups"] = groups
	return data, nil
}

func (c *Console) terminalsPage(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := c.terminalsData(r.Context(), r, s)
	if err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot list the terminals.", err)
		return
	}
	c.render(w, r, http.StatusOK, "terminals", s, data)
}

// closeTerminal answers POST /terminals/close: conversation=ID id=ID.
func (c *Console) closeTerminal(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Terminals == nil {
		c.fail(w, r, s, http.StatusNotFound, "No terminals in this server.", nil)
		return
	}
	conv, id := r.PostFormValue("conversation"), r.PostFormValue("id")
	if err := c.o.Terminals.Close(r.Context(), conv, id); err != nil {
		c.fail(w, r, s, http.StatusNotFound, "Not closed: "+err.Error(), err)
		return
	}
	c.o.Logger.Info("console closed terminal", "conversation", conv, "id", id)
	http.Redirect(w, r, "/terminals", http.StatusSeeOther)
}

// historyPage is how much of a terminal's log one history page shows.
const historyPage = 32 << 10

// terminalHistory pages a terminal's retained log (GET /terminals/history?conversation=&id=&offset=),
// the newest page first.
func (c *Console) terminalHistory(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Terminals == nil {
		c.fail(w, r, s, http.StatusNotFound, "No terminals in this server.", nil)
		return
	}
	conv, id := r.FormValue("conversation"), r.FormValue("id")
	offset := int64(-historyPage)
	if v := r.FormValue("offset"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			c.fail(w, r, s, http.StatusBadRequest, "offset must be a number of bytes", nil)
			return
		}
		offset = n
	}
	h, err := c.o.Terminals.History(conv, id, offset, historyPage)
	if err != nil {
		c.fail(w, r, s, http.StatusNotFound, "No such terminal: "+err.Error(), err)
		return
	}
	link := func(off int64) string {
		return "/terminals/history?" + url.Values{"conversation": {conv}, "id": {id}, "offset": {strconv.FormatInt(off, 10)}}.Encode()
	}
	data := map[string]any{"Conversation": conv, "ID": id, "H": h,
		"RecordingURL": "/terminals/recording?" + url.Values{"conversation": {conv}, "id": {id}}.Encode()}
	if h.Offset > h.Start {
		data["OlderURL"] = link(max(h.Offset-historyPage, h.Start))
	}
	if end := h.Offset + int64(len(h.Text)); end < h.End {
		data["NewerURL"] = link(end)
	}
	c.render(w, r, http.StatusOK, "history", s, data)
}

// terminalRecording answers GET /terminals/recording?conversation=&id= with the session's
// recording as an asciicast v2 download (terminal.ExportRecording): what asciinema play
// replays.
func (c *Console) terminalRecording(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Terminals == nil {
		c.fail(w, r, s, http.StatusNotFound, "No terminals in this server.", nil)
		return
	}
	conv, id := r.FormValue("conversation"), r.FormValue("id")
	var buf bytes.Buffer
	info, err := c.o.Terminals.ExportRecording(&buf, conv, id)
	if errors.Is(err, terminal.ErrNoRecording) {
		c.fail(w, r, s, http.StatusNotFound, "No recording of that session: "+err.Error(), nil)
		return
	}
	if err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot export the recording.", err)
		return
	}
	name := fmt.Sprintf("toolhost-%s-%s-%s.cast", safeName(conv), safeName(id), info.Started.UTC().Format("20060102T150405Z"))
	w.Header().Set("Content-Type", "application/x-asciicast")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}

// safeName keeps letters, digits, '.', '_' and '-' of s for a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, s)
}
