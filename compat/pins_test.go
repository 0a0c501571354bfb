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

	"toolhost/compat/table"
)

// pinnedClient is a row of the table of tested clients: the client's name in docs/clients.md,
// its npm package (whose version is package.json's pin) and the MCP protocol version it
// negotiates with toolhost. The runs hold each client to its row (client_version, protocol), and
// TestClientTable holds the record of the last run, from which docs/clients.md's table is
// generated, to the rows: a new client version or protocol changes this table and the record.
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

// checkInstalled fails the test unless compat/node_modules holds the version of pkg that
// package.json pins.
func checkInstalled(t *testing.T, s *suite, pkg string) {
	t.Helper()
	if got, want := installedVersion(s, pkg), packagePins(t)[pkg]; got != want {
		t.Errorf("node_modules has %s %q; package.json pins %q", pkg, got, want)
	}
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

// TestClientTable holds the record of the suite's last run (testdata/last-run.json, from
// which docs/clients.md's table is generated) to pinnedClients and package.json: each agent
// CLI's version is the pin and its protocol the one pinnedClients says, and no client is
// missing. It also finds each pinned package with its version in compat/README.md ("`@openai/codex`
// 0.169.0"). A new client version or protocol therefore means a new run recorded.
func TestClientTable(t *testing.T) {
	pins := packagePins(t)
	rec, err := table.Load(filepath.Join("testdata", "last-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clients {
		pin := pinned(t, c.pkg)
		i := slices.IndexFunc(rec.Clients, func(r table.Client) bool { return r.Name == c.name })
		if i < 0 {
			t.Errorf("the record has no row for %s: run the suite with COMPAT_RECORD", c.name)
			continue
		}
		r := rec.Clients[i]
		if r.Version != pins[c.pkg] || r.Title != pin.readme {
			t.Errorf("the record says %s %s, package.json pins %s %s", r.Title, r.Version, pin.readme, pins[c.pkg])
		}
		for _, run := range r.Runs {
			if run.Protocol != pin.protocolOn(run.Transport) {
				t.Errorf("the record has %s on protocol %s over %s; pinnedClients says %s", c.name, run.Protocol, run.Transport, pin.protocolOn(run.Transport))
			}
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
