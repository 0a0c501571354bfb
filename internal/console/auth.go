package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// CookieName is the console's session cookie.
const CookieName = "toolhost_console"

// SessionTTL is how long a console session lasts after sign-in.
const SessionTTL = 12 * time.Hour

// SignInTTL is how long a sign-in link stays usable if nobody opens it.
const SignInTTL = 24 * time.Hour

// maxSessions bounds the sessions kept in memory; the oldest is dropped first.
const maxSessions = 64

// auth keeps the one-time sign-in links and the signed-in sessions, in memory only: a
// restarted server prints a new link and every browser signs in again.
type auth struct {
	credential func() (string, error)
	now        func() time.Time

	mu       sync.Mutex
	links    map[string]time.Time // sha256 of an unused sign-in token -> expiry
	sessions map[string]*session  // session id -> session
}

// session is one signed-in browser.
type session struct {
	id      string
	csrf    string
	expires time.Time
}

func newAuth(credential func() (string, error), now func() time.Time) *auth {
	return &auth{credential: credential, now: now, links: map[string]time.Time{}, sessions: map[string]*session{}}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// SignInURL mints a one-time sign-in link under base ("http://127.0.0.1:7077"). Only its
// digest is kept, and it works once.
func (c *Console) SignInURL(base string) string {
	tok := randomHex(24)
	a := c.auth
	a.mu.Lock()
	now := a.now()
	for k, exp := range a.links {
		if now.After(exp) {
			delete(a.links, k)
		}
	}
	a.links[digest(tok)] = now.Add(SignInTTL)
	a.mu.Unlock()
	return strings.TrimSuffix(base, "/") + "/signin?token=" + tok
}

// redeem spends a sign-in token; false when it is unknown, used or expired.
func (a *auth) redeem(tok string) bool {
	if tok == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	k := digest(tok)
	exp, ok := a.links[k]
	delete(a.links, k)
	return ok && !a.now().After(exp)
}

// mac binds a session id to the current operator credential.
func (a *auth) mac(id string) (string, error) {
	cred, err := a.credential()
	if err != nil {
		return "", err
	}
	if cred == "" {
		return "", errors.New("no operator credential")
	}
	m := hmac.New(sha256.New, []byte(cred))
	m.Write([]byte("toolhost console session\x00" + id))
	return hex.EncodeToString(m.Sum(nil)), nil
}

// start creates a session and sets its cookie.
func (a *auth) start(w http.ResponseWriter) error {
	s := &session{id: randomHex(24), csrf: randomHex(24), expires: a.now().Add(SessionTTL)}
	sig, err := a.mac(s.id)
	if err != nil {
		return err
	}
	a.mu.Lock()
	for id, old := range a.sessions {
		if a.now().After(old.expires) {
			delete(a.sessions, id)
		}
	}
	for len(a.sessions) >= maxSessions {
		var oldest *session
		for _, o := range a.sessions {
			if oldest == nil || o.expires.Before(oldest.expires) {
				oldest = o
			}
		}
		delete(a.sessions, oldest.id)
	}
	a.sessions[s.id] = s
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.id + "." + sig, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: int(SessionTTL / time.Second)})
	return nil
}

// session returns the request's live session, or nil: no cookie, an unknown or expired
// session, or a signature made with another credential.
func (a *auth) session(r *http.Request) *session {
	ck, err := r.Cookie(CookieName)
	if err != nil {
		return nil
	}
	id, sig, ok := strings.Cut(ck.Value, ".")
	if !ok {
		return nil
	}
	want, err := a.mac(id)
	if err != nil || !hmac.Equal([]byte(sig), []byte(want)) {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil || a.now().After(s.expires) {
		return nil
	}
	return s
}

// live reports whether s is still a session (not signed out, not expired) without reading
// the credential: the cheap check of an open event stream between renders.
func (a *auth) live(s *session) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[s.id] == s && !a.now().After(s.expires)
}

// end forgets a session.
func (a *auth) end(s *session) {
	a.mu.Lock()
	delete(a.sessions, s.id)
	a.mu.Unlock()
}

// validCSRF checks the form field csrf (or the X-CSRF-Token header of a script's request)
// against the session's token. A multipart form is read whole into memory: its body is
// bounded already (at most maxBody bytes).
func (a *auth) validCSRF(r *http.Request, s *session, maxBody int64) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			if err := r.ParseMultipartForm(maxBody); err != nil {
				return false
			}
		}
		got = r.PostFormValue("csrf")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// checkOrigin refuses cross-site requests: a change must carry an Origin naming this very
// console (scheme, host and port), and no request may come from another site's page. Other
// loopback origins are refused too: a page of another local web server is another site.
func checkOrigin(r *http.Request) error {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return errors.New("cross-site request refused")
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			return nil
		}
		return errors.New("a change needs the console's own Origin header")
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || !strings.EqualFold(u.Host, r.Host) {
		return errors.New("origin not allowed: " + origin)
	}
	return nil
}

// signInPage spends a sign-in link (?token=) and starts a session, or shows the form that
// accepts the operator credential.
func (c *Console) signInPage(w http.ResponseWriter, r *http.Request, _ *session) {
	tok := r.URL.Query().Get("token")
	if tok == "" {
		c.render(w, r, http.StatusOK, "signin", nil, map[string]any{})
		return
	}
	if !c.auth.redeem(tok) {
		c.o.Logger.Warn("console sign-in link refused (unknown, used or expired)", "remote", r.RemoteAddr)
		c.render(w, r, http.StatusForbidden, "signin", nil, map[string]any{
			"Error": "This sign-in link was already used or has expired. Sign in with the operator credential, or restart toolhost serve for a new link."})
		return
	}
	if err := c.auth.start(w); err != nil {
		c.o.Logger.Error("console session", "err", err)
		http.Error(w, "cannot start a session: "+err.Error(), http.StatusInternalServerError)
		return
	}
	c.o.Logger.Info("console signed in", "remote", r.RemoteAddr, "by", "link")
	// Away from the address bar and history: the token is spent, the page should not show it.
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// signInWithCredential starts a session for the operator credential typed into the form.
func (c *Console) signInWithCredential(w http.ResponseWriter, r *http.Request, _ *session) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	got := strings.TrimSpace(r.PostFormValue("credential"))
	want, err := c.o.Credential()
	if err != nil || want == "" || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		c.o.Logger.Warn("console sign-in refused (wrong credential)", "remote", r.RemoteAddr)
		c.render(w, r, http.StatusForbidden, "signin", nil, map[string]any{"Error": "That is not the operator credential."})
		return
	}
	if err := c.auth.start(w); err != nil {
		http.Error(w, "cannot start a session: "+err.Error(), http.StatusInternalServerError)
		return
	}
	c.o.Logger.Info("console signed in", "remote", r.RemoteAddr, "by", "credential")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (c *Console) signOut(w http.ResponseWriter, r *http.Request, s *session) {
	c.auth.end(s)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}
