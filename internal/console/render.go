package console

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// pages holds one template set per page: the shared layout plus the page's own file, whose
// named fragments the live event stream renders alone.
type pages struct {
	byName map[string]*template.Template
}

// nav is the console's menu, in order: page name, path and title.
var nav = []struct{ Name, Path, Title string }{
	{"approvals", "/", "Approvals"},
	{"activity", "/activity", "Activity"},
	{"tools", "/tools", "Tools"},
	{"terminals", "/terminals", "Terminals"},
	{"plans", "/plans", "Plans"},
	{"memory", "/memory", "Memory"},
	{"health", "/health", "Health"},
}

var funcs = template.FuncMap{
	"clock": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.Local().Format("2006-01-02 15:04:05")
	},
	"dur":   humanDuration,
	"bytes": humanBytes,
	"pct": func(f float64) string {
		return fmt.Sprintf("%.0f%%", f*100)
	},
	"join": strings.Join,
}

// parsePages parses every page; static gives the addresses of the static files.
func parsePages(static *staticFiles) (*pages, error) {
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).Funcs(template.FuncMap{"static": static.url}).ParseFS(files, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("console: template %s: %w", n, err)
		}
		p.byName[base] = t
	}
	return p, nil
}

// render writes a whole page: the layout around the page's "content" template.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, page string, s *session, data map[string]any) {
	data["Page"] = page
	data["Nav"] = nav
	data["SignedIn"] = s != nil
	if s != nil {
		data["CSRF"] = s.csrf
	}
	var buf bytes.Buffer
	if err := c.pages.byName[page].ExecuteTemplate(&buf, "layout", data); err != nil {
		c.o.Logger.Error("console render", "page", page, "err", err)
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// fragment renders one named template of a page, for the live event stream.
func (c *Console) fragment(page, name string, data map[string]any) (string, error) {
	var buf bytes.Buffer
	err := c.pages.byName[page].ExecuteTemplate(&buf, name, data)
	return buf.String(), err
}

// fail shows an operator-facing error page; cause goes to the log.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, status int, msg string, cause error) {
	if cause != nil {
		c.o.Logger.Warn("console", "path", r.URL.Path, "msg", msg, "err", cause)
	}
	c.render(w, r, status, "error", s, map[string]any{"Message": msg})
}

func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
}
