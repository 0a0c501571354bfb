package app

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// dependencyRule says that packages matching from (but not except) must not depend, directly or
// through other packages, on packages matching not. Patterns are an import path, or "path/..."
// for the path and everything below it.
type dependencyRule struct {
	from, except, not []string
	reason            string
}

// mcpLayer is the MCP-facing layer and the wiring above it.
var mcpLayer = []string{"toolhost/consolidated", "toolhost/internal/server", "toolhost/internal/app", "toolhost/cmd/..."}

// dependencyRules are ARCHITECTURE.md §2 as a table. A change that needs to break one changes the
// architecture: change the row, its reason and ARCHITECTURE.md together.
var dependencyRules = []dependencyRule{
	{from: []string{"toolhost/..."}, except: mcpLayer, not: []string{"github.com/modelcontextprotocol/go-sdk/..."},
		reason: "only consolidated and internal/server speak MCP; engines, authz, store, reminders and prompts stay usable and testable without it"},
	{from: []string{"toolhost/..."}, except: mcpLayer, not: mcpLayer,
		reason: "dependencies point down: engines know nothing of the tools, the server or the wiring that use them"},
	{from: []string{"toolhost/consolidated"}, not: []string{"toolhost/internal/server", "toolhost/internal/app", "toolhost/cmd/..."},
		reason: "the tool layer is below the server and the wiring"},
	{from: []string{"toolhost/internal/server"}, not: []string{"toolhost/internal/app", "toolhost/cmd/..."},
		reason: "the server is built by the wiring, never the other way round"},
	{from: []string{"toolhost/store"}, not: []string{"toolhost/..."}, except: []string{"toolhost/store"},
		reason: "the store is the floor every layer stands on; it imports no other toolhost package"},
	{from: []string{"toolhost/..."}, except: []string{"toolhost/internal/app", "toolhost/cmd/...", "toolhost/internal/config"}, not: []string{"toolhost/internal/config"},
		reason: "configuration is resolved once, in the wiring; tools and engines get plain values in their own Config types"},
	{from: []string{"toolhost/..."}, not: []string{"toolhost/internal/golden", "toolhost/store/storetest", "toolhost/internal/database/pgtest", "toolhost/internal/nettest"},
		reason: "test helpers stay out of the binary"},
}

func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		} else if pkg == p {
			return true
		}
	}
	return false
}

// TestDependencyDirection enforces dependencyRules on the packages the binary is built from
// (tests may import what they like).
func TestDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "toolhost/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		for _, r := range dependencyRules {
			if !matches(pkg, r.from) || matches(pkg, r.except) {
				continue
			}
			checked++
			for _, d := range deps {
				if matches(d, r.not) && d != pkg {
					t.Errorf("%s depends on %s: %s", pkg, d, r.reason)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package was checked; go list found nothing?")
	}
}

// module is one third-party module toolhost requires directly, with why it is here.
type module struct {
	path, reason string
	// planned marks a module a decided change brings (ARCHITECTURE.md §9): it may be absent until
	// that change lands, and the flag goes when go.mod requires it (the test says so), so that
	// removing the module later is caught.
	planned bool
}

// modules pins the third-party modules of go.mod's direct requirements. Adding a dependency is a
// reviewed change: one line here, with its reason. (Indirect requirements come with these.)
var modules = []module{
	{path: "github.com/BurntSushi/toml", reason: "the configuration file, with line numbers in errors"},
	{path: "github.com/bmatcuk/doublestar/v4", reason: "** globs for file_search, grep include/exclude and .gitignore"},
	{path: "github.com/creack/pty", reason: "PTYs for terminal sessions"},
	{path: "github.com/google/go-cmp", reason: "tests: readable (-want +got) diffs"},
	{path: "github.com/hinshun/vt10x", reason: "renders a terminal's visible screen (get_screen, screen resources)"},
	{path: "github.com/modelcontextprotocol/go-sdk", reason: "the MCP protocol, server and client (tests)"},
	{path: "github.com/philippgille/chromem-go", reason: "the optional chromem vector index ([memory] index = \"chromem\")"},
	{path: "github.com/pkoukk/tiktoken-go", reason: "tests: count tools/list and reminders in o200k tokens"},
	{path: "github.com/pkoukk/tiktoken-go-loader", reason: "tests: the o200k tables offline, no download"},
	{path: "github.com/sergi/go-diff", reason: "line diffs of edits and the nearest match of a failed edit"},
	{path: "go.etcd.io/bbolt", reason: "the state store"},
	{path: "golang.org/x/sys", reason: "openat2, process groups and CPU features the standard library does not expose"},
	{path: "golang.org/x/text", reason: "Unicode normalisation for tolerant edits"},
	// Round 2, decided in ARCHITECTURE.md §9; each line stays when its change lands.
	{path: "github.com/landlock-lsm/go-landlock", reason: "Landlock sandbox for terminal commands (issue 12)"},
	{path: "mvdan.cc/sh/v3", reason: "shell parser for command rules (issue 12)"},
	{path: "golang.org/x/time", reason: "rate limits per principal and category (issue 15)"},
	{path: "github.com/chromedp/chromedp", reason: "the headless browser of web_operations (issue 17)"},
	{path: "github.com/chromedp/cdproto", reason: "the DevTools commands chromedp has no action for: accessibility tree, input events (issue 17)"},
	{path: "codeberg.org/readeck/go-readability/v2", reason: "main content of fetched pages (issue 17)"},
	{path: "github.com/JohannesKaufmann/html-to-markdown/v2", reason: "fetched pages as Markdown (issue 17)"},
	{path: "github.com/andybalholm/cascadia", reason: "fetch_page's CSS selector (issue 17; already required by html-to-markdown)"},
	{path: "golang.org/x/net", reason: "HTML parsing, charset sniffing, IDNA host names and the environment's proxy rules (issue 17)"},
	{path: "modernc.org/sqlite", reason: "SQLite in pure Go for database_operations (issue 19)"},
	{path: "github.com/jackc/pgx/v5", reason: "PostgreSQL for database_operations (issue 19)"},
}

// TestModulesArePinned fails when go.mod requires a module directly that modules does not list
// (add it, with a reason), when a listed module is no longer required (remove the line), and
// when a module marked planned has landed (drop the flag).
func TestModulesArePinned(t *testing.T) {
	out, err := exec.Command("go", "mod", "edit", "-json", "../../go.mod").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var gomod struct {
		Require []struct {
			Path     string
			Indirect bool
		}
	}
	if err := json.Unmarshal(out, &gomod); err != nil {
		t.Fatal(err)
	}
	var direct []string
	for _, r := range gomod.Require {
		if !r.Indirect {
			direct = append(direct, r.Path)
		}
	}
	pinned := map[string]module{}
	for _, m := range modules {
		if _, dup := pinned[m.path]; dup {
			t.Errorf("module %s is pinned twice", m.path)
		}
		if m.reason == "" {
			t.Errorf("module %s is pinned without a reason", m.path)
		}
		pinned[m.path] = m
	}
	for _, p := range direct {
		if _, ok := pinned[p]; !ok {
			t.Errorf("go.mod requires %s, which is not pinned: add it to modules in internal/app/deps_test.go with the reason it is needed", p)
		}
	}
	for _, m := range modules {
		required := slices.Contains(direct, m.path)
		switch {
		case !m.planned && !required:
			t.Errorf("module %s is pinned but go.mod does not require it directly: remove its line", m.path)
		case m.planned && required:
			t.Errorf("module %s is marked planned but go.mod requires it: drop the flag, so that removing it is caught", m.path)
		}
	}
}
