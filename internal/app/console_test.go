package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/config"
	"toolhost/internal/console"
	"toolhost/internal/engine"
)

// TestConsoleSwitches: a switch reaches a connected client's next tools/list and dispatch at
// once, is written to the managed file, and holds in the next server; the switches that
// cannot apply are refused with nothing written.
func TestConsoleSwitches(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	withPath := func(c *config.Config) { c.Path = cfgPath }
	a := testAppWith(t, withPath)
	cs := connect(t, a, nil, "2025-06-18")
	tools := a.ConsoleTools()
	ctx := context.Background()
	if err := tools.SetEnabled(ctx, "file_operations", "delete_file", false); err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "file_operations" })
	if i < 0 {
		t.Fatal("file_operations gone after switching one operation off")
	}
	schema, _ := json.Marshal(res.Tools[i].InputSchema)
	if strings.Contains(string(schema), `"delete_file"`) {
		t.Errorf("delete_file still in the schema: %s", schema)
	}
	work := a.Workdir
	os.WriteFile(filepath.Join(work, "keep.txt"), []byte("x"), 0o600)
	if text, isErr := callText(t, cs, "file_operations", map[string]any{"operation": "delete_file", "path": "keep.txt"}); !isErr {
		t.Errorf("delete_file after the switch: %s", text)
	}
	if _, err := os.Stat(filepath.Join(work, "keep.txt")); err != nil {
		t.Errorf("the file went: %v", err)
	}
	data, err := os.ReadFile(config.SwitchesPath(cfgPath))
	if err != nil || !strings.Contains(string(data), `"file_operations.delete_file"`) {
		t.Fatalf("managed file: %q, %v", data, err)
	}
	if again := testAppWith(t, withPath); again.Registry.Enabled("file_operations", "delete_file") {
		t.Error("a new server has delete_file on again")
	}
	if _, _, err := a.Tokens.Create(ctx, "ci-bot", authz.TierViewOnly, ""); err != nil {
		t.Fatal(err)
	}
	cat := tools.Catalog()
	if len(cat.Tokens) != 1 || cat.Tokens[0].Name != "ci-bot" || cat.Tokens[0].Tier != string(authz.TierViewOnly) {
		t.Errorf("catalog tokens = %+v, want ci-bot at %s", cat.Tokens, authz.TierViewOnly)
	}
	if len(cat.Tools) != len(a.Registry.Declared()) || cat.Profile != "full" || cat.File != config.SwitchesPath(cfgPath) {
		t.Errorf("catalog: %d tools, profile %q, file %q", len(cat.Tools), cat.Profile, cat.File)
	}
	for _, ti := range cat.Tools {
		for _, op := range ti.Operations {
			if ti.Name+"."+op.Name == "file_operations.delete_file" && op.Enabled {
				t.Error("the catalog shows delete_file on")
			}
			if ti.Name+"."+op.Name == "file_operations.read_file" && op.Tier != string(authz.Least(authz.CategorySafe)) {
				t.Errorf("read_file needs tier %q, want %q", op.Tier, authz.Least(authz.CategorySafe))
			}
		}
	}

	refusals := []struct {
		name, tool, op string
		on             bool
		edit           func(*config.Config)
		want           string
	}{
		{"unknown operation", "file_operations", "format_disk", false, withPath, "no operation"},
		{"unknown tool", "shell", "run", false, withPath, "no operation"},
		{"profile disables it", "file_operations", "create_file", true, func(c *config.Config) { c.Path = cfgPath; c.Profile = "read-only" }, "profile read-only"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			b := testAppWith(t, tc.edit)
			before, _ := os.ReadFile(config.SwitchesPath(cfgPath))
			err := b.ConsoleTools().SetEnabled(ctx, tc.tool, tc.op, tc.on)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("SetEnabled(%s.%s, %v) = %v, want an error with %q", tc.tool, tc.op, tc.on, err, tc.want)
			}
			if after, _ := os.ReadFile(config.SwitchesPath(cfgPath)); string(after) != string(before) {
				t.Errorf("the managed file changed on a refusal:\n%s", after)
			}
		})
	}
	if err := tools.SetEnabled(ctx, "file_operations", "delete_file", true); err != nil {
		t.Fatal(err)
	}
	if !a.Registry.Enabled("file_operations", "delete_file") {
		t.Error("delete_file still off after switching it on")
	}
}

// TestSwitchesReachOtherProcesses: every process on a configuration reads the console's
// managed file, not only the one whose console wrote it. A switch made through one app's
// console reaches another app's connected client at its next request, with
// notifications/tools/list_changed, in the fixed order; a file that no longer parses leaves
// the switches as they were, and a removed file switches everything back on.
func TestSwitchesReachOtherProcesses(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	withPath := func(c *config.Config) { c.Path = cfgPath }
	serve, editor := testAppWith(t, withPath), testAppWith(t, withPath)
	changed := make(chan struct{}, 16)
	cs := connect(t, editor, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}}, "2025-06-18")
	ctx := context.Background()
	all := toolList(t, cs)
	without := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == "think" })
	expect := func(step string, want []string, notified bool) {
		t.Helper()
		if got := toolList(t, cs); !slices.Equal(got, want) {
			t.Errorf("%s: tools/list = %v, want %v", step, got, want)
		}
		if !notified {
			return
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Errorf("%s: no notifications/tools/list_changed", step)
		}
	}
	if err := serve.ConsoleTools().SetEnabled(ctx, "think", "think", false); err != nil {
		t.Fatal(err)
	}
	expect("think switched off in the other process", without, true)
	if text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "x"}); !isErr {
		t.Errorf("a call of the switched-off tool: %s", text)
	}
	// Two writes within one tick of the file clock: the second is seen too.
	if err := serve.ConsoleTools().SetEnabled(ctx, "think", "think", true); err != nil {
		t.Fatal(err)
	}
	expect("think switched back on", all, true)
	if err := serve.ConsoleTools().SetEnabled(ctx, "think", "think", false); err != nil {
		t.Fatal(err)
	}
	expect("think off again", without, true)

	if err := os.WriteFile(config.SwitchesPath(cfgPath), []byte("disable = [\"think\"\nmystery = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	expect("a file that does not parse", without, false)
	if err := os.Remove(config.SwitchesPath(cfgPath)); err != nil {
		t.Fatal(err)
	}
	expect("the file removed", all, true)
	// The console of the first process reads the file before it changes it: it does not
	// write back the switch the file no longer has.
	if err := serve.ConsoleTools().SetEnabled(ctx, "file_operations", "delete_file", false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(config.SwitchesPath(cfgPath)); strings.Contains(string(b), `"think`) {
		t.Errorf("the console wrote back a switch removed from the file:\n%s", b)
	}
}

// toolList is the names of tools/list, in its order.
func toolList(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// BenchmarkRefreshSwitches is what each request of every process pays to notice a switch
// made elsewhere while nothing changed: one stat of the managed file.
func BenchmarkRefreshSwitches(b *testing.B) {
	cfgPath := filepath.Join(b.TempDir(), "config.toml")
	a := testAppWith(b, func(c *config.Config) { c.Path = cfgPath })
	if err := (config.Switches{Disable: []string{"think"}}).Write(config.SwitchesPath(cfgPath)); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // settled: older than the file clock's slack
	os.Chtimes(config.SwitchesPath(cfgPath), old, old)
	a.RefreshSwitches()
	for b.Loop() {
		a.RefreshSwitches()
	}
}

// TestCatalogProfileFrom: the tools page names where the active profile was chosen, and the
// flags that narrowed it.
func TestCatalogProfileFrom(t *testing.T) {
	cases := []struct {
		name string
		edit func(*config.Config)
		want string
	}{
		{"default", nil, "default"},
		{"flag", func(c *config.Config) {
			c.Profile = "small"
			c.SetOrigin("profile", config.Origin{Flag: "--profile"})
		}, "flag --profile"},
		{"file, narrowed by flags", func(c *config.Config) {
			c.Profile = "mine"
			c.Profiles = map[string]config.Profile{"mine": {ReadOnly: true, Disable: []string{"think"}}}
			c.SetOrigin("profile", config.Origin{File: "/home/user/.config/toolhost/config.toml", Line: 3})
			c.SetOrigin("profiles.mine.read_only", config.Origin{Flag: "--read-only"})
			c.SetOrigin("profiles.mine.disable", config.Origin{Flag: "--disable"})
		}, "/home/user/.config/toolhost/config.toml:3, narrowed by --disable --read-only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cat := testAppWith(t, tc.edit).ConsoleTools().Catalog()
			if cat.ProfileFrom != tc.want {
				t.Errorf("ProfileFrom = %q, want %q", cat.ProfileFrom, tc.want)
			}
			if cat.Config == "" {
				t.Error("the catalog names no configuration file")
			}
		})
	}
}

// TestConsoleActivityFilters: the activity page filters the real engine's history by every
// filter of GET /api/executions, served over HTTP as the browser gets it, and refuses what the
// API refuses with a 400 that names the parameter, the form kept and the field marked.
func TestConsoleActivityFilters(t *testing.T) {
	a := testAppWith(t, nil)
	ctx := context.Background()
	record := func(batch string, n int) {
		for i := range n {
			principal, cat := "stdio", authz.CategorySafe
			if i%2 == 1 {
				principal = "ci-bot"
			}
			if i%3 == 2 {
				cat = authz.CategoryDangerous
			}
			marker := fmt.Sprintf("%s-%s-%s-%d", batch, principal, cat, i)
			_, x := a.Executions.Begin(ctx, engine.Start{Tool: "think", Operation: "think", Principal: principal, Category: cat,
				Conversation: "conv-" + batch, Args: []byte(`{"thoughts":"` + marker + `"}`)})
			x.Finish(engine.Outcome{Status: engine.StatusSuccess})
		}
	}
	record("early", 6)
	mid := time.Now()
	time.Sleep(2 * time.Millisecond) // the next starts are after mid on any clock
	record("late", 6)
	if err := a.Executions.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	con, err := a.Console(func() (string, error) { return "test-operator-token-0123456789", nil })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(con)
	srv.Config.ConnContext = console.ConnContext
	srv.Start()
	t.Cleanup(func() { con.Close(); srv.Close() })
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar}
	if resp, err := cl.Get(con.SignInURL(srv.URL)); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("sign in: %v %v", err, resp)
	}
	get := func(query string) (int, string) {
		t.Helper()
		resp, err := cl.Get(srv.URL + "/activity?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	markers := regexp.MustCompile(`(early|late)-(stdio|ci-bot)-(safe|dangerous)-\d`)
	midText := url.QueryEscape(mid.UTC().Format(time.RFC3339Nano))
	shown := []struct {
		name, query string
		want        string // a regexp every row's marker matches
		rows        int
	}{
		{"no filter", "", `.`, 12},
		{"category", "category=dangerous", `-dangerous-`, 4},
		{"principal", "principal=ci-bot", `-ci-bot-`, 6},
		{"category and principal", "category=safe&principal=stdio", `-stdio-safe-`, 4},
		{"since a time", "since=" + midText, `^late-`, 6},
		{"until a time", "until=" + midText, `^early-`, 6},
		{"since a duration ago", "since=1h", `.`, 12},
		{"until a duration ago", "until=1h", `.`, 0},
		{"conversation and since", "conversation=conv-late&since=" + midText + "&principal=stdio", `^late-stdio-`, 3},
	}
	for _, tc := range shown {
		t.Run(tc.name, func(t *testing.T) {
			code, page := get(tc.query)
			if code != http.StatusOK {
				t.Fatalf("GET /activity?%s = %d\n%s", tc.query, code, page)
			}
			rows := markers.FindAllString(page, -1)
			if len(rows) != tc.rows {
				t.Errorf("GET /activity?%s shows %d executions %v, want %d", tc.query, len(rows), rows, tc.rows)
			}
			for _, r := range rows {
				if !regexp.MustCompile(tc.want).MatchString(r) {
					t.Errorf("GET /activity?%s shows %s", tc.query, r)
				}
			}
		})
	}
	refused := []struct{ name, query, param, message string }{
		{"unknown category", "category=risky", "category", `unknown category &#34;risky&#34;`},
		{"since neither a time nor a duration", "since=yesterday", "since", "neither an RFC 3339 time"},
		{"until neither a time nor a duration", "until=2026-13-01", "until", "neither an RFC 3339 time"},
		{"since after until", "since=" + midText + "&until=2h", "since", "since must be before until"},
		{"unknown status", "status=finished", "status", "unknown status"},
		{"negative offset", "offset=-50", "offset", "offset must not be negative"},
		{"offset not a number", "offset=1e3", "offset", "whole number"},
		{"unknown parameter", "limit=5", "limit", "unknown parameter"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			code, page := get(tc.query)
			if code != http.StatusBadRequest || !strings.Contains(page, "Not filtered: <code>"+tc.param+"</code>: ") || !strings.Contains(page, tc.message) {
				t.Errorf("GET /activity?%s = %d, want 400 naming %s with %q:\n%s", tc.query, code, tc.param, tc.message, page)
			}
			if n := len(markers.FindAllString(page, -1)); n != 0 {
				t.Errorf("GET /activity?%s refused, and shows %d executions", tc.query, n)
			}
			if tc.param != "limit" && tc.param != "offset" && !regexp.MustCompile(`name="`+tc.param+`"[^>]*aria-invalid="true"`).MatchString(page) {
				t.Errorf("GET /activity?%s: the %s field is not marked", tc.query, tc.param)
			}
		})
	}
}
