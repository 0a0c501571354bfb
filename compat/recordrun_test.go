//go:build compat

package compat

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/compat/table"
	"toolhost/consolidated"
)

// retired says why a client stays in the suite though its makers retired it.
var retired = map[string]string{
	"gemini-cli": "retired by Google in June 2026 (its successor is in no registry this suite reaches); kept while 0.61 installs",
}

// writeRecord writes what this run saw to $COMPAT_RECORD (compat/testdata/last-run.json when
// updating docs/clients.md: TOOLHOST_GOLDEN=update go test ./compat/table then renders it).
func writeRecord(pins map[string]string) error {
	path := os.Getenv("COMPAT_RECORD")
	if path == "" {
		return nil
	}
	rec := table.Record{Toolhost: toolhostVersion()}
	reportsMu.Lock()
	defer reportsMu.Unlock()
	limitsMu.Lock()
	defer limitsMu.Unlock()
	for _, c := range clients {
		pin := pinnedClients[slices.IndexFunc(pinnedClients, func(p pinnedClient) bool { return p.pkg == c.pkg })]
		tc := table.Client{Name: c.name, Title: pin.readme, Package: c.pkg, Version: pins[c.pkg], Kind: "agent CLI", Retired: retired[c.name]}
		if l, ok := limits[c.name]; ok {
			tc.Limit, tc.ClientInfo = limitSummary(l), l.Client
		}
		for _, tr := range c.transports {
			i := slices.IndexFunc(reports, func(r *report) bool { return r.name == c.name+"/"+tr })
			if i < 0 {
				continue
			}
			r := reports[i]
			run := table.Run{Transport: tr, Protocol: r.protocol, Forwards: r.forwards}
			run.Tools = "`" + strings.TrimSuffix(r.toolName, " (deferred)") + "`"
			if slices.Contains(r.notes, "defers MCP tools (the model searches to load them)") {
				run.Tools += ", deferred (the model searches)"
			} else {
				run.Tools += ", eager"
			}
			run.Approvals = r.approvals
			for _, ch := range r.checks {
				switch {
				case ch.name == "cut_marker":
					run.CutMarker = ch.ok
				case ch.name == "passed_whole":
					run.Whole = ch.ok
				}
				if !ch.ok {
					run.Failed = append(run.Failed, ch.name)
				}
			}
			if tr == "http" {
				restart := "restart: lost"
				if !slices.Contains(run.Failed, "survives_restart") {
					restart = "restart: carries on"
				}
				for _, n := range r.notes {
					if idle, ok := strings.CutPrefix(n, "idle: "); ok {
						restart += "; idle close: " + idle
					}
				}
				run.Restart = restart
			}
			if tc.ClientInfo == "" {
				tc.ClientInfo, _, _ = strings.Cut(r.session.Client, " ")
			}
			tc.Runs = append(tc.Runs, run)
		}
		if len(tc.Runs) == 0 {
			tc.Skipped = "not run (not installed here, or the run was filtered)"
		}
		if tc.ClientInfo != "" {
			tc.LimitRow = limitRow(tc.ClientInfo)
		}
		rec.Clients = append(rec.Clients, tc)
	}
	for _, u := range unavailable {
		rec.Clients = append(rec.Clients, table.Client{Name: u.name, Title: u.title, Package: u.pkg, Version: u.version, Kind: "agent CLI", Skipped: u.why})
	}
	for _, lib := range []struct{ name, title, pkg, version, key string }{
		{"mcp-go", "mcp-go client", "github.com/mark3labs/mcp-go", "1.2.1", "mcp-go/"},
		{"openai-agents", "OpenAI Agents SDK", "@openai/agents", pins["@openai/agents"], "openai-agents/"},
		{"mcp-use", "mcp-use agent", "mcp-use", pins["mcp-use"], "mcp-use/"},
	} {
		tc := table.Client{Name: lib.name, Title: lib.title, Package: lib.pkg, Version: lib.version, Kind: "library"}
		libraryResults.Range(func(k, v any) bool {
			key := k.(string)
			if rest, ok := strings.CutPrefix(key, lib.key); ok {
				tr, _, _ := strings.Cut(rest, "/")
				tc.Runs = append(tc.Runs, table.Run{Transport: tr, Protocol: v.(string), Tools: "tools/list in the fixed order",
					Forwards: "each tool's result; a cut result paged by its id", CutMarker: true, Whole: true, Approvals: "—"})
			}
			return true
		})
		slices.SortFunc(tc.Runs, func(a, b table.Run) int { return strings.Compare(a.Transport+a.Protocol, b.Transport+b.Protocol) })
		if len(tc.Runs) == 0 {
			tc.Skipped = "not run (filtered)"
		}
		rec.Clients = append(rec.Clients, tc)
	}
	return table.Save(path, merge(path, rec))
}

// merge keeps, from the record already at path, what this run did not see: a run filtered to
// some clients or tests (-run) updates their rows and leaves the others as recorded.
func merge(path string, rec table.Record) table.Record {
	old, err := table.Load(path)
	if err != nil {
		return rec
	}
	for i, c := range rec.Clients {
		j := slices.IndexFunc(old.Clients, func(o table.Client) bool { return o.Name == c.Name })
		if j < 0 {
			continue
		}
		o := old.Clients[j]
		if len(c.Runs) == 0 && len(o.Runs) > 0 {
			c.Runs, c.Skipped = o.Runs, o.Skipped
		}
		if c.Limit == "" {
			c.Limit = o.Limit
		}
		if c.ClientInfo == "" {
			c.ClientInfo = o.ClientInfo
		}
		if c.LimitRow == "" && c.ClientInfo != "" {
			c.LimitRow = limitRow(c.ClientInfo)
		}
		rec.Clients[i] = c
	}
	return rec
}

// toolhostVersion names the checkout the suite ran: git describe, else the binary's version.
func toolhostVersion() string {
	if out, err := exec.Command("git", "describe", "--always", "--dirty").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	if th, err := buildToolhost(); err == nil {
		if out, err := exec.Command(th, "version").Output(); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return "?"
}

// recordRun writes the record after every test ran (TestMain), when COMPAT_RECORD is set.
func recordRun() {
	if os.Getenv("COMPAT_RECORD") == "" {
		return
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile("package.json")
	if err == nil {
		err = json.Unmarshal(b, &pj)
	}
	if err == nil {
		err = writeRecord(pj.Dependencies)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compat: record not written: %v\n", err)
		return
	}
	fmt.Printf("compat: record of this run written to %s\n", os.Getenv("COMPAT_RECORD"))
}

// limitRow is the client's row of consolidated.ClientLimits in words, and the budget toolhost
// keeps its results under (ResultBudget), for the record.
func limitRow(clientInfo string) string {
	info := &mcp.Implementation{Name: clientInfo}
	b := consolidated.ResultBudget(0, consolidated.OutputLimits{}, info)
	l, ok := consolidated.LimitFor(info)
	if !ok {
		return fmt.Sprintf("none seen; toolhost's default %s", kbText(b.Bytes))
	}
	var parts []string
	if l.Chars > 0 {
		unit := "characters"
		if l.JSON {
			unit = "characters of JSON"
		}
		parts = append(parts, fmt.Sprintf("%s %s", thousands(l.Chars), unit))
	}
	if l.Lines > 0 {
		parts = append(parts, fmt.Sprintf("%s lines", thousands(l.Lines)))
	}
	keep := kbText(b.Bytes)
	if b.Lines > 0 {
		keep += fmt.Sprintf(", %s lines", thousands(b.Lines))
	}
	return fmt.Sprintf("%s (%s); toolhost keeps results under %s", strings.Join(parts, ", "), l.Cut, keep)
}

func kbText(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
