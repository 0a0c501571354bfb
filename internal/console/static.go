package console

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
)

// staticFiles serves the console's stylesheet and script. Pages link each as
// /static/NAME?v=VERSION, VERSION a hash of its content, and a request that names the current
// version may be kept by the browser for a year without asking again (immutable): a page load
// then fetches only its document, where it used to fetch both files again each time, each
// request waiting for the server (a new connection also for its peer check). A new build
// changes a file's version and so its URL. Any other request (an old version, none) is
// answered with the current file, revalidated each time by its ETag.
type staticFiles struct {
	files    http.Handler
	versions map[string]string // file name -> version
}

// yearSeconds is how long a versioned file may be kept.
const yearSeconds = 365 * 24 * 60 * 60

func newStatic() (*staticFiles, error) {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		return nil, fmt.Errorf("console: static files: %w", err)
	}
	s := &staticFiles{files: http.StripPrefix("/static/", http.FileServerFS(sub)), versions: map[string]string{}}
	err = fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.versions[name] = hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("console: static files: %w", err)
	}
	return s, nil
}

// url is the address pages link a static file by (the template function "static").
func (s *staticFiles) url(name string) (string, error) {
	v, ok := s.versions[name]
	if !ok {
		return "", fmt.Errorf("console: no static file %q", name)
	}
	return "/static/" + name + "?v=" + v, nil
}

func (s *staticFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/static/")
	v, ok := s.versions[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("ETag", `"`+v+`"`)
	if r.URL.Query().Get("v") == v {
		h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d, immutable", yearSeconds))
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	s.files.ServeHTTP(w, r)
}
