package console

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
)

// typingFixture is a console over a real terminal engine whose command rules deny `touch`,
// with one running session "s1" in conversation "c".
type typingFixture struct {
	*fixture
	m     *terminal.Manager
	typed *terminal.UserInputs
	dir   string
}

func newTypingFixture(t *testing.T) *typingFixture { return newTypingFixtureB(t) }

func newTypingFixtureB(t testing.TB) *typingFixture {
	t.Helper()
	dir := t.TempDir()
	g, err := gate.New(gate.Config{Mode: sandbox.ModeOff, Workdir: dir, Rules: []string{"deny touch*"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	m, err := terminal.NewManager(terminal.Config{Gate: g, CloseGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		m.Shutdown(ctx)
	})
	typed := terminal.NewUserInputs()
	f := newFixture(t, func(o *Options) { o.Terminals, o.Typed = m, typed })
	if _, err := m.Create(context.Background(), "c", terminal.SessionSpec{Name: "s1", Cwd: dir}); err != nil {
		t.Fatal(err)
	}
	return &typingFixture{fixture: f, m: m, typed: typed, dir: dir}
}

// run has the model type a line and waits until the output matches re.
func (tf *typingFixture) run(t *testing.T, line, re string) {
	t.Helper()
	out, err := tf.m.Send(context.Background(), "c", "s1", terminal.Input{Text: line,
		Wait: terminal.OutputQuery{WaitMS: 20000, WaitFor: re}})
	if err != nil || !out.Matched {
		t.Fatalf("the model's %q: %v, matched %v, output %q", line, err, out.Matched, out.Text)
	}
}

// modelReads is the model's own read of the session (its cursor) until it holds want.
func (tf *typingFixture) modelReads(t *testing.T, want string) string {
	t.Helper()
	return tf.modelReadsAfter(t, "", want)
}

// modelReadsAfter is modelReads for a model that has already read seen.
func (tf *typingFixture) modelReadsAfter(t *testing.T, seen, want string) string {
	t.Helper()
	var all strings.Builder
	all.WriteString(seen)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		out, err := tf.m.Output(context.Background(), "c", "s1", terminal.OutputQuery{WaitMS: 300})
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(out.Text)
		if strings.Contains(all.String(), want) {
			return all.String()
		}
	}
	t.Fatalf("the model's reads never showed %q; got %q", want, all.String())
	return ""
}

// typeKeys posts keys as the Type page's script does.
func (tf *typingFixture) typeKeys(t *testing.T, cl *http.Client, csrf, id, keys string) (int, string) {
	t.Helper()
	return tf.post(t, cl, "/terminals/input", url.Values{"conversation": {"c"}, "id": {id}, "keys": {keys}}, func(r *http.Request) {
		if csrf != "" {
			r.Header.Set("X-CSRF-Token", csrf)
		}
	})
}

// auditLines are the terminal_input records of the audit log.
func (tf *typingFixture) auditLines(t *testing.T) []typedAudit {
	t.Helper()
	fh, err := os.Open(filepath.Join(tf.state, "audit.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []typedAudit
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var rec typedAudit
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if rec.Event == "terminal_input" {
			out = append(out, rec)
		}
	}
	return out
}

// TestTypeIntoTerminal: the user's keys, posted over the console's signed-in connection with
// its CSRF token, reach the program in the session (cat), run lines the command rules deny to
// a model, are audited, and are named as the user's on the model's next read.
func TestTypeIntoTerminal(t *testing.T) {
	tf := newTypingFixture(t)
	cl := tf.client(t)
	csrf := tf.signIn(t, cl)

	code, body := tf.get(t, cl, "/terminals/type?conversation=c&id=s1")
	if code != http.StatusOK || !strings.Contains(body, `id="typing"`) || !strings.Contains(body, `data-csrf="`+csrf+`"`) || !strings.Contains(body, "terminal.js") {
		t.Fatalf("Type page: %d\n%s", code, body)
	}
	if _, body := tf.get(t, cl, "/terminals"); !strings.Contains(body, `/terminals/type?conversation=c&amp;id=s1`) {
		t.Errorf("the terminals page does not link the Type page:\n%s", body)
	}

	// Send reads at once what is already there (part of the echo, or all of it): the
	// model's reads go on from its answer.
	sent, err := tf.m.Send(context.Background(), "c", "s1", terminal.Input{Text: "cat"})
	if err != nil {
		t.Fatal(err)
	}
	tf.modelReadsAfter(t, sent.Text, "cat\n")
	for _, k := range []string{"h", "e", "l", "l", "o", "\r"} {
		if code, body := tf.typeKeys(t, cl, csrf, "s1", k); code != http.StatusNoContent {
			t.Fatalf("typing %q: %d %s", k, code, body)
		}
	}
	text := tf.modelReads(t, "hello\nhello\n")
	if strings.Contains(text, "user typed") {
		t.Errorf("the engine's log carries the note itself: %q", text)
	}
	note := tf.typed.Take("c", "s1")
	if !strings.Contains(note, "⟦user typed (console ") || !strings.HasSuffix(note, "): hello⏎⟧") {
		t.Errorf("the model's note = %q, want the keys named as the user's", note)
	}
	var v screenView
	code, body = tf.get(t, cl, "/terminals/screen?conversation=c&id=s1")
	if code != http.StatusOK || json.Unmarshal([]byte(body), &v) != nil || v.State != "running" || !strings.Contains(v.Screen, "hello\nhello") {
		t.Errorf("GET /terminals/screen = %d %s", code, body)
	}

	// ctrl-d ends cat; the user's line runs although the rules deny it to a model.
	tf.typeKeys(t, cl, csrf, "s1", "\x04")
	tf.modelReads(t, "# ")
	if code, body := tf.typeKeys(t, cl, csrf, "s1", "touch by-user\r"); code != http.StatusNoContent {
		t.Fatalf("typing a line: %d %s", code, body)
	}
	eventually(t, "the user's line ran", func() bool { _, err := os.Stat(filepath.Join(tf.dir, "by-user")); return err == nil })
	if _, err := tf.m.Send(context.Background(), "c", "s1", terminal.Input{Text: "touch by-model"}); err == nil {
		t.Error("the model's denied line was typed")
	}

	recs := tf.auditLines(t)
	if len(recs) != 8 {
		t.Fatalf("%d terminal_input records, want one per batch (8): %+v", len(recs), recs)
	}
	first, last := recs[0], recs[7]
	if first.Outcome != outcomeTyped || first.Conversation != "c" || first.Session != "s1" || first.Via != "console" ||
		first.Keys != "h" || first.Bytes != 1 || !strings.HasPrefix(first.By, "console") || first.PID != os.Getpid() {
		t.Errorf("first record = %+v", first)
	}
	if last.Keys != "touch by-user⏎" {
		t.Errorf("last record's keys = %q", last.Keys)
	}
}

// TestTypeRefusals: keys without the session's CSRF token, with another session's token, from
// a browser that is not signed in or has signed out, and for a session that has ended are
// refused, and each refusal is audited; a batch is bounded on both sides of MaxTypedBytes.
func TestTypeRefusals(t *testing.T) {
	tf := newTypingFixture(t)
	cl, other := tf.client(t), tf.client(t)
	csrf, otherCSRF := tf.signIn(t, cl), tf.signIn(t, other)
	tf.run(t, "echo ready", `ready\r?\n`)

	out := tf.client(t)
	outCSRF := tf.signIn(t, out)
	if code, _ := tf.post(t, out, "/signout", url.Values{"csrf": {outCSRF}}, nil); code != http.StatusSeeOther {
		t.Fatalf("sign out: %d", code)
	}
	tests := []struct {
		name   string
		cl     *http.Client
		csrf   string
		id     string
		keys   string
		status int
		reason string
	}{
		{"no CSRF token", cl, "", "s1", "x", http.StatusForbidden, "CSRF"},
		{"another session's CSRF token", cl, otherCSRF, "s1", "x", http.StatusForbidden, "CSRF"},
		{"not signed in", tf.client(t), csrf, "s1", "x", http.StatusUnauthorized, "not signed in"},
		{"signed out", out, outCSRF, "s1", "x", http.StatusUnauthorized, "not signed in"},
		{"no such session", cl, csrf, "s9", "x", http.StatusNotFound, "no running session"},
		{"no keys", cl, csrf, "s1", "", http.StatusBadRequest, "no keys"},
		{"just over the bound", cl, csrf, "s1", strings.Repeat("x", MaxTypedBytes+1), http.StatusRequestEntityTooLarge, "at most"},
		{"far over the bound", cl, csrf, "s1", strings.Repeat("x", 3*MaxTypedBytes), http.StatusRequestEntityTooLarge, "at most"},
		{"just under the bound", cl, csrf, "s1", strings.Repeat("y", MaxTypedBytes-1) + "\x03", http.StatusNoContent, ""},
		{"at the bound", cl, csrf, "s1", strings.Repeat("z", MaxTypedBytes-1) + "\x03", http.StatusNoContent, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tf.auditLines(t))
			code, body := tf.typeKeys(t, tt.cl, tt.csrf, tt.id, tt.keys)
			if code != tt.status {
				t.Fatalf("status %d (%s), want %d", code, body, tt.status)
			}
			recs := tf.auditLines(t)
			if len(recs) != before+1 {
				t.Fatalf("%d new audit records, want 1", len(recs)-before)
			}
			rec := recs[len(recs)-1]
			if tt.reason == "" {
				if rec.Outcome != outcomeTyped {
					t.Errorf("record = %+v, want typed", rec)
				}
				return
			}
			if rec.Outcome != outcomeRefused || !strings.Contains(rec.Reason, tt.reason) || rec.Keys != "" {
				t.Errorf("record = %+v, want refused for %q without the keys", rec, tt.reason)
			}
		})
	}
	// The session closed: refused, audited.
	if err := tf.m.Close(context.Background(), "c", "s1"); err != nil {
		t.Fatal(err)
	}
	if code, body := tf.typeKeys(t, cl, csrf, "s1", "x"); code != http.StatusNotFound || !strings.Contains(body, "no running session") {
		t.Errorf("typing into a closed session: %d %s", code, body)
	}
	if code, _ := tf.get(t, cl, "/terminals/type?conversation=c&id=s1"); code != http.StatusNotFound {
		t.Errorf("Type page of a closed session: %d, want 404", code)
	}
}

// TestTypeHidden: keys typed while the terminal hides them (read -s) reach the program, and
// neither the audit log nor the model's note holds them: only their count.
func TestTypeHidden(t *testing.T) {
	tf := newTypingFixture(t)
	cl := tf.client(t)
	csrf := tf.signIn(t, cl)
	tf.run(t, `read -s -p 'pw: ' pw; echo; echo "got ${#pw}"`, `pw: $`)
	if code, body := tf.typeKeys(t, cl, csrf, "s1", "hunter2\r"); code != http.StatusNoContent {
		t.Fatalf("typing: %d %s", code, body)
	}
	tf.modelReads(t, "got 7")
	b, _ := os.ReadFile(filepath.Join(tf.state, "audit.jsonl"))
	if strings.Contains(string(b), "hunter2") {
		t.Errorf("the audit log holds the hidden keys:\n%s", b)
	}
	recs := tf.auditLines(t)
	if len(recs) != 1 || !recs[0].Hidden || recs[0].Bytes != 8 || recs[0].Keys != "" {
		t.Errorf("records = %+v, want one hidden record of 8 bytes", recs)
	}
	if note := tf.typed.Take("c", "s1"); strings.Contains(note, "hunter2") || !strings.Contains(note, "8 characters the terminal did not echo") {
		t.Errorf("the model's note = %q", note)
	}
}

// TestTerminalAPI: the operator API types and shows the screen for the operator token; any
// other bearer (an MCP client token, view_only or not) is refused and audited.
func TestTerminalAPI(t *testing.T) {
	tf := newTypingFixture(t)
	tf.run(t, "echo ready", `ready\r?\n`)
	principal := authz.Principal{Name: "ci-bot", Tier: authz.TierViewOnly}
	api := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// What internal/server's either-credential route gives a client token's request.
		tf.c.TerminalAPI().ServeHTTP(w, r.WithContext(authz.WithPrincipal(r.Context(), principal)))
	}))
	do := func(method, path, bearer, body string) (int, string) {
		req, _ := http.NewRequest(method, api+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		return resp.StatusCode, b.String()
	}
	op := tf.cred.Load().(string)
	if code, body := do("POST", "/api/terminals/input?conversation=c&id=s1", "client-secret", "echo no\r"); code != http.StatusForbidden || !strings.Contains(body, "ci-bot (tier view_only)") {
		t.Errorf("a view_only client token typing: %d %s", code, body)
	}
	if code, _ := do("GET", "/api/terminals/screen?conversation=c&id=s1", "client-secret", ""); code != http.StatusForbidden {
		t.Errorf("a client token reading the screen: %d", code)
	}
	if code, body := do("POST", "/api/terminals/input?conversation=c&id=s1&via=attach", op, "echo from-api\r"); code != http.StatusNoContent {
		t.Fatalf("the operator typing: %d %s", code, body)
	}
	tf.modelReads(t, "from-api\n")
	code, body := do("GET", "/api/terminals/screen?conversation=c&id=s1", op, "")
	var v screenView
	if code != http.StatusOK || json.Unmarshal([]byte(body), &v) != nil || !strings.Contains(v.Screen, "from-api") {
		t.Errorf("the operator's screen: %d %s", code, body)
	}
	if code, _ := do("POST", "/api/terminals/input?conversation=c&id=s1", op, strings.Repeat("x", MaxTypedBytes+1)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a batch over the bound: %d", code)
	}
	recs := tf.auditLines(t)
	if len(recs) != 3 || recs[0].Outcome != outcomeRefused || !strings.Contains(recs[0].By, "ci-bot") ||
		recs[1].Outcome != outcomeTyped || recs[1].Via != "attach" || recs[2].Outcome != outcomeRefused {
		t.Errorf("audit records = %+v, want refused (client token), typed (attach), refused (too large)", recs)
	}
}

// eventually polls cond for up to 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// httptestServer serves h on loopback and returns its base URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
