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

// pinnedClient is a row of the table of tested clients: the name README.md's client table gives
// it, its npm package (whose version is package.json's pin) and the MCP protocol version it
// negotiates with toolhost. The runs hold each client to its row (client_version, protocol), and
// TestClientTable holds README.md's table to the rows: a new client version or protocol changes
// this table, and the README with it.
type pinnedClient struct {
	readme   string
	pkg      string
	protocol string
	// httpProtocol is the version negotiated over HTTP when it differs from stdio's.
	httpProtocol string
}

// protocolOn is the version the client negotiates over transport.
func (p pinnedClient) protocolOn(transport string) string {
	if transport == "http" && p.httpProtocol != "" {
		return p.httpProtocol
	}
	return p.protocol
}

var pinnedClients = []pinnedClient{
	{"Claude Code", "@anthropic-ai/claude-code", "2026-07-28", ""},
	{"Codex", "@openai/codex", "2025-06-18", ""},
	{"Gemini CLI", "@google/gemini-cli", "2025-06-18", ""},
	{"opencode", "opencode-ai", "2025-11-25", ""},
	{"Qwen Code", "@qwen-code/qwen-code", "2025-11-25", ""},
	{"Cline", "cline", "2024-11-05", "2025-11-25"},
	{"Kilo Code", "@kilocode/cli", "2025-11-25", ""},
	{"Continue", "@continuedev/cli", "2025-11-25", ""},
	{"GitHub Copilot CLI", "@github/copilot", "2026-07-28", ""},
	{"TS SDK", "@modelcontextprotocol/sdk", "2025-11-25", ""},
	{"MCP Inspector CLI", "@modelcontextprotocol/inspector", "2025-11-25", ""},
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
func checkPins(rep *report, pin pinnedClient, want, transport string) {
	rep.checks = append(rep.checks,
		checkResult{name: "client_version", ok: rep.version == want,
			detail: fmt.Sprintf("%s --version says %s; package.json pins %s", pin.pkg, rep.version, want)},
		checkResult{name: "protocol", ok: rep.protocol == pin.protocolOn(transport),
			detail: fmt.Sprintf("negotiated protocol %q over %s; the suite's table (pinnedClients) says %s", rep.protocol, transport, pin.protocolOn(transport))})
}

// TestClientTable holds README.md's table of tested clients to pinnedClients and package.json:
// every row names a client of pinnedClients with the pinned version and the protocol version,
// and every client has a row. It also finds each pinned package with its version in
// compat/README.md ("`@openai/codex` 0.169.0").
func TestClientTable(t *testing.T) {
	pins := packagePins(t)
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeClientTable(t, string(b))
	seen := map[string]bool{}
	for _, row := range rows {
		names, versions := strings.Split(row[0], ", "), strings.Split(row[1], ", ")
		if len(names) != len(versions) {
			t.Errorf("README client table: %d clients and %d versions in row %q", len(names), len(versions), row)
			continue
		}
		for i, name := range names {
			j := slices.IndexFunc(pinnedClients, func(p pinnedClient) bool { return p.readme == name })
			if j < 0 {
				t.Errorf("README client table names %q, which the suite does not test (pinnedClients)", name)
				continue
			}
			p := pinnedClients[j]
			seen[name] = true
			if versions[i] != pins[p.pkg] {
				t.Errorf("README client table: %s %s, but package.json pins %s %s", name, versions[i], p.pkg, pins[p.pkg])
			}
			if row[2] != p.protocol {
				t.Errorf("README client table: %s on protocol %s, but the suite observes %s", name, row[2], p.protocol)
			}
		}
	}
	for _, p := range pinnedClients {
		if !seen[p.readme] {
			t.Errorf("README client table has no row for %s (%s)", p.readme, p.pkg)
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

// readmeClientTable returns the cells (client, tested version, protocol, ...) of the rows of
// the table under "## Client configuration" whose header starts with "| client | tested
// version | protocol |".
func readmeClientTable(t *testing.T, readme string) [][]string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Client configuration\n")
	if !ok {
		t.Fatal("README.md has no \"## Client configuration\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, table, ok := strings.Cut(section, "\n| client | tested version | protocol |")
	if !ok {
		t.Fatal("README.md's Client configuration has no table \"| client | tested version | protocol | ...\"")
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
			t.Fatalf("README client table row %q: want at least 3 cells", line)
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatal("README client table has no rows")
	}
	return rows
}
