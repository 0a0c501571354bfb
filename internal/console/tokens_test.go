package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"toolhost/authz"
	"toolhost/store/storetest"
)

// storeTokens is the tools page over a real token table: the part of internal/app's Tools
// that the token form reaches (app.UpdateToken parses rates with the engine; here "default"
// is the only rate word). Switches are recorded in switched, when set.
type storeTokens struct {
	ts       *authz.Tokens
	switched *[]string
}

func (s storeTokens) Catalog() Catalog {
	cat := Catalog{Profile: "full", ProfileFrom: "flag --profile", Config: "/home/user/.config/toolhost/config.toml",
		Profiles: []ProfileInfo{{Name: "full", Summary: "every tool and operation"}, {Name: "read-only", Summary: "read-only operations"}}}
	for _, t := range authz.Tiers {
		cat.Tiers = append(cat.Tiers, string(t))
	}
	list, _ := s.ts.List(context.Background())
	for _, t := range list {
		cat.Tokens = append(cat.Tokens, TokenInfo{Name: t.Name, Tier: string(t.Tier), Rate: t.Rate, Created: t.Created})
	}
	return cat
}

func (s storeTokens) SetEnabled(_ context.Context, tool, op string, on bool) error {
	if s.switched == nil {
		return errors.New("no switches here")
	}
	*s.switched = append(*s.switched, fmt.Sprintf("%s.%s=%v", tool, op, on))
	return nil
}

func (s storeTokens) UpdateToken(ctx context.Context, name, tier, rate, by string) error {
	t := authz.Tier(tier)
	if rate == "default" {
		rate = ""
	}
	_, _, err := s.ts.Update(ctx, name, authz.TokenUpdate{Tier: &t, Rate: &rate}, by)
	return err
}

// TestTokenForm: the tools page changes a token's tier and rate for the signed-in operator,
// and every way around the console's rules leaves the token as it was.
func TestTokenForm(t *testing.T) {
	st := storetest.Open(t)
	ts := authz.NewTokens(st)
	secret, _, err := ts.Create(context.Background(), "ci-bot", authz.TierViewOnly, "")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(o *Options) { o.Tools = storeTokens{ts: ts} })
	user := f.client(t)
	csrf := f.signIn(t, user)
	if code, body := f.get(t, user, "/tools"); code != http.StatusOK || !strings.Contains(body, `<form method="post" action="/tokens"`) ||
		!strings.Contains(body, `<option value="view_only" selected>`) {
		t.Fatalf("tools page: %d, no token form with the current tier selected:\n%s", code, body)
	}
	raise := url.Values{"csrf": {csrf}, "name": {"ci-bot"}, "tier": {"admin"}, "rate": {"5/min"}}
	stranger := f.client(t)
	unchanged := authz.Principal{Name: "ci-bot", Tier: authz.TierViewOnly}
	cases := []struct {
		name string
		do   func() (int, string)
		want int
	}{
		{"no cookie", func() (int, string) { return f.post(t, stranger, "/tokens", raise, nil) }, http.StatusUnauthorized},
		{"missing CSRF", func() (int, string) {
			return f.post(t, user, "/tokens", url.Values{"name": {"ci-bot"}, "tier": {"admin"}}, nil)
		}, http.StatusForbidden},
		{"wrong origin", func() (int, string) {
			return f.post(t, user, "/tokens", raise, func(r *http.Request) { r.Header.Set("Origin", "http://localhost.evil.example") })
		}, http.StatusForbidden},
		{"no origin", func() (int, string) {
			return f.post(t, user, "/tokens", raise, func(r *http.Request) { r.Header.Del("Origin") })
		}, http.StatusForbidden},
		{"descendant process with the user's cookie", func() (int, string) {
			f.peer.Store(authz.ErrDescendant)
			defer f.peer.Store(errors.New(""))
			desc := &http.Client{Jar: user.Jar, Transport: &http.Transport{}, CheckRedirect: user.CheckRedirect}
			return f.post(t, desc, "/tokens", raise, nil)
		}, http.StatusForbidden},
		{"unknown tier", func() (int, string) {
			return f.post(t, user, "/tokens", url.Values{"csrf": {csrf}, "name": {"ci-bot"}, "tier": {"root"}}, nil)
		}, http.StatusBadRequest},
		{"no tier", func() (int, string) {
			return f.post(t, user, "/tokens", url.Values{"csrf": {csrf}, "name": {"ci-bot"}}, nil)
		}, http.StatusBadRequest},
		{"unknown token", func() (int, string) {
			return f.post(t, user, "/tokens", url.Values{"csrf": {csrf}, "name": {"default"}, "tier": {"view_only"}}, nil)
		}, http.StatusBadRequest},
		{"GET", func() (int, string) { return f.get(t, user, "/tokens") }, http.StatusMethodNotAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, body := tc.do(); got != tc.want {
				t.Errorf("status = %d, want %d\n%s", got, tc.want, body)
			}
			if p, err := ts.Resolve(context.Background(), secret); err != nil || p != unchanged {
				t.Errorf("token after the attempt = %+v, %v; want %+v", p, err, unchanged)
			}
		})
	}
	code, _ := f.post(t, user, "/tokens", raise, nil)
	if code != http.StatusSeeOther {
		t.Fatalf("change with every rule met: %d", code)
	}
	if p, err := ts.Resolve(context.Background(), secret); err != nil || p != (authz.Principal{Name: "ci-bot", Tier: authz.TierAdmin, Rate: "5/min"}) {
		t.Errorf("token after the change = %+v, %v", p, err)
	}
	// An empty rate is the default.
	f.post(t, user, "/tokens", url.Values{"csrf": {csrf}, "name": {"ci-bot"}, "tier": {"execute_basic"}, "rate": {" "}}, nil)
	if p, _ := ts.Resolve(context.Background(), secret); p != (authz.Principal{Name: "ci-bot", Tier: authz.TierExecuteBasic}) {
		t.Errorf("token after clearing the rate = %+v", p)
	}
	b, err := os.ReadFile(filepath.Join(st.Dir(), "audit.jsonl"))
	if err != nil || strings.Count(string(b), `"event":"token_updated"`) != 2 || !strings.Contains(string(b), `"by":"console`) {
		t.Errorf("audit log: %v\n%s", err, b)
	}
}

// TestToolSwitchForm: one form per tool carries the CSRF token once; each button names the
// operation and the state it switches to, and anything else is refused with nothing switched.
func TestToolSwitchForm(t *testing.T) {
	var switched []string
	f := newFixture(t, func(o *Options) { o.Tools = storeTokens{ts: authz.NewTokens(storetest.Open(t)), switched: &switched} })
	user := f.client(t)
	csrf := f.signIn(t, user)
	cases := []struct {
		name, tool, sw string
		want           int
	}{
		{"off", "file_operations", "delete_file=0", http.StatusSeeOther},
		{"on", "file_operations", "delete_file=1", http.StatusSeeOther},
		{"no state", "file_operations", "delete_file", http.StatusBadRequest},
		{"another state", "file_operations", "delete_file=yes", http.StatusBadRequest},
		{"no operation", "file_operations", "=0", http.StatusBadRequest},
		{"no tool", "", "delete_file=0", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, body := f.post(t, user, "/tools", url.Values{"csrf": {csrf}, "tool": {tc.tool}, "switch": {tc.sw}}, nil); got != tc.want {
				t.Errorf("POST /tools switch=%q = %d, want %d\n%s", tc.sw, got, tc.want, body)
			}
		})
	}
	if want := []string{"file_operations.delete_file=false", "file_operations.delete_file=true"}; !slices.Equal(switched, want) {
		t.Errorf("switched %v, want %v", switched, want)
	}
}

// TestToolsPageProfile: the page says which profile is active and where it was chosen, and
// that it is chosen at each process's start, not here: it offers no way to choose one, and a
// post that tries is refused with nothing switched.
func TestToolsPageProfile(t *testing.T) {
	var switched []string
	f := newFixture(t, func(o *Options) { o.Tools = storeTokens{ts: authz.NewTokens(storetest.Open(t)), switched: &switched} })
	user := f.client(t)
	csrf := f.signIn(t, user)
	code, page := f.get(t, user, "/tools")
	if code != http.StatusOK {
		t.Fatalf("tools page: %d\n%s", code, page)
	}
	for _, want := range []string{
		"Active profile <strong>full</strong> (from flag --profile)",
		"The profile is chosen where each toolhost process starts, not on this page",
		"<code>/home/user/.config/toolhost/config.toml</code>",
		"narrow the active profile and never widen it",
		"<strong>full</strong> (active)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("tools page lacks %q", want)
		}
	}
	if strings.Contains(page, `name="profile"`) {
		t.Error("the tools page offers a profile control")
	}
	if got, body := f.post(t, user, "/tools", url.Values{"csrf": {csrf}, "profile": {"read-only"}}, nil); got != http.StatusBadRequest {
		t.Errorf("POST /tools profile=read-only = %d, want 400\n%s", got, body)
	}
	if len(switched) != 0 {
		t.Errorf("a profile post switched %v", switched)
	}
}
