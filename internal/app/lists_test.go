package app

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/config"
)

// TestListCaching: on 2026-07-28 tools/list, prompts/list and resources/templates/list carry a
// long ttlMs (private: a list follows the caller's tier), which a go-sdk client honours; a
// console switch still reaches it at once (notifications/tools/list_changed on its
// subscriptions/listen stream, and the cache dropped), and the lists answered while the switch
// file is being edited say 0. Earlier protocol versions get no ttlMs, and resources/list (the
// conversation's own resources, which change with its work) is never cacheable.
func TestListCaching(t *testing.T) {
	cfgPath := t.TempDir() + "/config.toml"
	withPath := func(c *config.Config) { c.Path = cfgPath }
	serve, editor := testAppWith(t, withPath), testAppWith(t, withPath)
	ctx := context.Background()
	long := int(DefaultListTTL.Milliseconds())
	changed := make(chan struct{}, 16)
	cs := connect(t, editor, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}}, "2026-07-28")

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		list string
		got  mcp.Cacheable
		want int
	}{
		{"tools/list", tools.Cacheable, long},
		{"prompts/list", prompts.Cacheable, long},
		{"resources/templates/list", templates.Cacheable, long},
		{"resources/list", resources.Cacheable, 0},
	} {
		if c.got.TTLMs != c.want {
			t.Errorf("%s on 2026-07-28: ttlMs %d, want %d", c.list, c.got.TTLMs, c.want)
		}
		if c.want > 0 && c.got.CacheScope != "private" {
			t.Errorf("%s: cacheScope %q, want private (the list follows the caller's tier)", c.list, c.got.CacheScope)
		}
	}

	// Every tool has a short title; every resource and template says whom it serves and how
	// much it matters.
	for _, tl := range tools.Tools {
		if tl.Title == "" || len(tl.Title) > 24 {
			t.Errorf("tool %s: title %q, want a short one", tl.Name, tl.Title)
		}
	}
	annotated := func(kind, name string, a *mcp.Annotations) {
		t.Helper()
		if a == nil || len(a.Audience) == 0 || a.Priority <= 0 || a.Priority > 1 {
			t.Errorf("%s %s: annotations %+v, want an audience and a priority in (0, 1]", kind, name, a)
		}
	}
	for _, r := range resources.Resources {
		annotated("resource", r.Name, r.Annotations)
	}
	for _, r := range templates.ResourceTemplates {
		annotated("resource template", r.Name, r.Annotations)
	}

	// Earlier protocol versions: no ttlMs.
	old := connect(t, editor, nil, "2025-06-18")
	if res, err := old.ListTools(ctx, nil); err != nil || res.TTLMs != 0 {
		t.Errorf("tools/list on 2025-06-18: ttlMs %v (err %v), want 0", res.TTLMs, err)
	}

	// A switch in another process's console: announced at once, and the cached list dropped.
	if err := serve.ConsoleTools().SetEnabled(ctx, "think", "think", false); err != nil {
		t.Fatal(err)
	}
	// The editor's next request that reaches it (lists come from the client's cache now)
	// makes it look at the file.
	if text, isErr := callText(t, cs, "todo_operations", map[string]any{"operation": "read"}); isErr {
		t.Fatal(text)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a console switch")
	}
	after, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(after.Tools, func(tl *mcp.Tool) bool { return tl.Name == "think" }) {
		t.Error("tools/list after the switch still offers think: the client kept its cached list")
	}
	if after.TTLMs != 0 {
		t.Errorf("tools/list while the switch file is being edited: ttlMs %d, want 0", after.TTLMs)
	}
	// The file settles (its time is past the clock's slack): lists are cacheable again.
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(config.SwitchesPath(cfgPath), past, past); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "todo_operations", map[string]any{"operation": "read"}); isErr {
		t.Fatal(text)
	}
	if res, err := cs.ListTools(ctx, nil); err != nil || res.TTLMs != long {
		t.Errorf("tools/list once the switch file settled: ttlMs %v (err %v), want %d", res.TTLMs, err, long)
	}

	// [lists] ttl sets it; "0s" turns caching off.
	for _, tc := range []struct {
		ttl  string
		want int
	}{{"5m", 300_000}, {"0s", 0}} {
		a := testAppWith(t, func(c *config.Config) {
			d, _ := time.ParseDuration(tc.ttl)
			c.Lists.TTL.Duration = d
			c.Origins = map[string]config.Origin{"lists.ttl": {File: "config.toml", Line: 1}}
		})
		res, err := connect(t, a, nil, "2026-07-28").ListTools(ctx, nil)
		if err != nil || res.TTLMs != tc.want {
			t.Errorf("[lists] ttl = %q: tools/list ttlMs %v (err %v), want %d", tc.ttl, res.TTLMs, err, tc.want)
		}
	}
}
