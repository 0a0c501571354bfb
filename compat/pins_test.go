//go:build compat

package compat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pinnedClient is a row of the table of tested clients: the name the client table of
// docs/client-configuration.md gives it, its npm package (whose version is package.json's pin)
// and the MCP protocol version it negotiates with toolhost. The runs hold each client to its row
// (client_version, protocol), and TestClientTable holds that table to the rows: a new client
// version or protocol changes this table, and the doc with it.
type pinnedClient struct {
	readme   string
	pkg      string
	protocol string
}

var pinnedClients = []pinnedClient{
	{"Claude Code", "@anthropic-ai/claude-code", "2026-07-28"},
	{"Codex", "@openai/codex", "2025-06-18"},
	{"Gemini CLI", "@google/gemini-cli", "2025-06-18"},
	{"opencode", "opencode-ai", "2025-11-25"},
	{"Qwen Code", "@qwen-code/qwen-code", "2025-11-25"},
	{"TS SDK", "@modelcontextprotocol/sdk", "2025-11-25"},
	{"MCP Inspector CLI", "@modelcontextprotocol/inspector", "2025-11-25"},
}

// pinned returns the row of an npm package.
func pinned(t *testing.T, pkg string) pinnedClient {
	t.Helper()
	i := slices.IndexFunc(pinnedClients, func(p pinnedClient) bool { return p.pkg == pkg })
	if i < 0 {
		t.Fatalf("%s has no row in pinnedClients", pkg)
	}
	return pinnedClients[i]
}

// packagePins reads the exact versions compat/package.json pins, by package.
func packagePins(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	return pj.Dependencies
}

// installedVersion is the version of pkg in compat/node_modules ("" when missing).
func installedVersion(s *suite, pkg string) string {
	b, err := os.ReadFile(filepath.Join(s.dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return ""
	}
	var pj struct{ Version string }
	json.Unmarshal(b, &pj)
	return pj.Version
}

// checkPins adds the checks that hold an agent CLI's run to its row: the version the CLI says it
// is (--version) is the one package.json pins, and the protocol it negotiated is the row's.
func checkPins(rep *report, pin pinnedClient, want string) {
	rep.checks = append(rep.checks,
		checkResult{name: "client_version", ok: rep.version == want,
			detail: fmt.Sprintf("%s --version says %s; package.json pins %s", pin.pkg, rep.version, want)},
		checkResult{name: "protocol", ok: rep.protocol == pin.protocol,
			detail: fmt.Sprintf("negotiated protocol %q; the suite's table (and docs/client-configuration.md's) says %s", rep.protocol, pin.protocol)})
}

// TestClientTable holds the table of tested clients in docs/client-configuration.md to
// pinnedClients and package.json: every row names a client of pinnedClients with the pinned
// version and the protocol version, and every client has a row. It also finds each pinned
// package with its version in compat/README.md ("`@openai/codex` 0.169.0").
func TestClientTable(t *testing.T) {
	pins := packagePins(t)
	b, err := os.ReadFile(clientDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows := clientTable(t, string(b))
	seen := map[string]bool{}
	for _, row := range rows {
		names, versions := strings.Split(row[0], ", "), strings.Split(row[1], ", ")
		if len(names) != len(versions) {
			t.Errorf("client table: %d clients and %d versions in row %q", len(names), len(versions), row)
			continue
		}
		for i, name := range names {
			j := slices.IndexFunc(pinnedClients, func(p pinnedClient) bool { return p.readme == name })
			if j < 0 {
				t.Errorf("client table names %q, which the suite does not test (pinnedClients)", name)
				continue
			}
			p := pinnedClients[j]
			seen[name] = true
			if versions[i] != pins[p.pkg] {
				t.Errorf("client table: %s %s, but package.json pins %s %s", name, versions[i], p.pkg, pins[p.pkg])
			}
			if row[2] != p.protocol {
				t.Errorf("client table: %s on protocol %s, but the suite observes %s", name, row[2], p.protocol)
			}
		}
	}
	for _, p := range pinnedClients {
		if !seen[p.readme] {
			t.Errorf("client table has no row for %s (%s)", p.readme, p.pkg)
		}
	}
	cb, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, v := range pins {
		if !strings.Contains(string(cb), fmt.Sprintf("`%s` %s", pkg, v)) {
			t.Errorf("compat/README.md does not say \"`%s` %s\" (package.json's pin)", pkg, v)
		}
	}
}

// clientDoc is the document whose table of tested clients TestClientTable checks.
const clientDoc = "../docs/client-configuration.md"

// clientTable returns the cells (client, tested version, protocol, ...) of the rows of
// the table under "## Tested clients" of clientDoc whose header starts with "| client | tested
// version | protocol |".
func clientTable(t *testing.T, readme string) [][]string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Tested clients\n")
	if !ok {
		t.Fatalf("%s has no \"## Tested clients\" section", clientDoc)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, table, ok := strings.Cut(section, "\n| client | tested version | protocol |")
	if !ok {
		t.Fatalf("%s: Tested clients has no table \"| client | tested version | protocol | ...\"", clientDoc)
	}
	var rows [][]string
	for i, line := range strings.Split(table, "\n") {
		if i < 2 { // the rest of the header line, and the |---| line
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		if len(cells) < 3 {
			t.Fatalf("client table row %q: want at least 3 cells", line)
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatal("client table has no rows")
	}
	return rows
}
