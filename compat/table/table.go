// Package table turns the compatibility suite's record of its last run (testdata/last-run.json,
// written by `go test -tags compat ./compat/` with COMPAT_RECORD set) into the compatibility
// table of docs/clients.md. The table is generated, never written by hand: TestDocsTable holds
// the committed docs to what Render makes of the committed record.
package table

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Record is what one run of the suite saw.
type Record struct {
	// Toolhost is the toolhost version that ran (git describe, or the binary's).
	Toolhost string   `json:"toolhost"`
	Clients  []Client `json:"clients"`
}

// Client is one client of the suite.
type Client struct {
	Name    string `json:"name"`  // the suite's name: claude-code
	Title   string `json:"title"` // Claude Code
	Package string `json:"package"`
	Version string `json:"version"`
	Kind    string `json:"kind"` // agent CLI, library
	// Retired says why the client is kept though its makers retired it.
	Retired string `json:"retired,omitempty"`
	// Skipped says why it could not run here ("" when it ran).
	Skipped string `json:"skipped,omitempty"`
	Runs    []Run  `json:"runs"`
	// Limit is what the client did to results toolhost did not cut (its probe).
	Limit string `json:"limit,omitempty"`
	// ClientInfo is the name the client sends in clientInfo.
	ClientInfo string `json:"client_info,omitempty"`
	// LimitRow is the client's row of toolhost's table of client limits, in words, with the
	// budget toolhost keeps its results under (consolidated.ClientLimits, ResultBudget).
	LimitRow string `json:"limit_row,omitempty"`
}

// Run is one client on one transport.
type Run struct {
	Transport string `json:"transport"`
	Protocol  string `json:"protocol"`
	// Tools is how the model is offered toolhost's tools: the name it sees for
	// file_operations, and eager or deferred.
	Tools string `json:"tools"`
	// Forwards is what of a result reaches the model (text, structured, ...).
	Forwards string `json:"forwards"`
	// CutMarker says whether toolhost's cut notice and id reached the model.
	CutMarker bool `json:"cut_marker"`
	// Whole says whether every result toolhost sent reached the model whole.
	Whole bool `json:"whole"`
	// Approvals is how an approval reaches the user.
	Approvals string `json:"approvals"`
	// Restart is what happened at the serve restart and the idle close (HTTP).
	Restart string `json:"restart,omitempty"`
	// Failed lists the checks that failed.
	Failed []string `json:"failed,omitempty"`
}

// Load reads a record.
func Load(path string) (Record, error) {
	var r Record
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Save writes a record, indented, clients in name order.
func Save(path string, r Record) error {
	slices.SortFunc(r.Clients, func(a, b Client) int { return strings.Compare(a.Name, b.Name) })
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// Render is the compatibility table of docs/clients.md: a row per client and transport, then
// each client's result limit.
func Render(r Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From the suite's last run (toolhost %s; `go test -tags compat ./compat/`).\n\n", r.Toolhost)
	b.WriteString("| client | version | transport | protocol | tools offered as | what reaches the model | cut marker | every result whole | approvals | restart and idle |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Clients {
		title := c.Title
		if c.Retired != "" {
			title += " (retired)"
		}
		if c.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %s | — | not run here: %s | | | | | | |\n", title, c.Version, c.Skipped)
			continue
		}
		for _, run := range c.Runs {
			failed := ""
			if len(run.Failed) > 0 {
				failed = " (failed: " + strings.Join(run.Failed, ", ") + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s%s | %s | %s | %s | %s |\n", title, c.Version, run.Transport, run.Protocol,
				cell(run.Tools), cell(run.Forwards), failed, yes(run.CutMarker), yes(run.Whole), cell(run.Approvals), cell(run.Restart))
		}
	}
	b.WriteString("\nEach client's own result limit (`consolidated.ClientLimits`, keyed by the `clientInfo` name; the suite's probe sends results toolhost does not cut):\n\n")
	b.WriteString("| client | clientInfo | its limit (toolhost's table) | what the probe saw |\n|---|---|---|---|\n")
	for _, c := range r.Clients {
		if c.Kind != "agent CLI" || c.Skipped != "" {
			continue
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", c.Title, c.ClientInfo, cell(c.LimitRow), cell(c.Limit))
	}
	b.WriteString("\nRetired clients stay while they install; `—` marks a check that does not apply.\n")
	for _, c := range r.Clients {
		if c.Retired != "" {
			fmt.Fprintf(&b, "%s: %s\n", c.Title, c.Retired)
		}
	}
	return b.String()
}

func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", "\\|")
}
