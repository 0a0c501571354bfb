//go:build compat

package compat

import (
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
)

// probeScript reads the sized files and the file of short lines, with toolhost cutting nothing
// (probeConfig): what reaches the model shows where each client's own cut begins.
func probeScript() []Step {
	var steps []Step
	for _, kb := range probeSizes {
		steps = append(steps, Step{Name: fmt.Sprintf("probe_%dk", kb), Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": sizedName(kb)}})
	}
	return append(steps, Step{Name: "probe_lines", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "lines.txt"}})
}

// probeConfig lifts toolhost's own limits above every probe result.
const probeConfig = "budget_tokens = 200000\n\n[reminders]\nevery_n_calls = 1\n\n[output]\nmax_result_chars = 10000000\n"

// observed is what one client did to one probe result.
type observed struct {
	Step  string `json:"step"`
	Sent  int    `json:"sent_bytes"`
	Lines int    `json:"sent_lines"`
	Got   int    `json:"got_bytes"`
	Whole bool   `json:"whole"`
	How   string `json:"how,omitempty"` // head, head and tail, preview
}

// clientLimit is what the probe saw of one client.
type clientLimit struct {
	Client   string     `json:"client"` // clientInfo name
	Observed []observed `json:"observed"`
}

var (
	limitsMu sync.Mutex
	limits   = map[string]clientLimit{} // by suite client name
)

// TestClientLimits runs each agent CLI over stdio with toolhost cutting nothing, on results of
// 5, 10, 20 and 80 KB and a 2,000-line page, and records what the client itself does to each
// (the table printed at the end, and docs/clients.md through the record). Its check,
// limit_table, holds consolidated.ClientLimits true: every result the client cut is one
// toolhost's budget for that client would have cut first; TestAgentCLIs' passed_whole checks
// the same from the other side.
func TestClientLimits(t *testing.T) {
	s := newSuite(t)
	known := knownFailures(t)
	sem := make(chan struct{}, envInt("COMPAT_PARALLEL", 3))
	timeout := envDuration("COMPAT_TIMEOUT", defaultRunTimeout)
	t.Cleanup(func() { printLimits(t) })
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			defer s.clientSlot(t, c, sem)()
			r := &run{fixture: s.newToolhost(t, "stdio"), suite: s, client: c}
			if err := os.WriteFile(r.config, []byte(probeConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			r.model = &Model{Script: probeScript(), Final: "compat-done " + r.marker}
			ms := httptest.NewServer(r.model)
			t.Cleanup(ms.Close)
			r.modelURL = ms.URL
			r.prompt = "Run the toolhost compatibility script " + r.marker + "."
			args, env := c.setup(t, r)
			o := r.exec(t, args, env, timeout)
			r.keepArtifacts(t, "limits/"+c.name, o)
			steps := probeScript()
			mains := mainRequests(o.requests)
			fwd := forwardedResults(mains, len(steps))
			sent := sentResults(o.session, steps)
			name, _, _ := strings.Cut(o.session.Client, " ")
			lim := clientLimit{Client: name}
			budget := consolidated.ResultBudget(0, consolidated.OutputLimits{}, &mcp.Implementation{Name: name})
			var wrong []string
			for i, st := range steps {
				main := mainText(sent[i].Result)
				ob := observed{Step: st.Name, Sent: len(main), Lines: strings.Count(main, "\n") + 1}
				if fwd[i] == nil || main == "" {
					ob.How = "no result"
					lim.Observed = append(lim.Observed, ob)
					continue
				}
				got := fwd[i].Text()
				ob.Got, ob.Whole = len(got), strings.Contains(got, main)
				if !ob.Whole {
					ob.How = cutHow(main, got)
					if budget.Fits(main) {
						wrong = append(wrong, fmt.Sprintf("%s: the client cut %d B (%d lines) to %d B (%s), but toolhost's budget for %q (%+v) sends it whole",
							st.Name, ob.Sent, ob.Lines, ob.Got, ob.How, name, budget))
					}
				}
				lim.Observed = append(lim.Observed, ob)
			}
			limitsMu.Lock()
			limits[c.name] = lim
			limitsMu.Unlock()
			ranOK := !o.timedOut && o.exitCode == 0 && len(mains) > 0
			judge(t, known, c.name+"/limits ran", ranOK, fmt.Sprintf("exit %d (timed out %v), %d model requests", o.exitCode, o.timedOut, len(o.requests)))
			judge(t, known, c.name+"/limits limit_table", ranOK && len(wrong) == 0, "consolidated.ClientLimits is wrong: "+strings.Join(wrong, "; "))
		})
	}
}

// cutHow says which part of what toolhost sent reached the model: its first and last lines.
func cutHow(sent, got string) string {
	lines := strings.Split(strings.TrimSuffix(sent, "\n"), "\n")
	head := len(lines) > 1 && strings.Contains(got, lines[1])
	tail := strings.Contains(got, lines[len(lines)-1])
	switch {
	case head && tail:
		return "head and tail"
	case head:
		return "head"
	case tail:
		return "tail"
	}
	return "preview"
}

// limitSummary is one client's probe in a few words: the largest result passed whole and the
// smallest cut, with how.
func limitSummary(l clientLimit) string {
	var whole, cut []string
	for _, o := range l.Observed {
		what := kbytes(o.Sent)
		if o.Step == "probe_lines" {
			what = fmt.Sprintf("%d lines", o.Lines)
		}
		if o.Whole {
			whole = append(whole, what)
		} else {
			cut = append(cut, fmt.Sprintf("%s to %s (%s)", what, kbytes(o.Got), o.How))
		}
	}
	s := "whole: " + orDash(strings.Join(whole, ", "))
	if len(cut) > 0 {
		s += "; cut: " + strings.Join(cut, ", ")
	}
	return s
}

func printLimits(t *testing.T) {
	limitsMu.Lock()
	defer limitsMu.Unlock()
	if len(limits) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("\n== compat: what each client does to a result toolhost does not cut (stdio)\n")
	names := make([]string, 0, len(limits))
	for n := range limits {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%-12s %s\n", n, limitSummary(limits[n]))
	}
	writeReport(t, b.String())
}
