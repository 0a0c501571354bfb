//go:build compat

package compat

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// conformancePackage is the MCP conformance suite (pinned in package.json). Its `server`
// command connects to a server's streamable-HTTP URL as a TypeScript SDK client and runs
// scenarios; it has no stdio mode for servers and sends no Authorization header.
const conformancePackage = "@modelcontextprotocol/conformance"

// conformanceScenario is one server scenario of the conformance package. A generic scenario
// (needs empty) checks the protocol itself, which any server passes. The others call the
// reference "everything" server's fixtures by name (tools, resources and prompts with fixed
// content) that toolhost does not have; they do not apply, and are neither run nor faked.
type conformanceScenario struct {
	name string
	// needs is the reference fixture the scenario calls; empty for a generic scenario.
	needs string
	// note says why a generic scenario that names a fixture still applies.
	note string
}

// conformanceScenarios classifies every server scenario of the pinned package, in its order.
// TestConformance fails when the package lists one that is not here (a new version's), so
// each is classified by someone who read it.
var conformanceScenarios = []conformanceScenario{
	{name: "server-initialize"},
	{name: "logging-set-level"},
	{name: "ping"},
	{name: "completion-complete", note: "it asks about the reference prompt test_prompt_with_arguments but checks only the answer's shape, and toolhost completes an argument of a prompt it does not have with no values"},
	{name: "tools-list"},
	{name: "tools-call-simple-text", needs: "the tool test_simple_text"},
	{name: "tools-call-image", needs: "the tool test_image_content"},
	{name: "tools-call-audio", needs: "the tool test_audio_content"},
	{name: "tools-call-embedded-resource", needs: "the tool test_embedded_resource"},
	{name: "tools-call-mixed-content", needs: "the tool test_multiple_content_types"},
	{name: "tools-call-with-logging", needs: "the tool test_tool_with_logging"},
	{name: "tools-call-error", needs: "the tool test_error_handling"},
	{name: "tools-call-with-progress", needs: "the tool test_tool_with_progress"},
	{name: "tools-call-sampling", needs: "the tool test_sampling"},
	{name: "tools-call-elicitation", needs: "the tool test_elicitation"},
	{name: "json-schema-2020-12", needs: "the tool json_schema_2020_12_tool"},
	{name: "elicitation-sep1034-defaults", needs: "the tool test_elicitation_sep1034_defaults"},
	{name: "server-sse-polling", needs: "the tool test_reconnection, which closes its SSE stream mid-call; without it the scenario checks nothing"},
	{name: "server-sse-multiple-streams"},
	{name: "elicitation-sep1330-enums", needs: "the tool test_elicitation_sep1330_enums"},
	{name: "resources-list"},
	{name: "resources-read-text", needs: "the resource test://static-text"},
	{name: "resources-read-binary", needs: "the resource test://static-binary"},
	{name: "resources-templates-read", needs: "the resource template test://template/{id}/data"},
	{name: "resources-subscribe", note: "it subscribes to the reference resource test://watched-resource and checks only that the subscription is accepted, as toolhost accepts one to any URI (the client then hears of no change)"},
	{name: "resources-unsubscribe", note: "as resources-subscribe"},
	{name: "prompts-list"},
	{name: "prompts-get-simple", needs: "the prompt test_simple_prompt"},
	{name: "prompts-get-with-args", needs: "the prompt test_prompt_with_arguments"},
	{name: "prompts-get-embedded-resource", needs: "the prompt test_prompt_with_embedded_resource"},
	{name: "prompts-get-with-image", needs: "the prompt test_prompt_with_image"},
	{name: "dns-rebinding-protection"},
}

// conformanceTransports are the ways the suite reaches toolhost serve. The package sends no
// token, so on "http" the recorder adds it; on "http-no-auth" (`serve --no-auth`, the
// unauthenticated loopback server that the DNS rebinding scenario is about) none is needed.
// Both pass the client's Host header through to toolhost's Host check.
var conformanceTransports = []struct {
	name  string
	flags []string
}{
	{name: "http"},
	{name: "http-no-auth", flags: []string{"--no-auth"}},
}

// scenarioResult is what one scenario run reported.
type scenarioResult struct {
	ok       bool
	passed   int      // SUCCESS checks
	failures []string // FAILURE checks (id: message), or why the run gave no checks
	warnings []string // WARNING checks (id: message): reported, as the package does, not failed
}

// conformanceCheck is one entry of the package's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// TestConformance runs the conformance package's generic server scenarios against the real
// toolhost serve (loopback, bearer token; and with --no-auth), one package run per scenario,
// and prints a table of the results with the scenarios that do not apply and why. Known
// failures are judged as for the agent CLIs ("conformance/TRANSPORT SCENARIO").
func TestConformance(t *testing.T) {
	s := newSuite(t)
	_, err := os.Stat(filepath.Join(s.bin, "conformance"))
	need(t, err == nil, "%s is not installed in compat/node_modules", conformancePackage)
	known := knownFailures(t)
	t.Run("scenarios_classified", func(t *testing.T) {
		out, errOut, code := s.node(t, s.newToolhost(t, "stdio"), time.Minute, "conformance", "list", "--server")
		if code != 0 {
			t.Fatalf("conformance list --server exited %d: %s", code, tail(errOut, 1000))
		}
		listed := regexp.MustCompile(`(?m)^\s+- (\S+)`).FindAllStringSubmatch(out, -1)
		var got, want []string
		for _, m := range listed {
			got = append(got, m[1])
		}
		for _, sc := range conformanceScenarios {
			want = append(want, sc.name)
		}
		for _, name := range got {
			if !slices.Contains(want, name) {
				t.Errorf("the package lists the server scenario %s, which conformanceScenarios does not classify: read it, and add it as generic or with the fixture it needs", name)
			}
		}
		for _, name := range want {
			if !slices.Contains(got, name) {
				t.Errorf("conformanceScenarios has %s, which the package no longer lists: remove it", name)
			}
		}
	})
	var mu sync.Mutex
	results := map[string]map[string]scenarioResult{} // transport -> scenario -> result
	protocols := map[string]string{}                  // transport -> negotiated version
	t.Cleanup(func() { printConformance(t, s, known, results, protocols) })
	for _, tr := range conformanceTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			f := s.newToolhost(t, "http", tr.flags...)
			token := f.mcp.Token
			if slices.Contains(tr.flags, "--no-auth") {
				token = ""
			}
			f.served.rec.standIn(token)
			for _, sc := range conformanceScenarios {
				if sc.needs != "" {
					continue
				}
				res := s.runScenario(t, f, sc.name)
				mu.Lock()
				if results[tr.name] == nil {
					results[tr.name] = map[string]scenarioResult{}
				}
				results[tr.name][sc.name] = res
				mu.Unlock()
				t.Run(sc.name, func(t *testing.T) {
					judge(t, known, "conformance/"+tr.name+" "+sc.name, res.ok, strings.Join(res.failures, "; "))
					for _, w := range res.warnings {
						t.Logf("warning: %s", w)
					}
				})
			}
			sess := f.session(t)
			mu.Lock()
			protocols[tr.name] = sess.Protocol
			mu.Unlock()
		})
	}
}

// runScenario runs one scenario with the package's server command against f and reads the
// checks it wrote. A scenario passes with at least one SUCCESS and no FAILURE, as the
// package's own exit status has it.
func (s *suite) runScenario(t *testing.T, f *fixture, scenario string) scenarioResult {
	t.Helper()
	out := filepath.Join(f.dir, "conformance", scenario)
	fin := s.runBounded(t, f, 2*time.Minute, nil, "conformance", "server", "--url", f.mcp.URL, "--scenario", scenario, "-o", out)
	var res scenarioResult
	if fin.timedOut {
		res.failures = append(res.failures, fmt.Sprintf("timed out after %s", fin.duration.Round(time.Second)))
		return res
	}
	files, _ := filepath.Glob(filepath.Join(out, "server-"+scenario+"-*", "checks.json"))
	if len(files) != 1 {
		res.failures = append(res.failures, fmt.Sprintf("exit %d and %d checks.json files; stdout %s; stderr %s", fin.exitCode, len(files), excerpt(fin.stdout, 400), excerpt(fin.stderr, 400)))
		return res
	}
	b, err := os.ReadFile(files[0])
	var checks []conformanceCheck
	if err == nil {
		err = json.Unmarshal(b, &checks)
	}
	if err != nil {
		res.failures = append(res.failures, fmt.Sprintf("read %s: %v", files[0], err))
		return res
	}
	for _, c := range checks {
		what := c.ID + ": " + cmp.Or(c.ErrorMessage, c.Description)
		switch c.Status {
		case "SUCCESS":
			res.passed++
		case "FAILURE":
			res.failures = append(res.failures, what)
		case "WARNING":
			res.warnings = append(res.warnings, what)
		}
	}
	switch {
	case res.passed == 0 && len(res.failures) == 0:
		res.failures = append(res.failures, fmt.Sprintf("no check succeeded (%d checks)", len(checks)))
	case fin.exitCode != 0 && len(res.failures) == 0:
		res.failures = append(res.failures, fmt.Sprintf("exit %d without a failed check; stderr %s", fin.exitCode, excerpt(fin.stderr, 400)))
	}
	res.ok = len(res.failures) == 0
	return res
}

// printConformance prints the conformance table: each scenario's result per transport (ok, XX,
// or n/a with the fixture it needs), then notes, warnings and failures.
func printConformance(t *testing.T, s *suite, known map[string]string, results map[string]map[string]scenarioResult, protocols map[string]string) {
	if len(results) == 0 {
		return
	}
	version := "?"
	if b, err := os.ReadFile(filepath.Join(s.dir, "node_modules", conformancePackage, "package.json")); err == nil {
		var p struct{ Version string }
		if json.Unmarshal(b, &p) == nil {
			version = p.Version
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n== compat: MCP conformance (%s %s, server scenarios against toolhost serve)\n", conformancePackage, version)
	fmt.Fprintf(&b, "%-30s", "scenario")
	for _, tr := range conformanceTransports {
		fmt.Fprintf(&b, " %-13s", tr.name)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-30s", "(negotiated protocol)")
	for _, tr := range conformanceTransports {
		fmt.Fprintf(&b, " %-13s", orDash(protocols[tr.name]))
	}
	b.WriteString("\n")
	var details []string
	pass, fail, na := 0, 0, 0
	for _, sc := range conformanceScenarios {
		fmt.Fprintf(&b, "%-30s", sc.name)
		if sc.needs != "" {
			na++
			fmt.Fprintf(&b, " n/a: needs %s\n", sc.needs)
			continue
		}
		for _, tr := range conformanceTransports {
			res, ran := results[tr.name][sc.name]
			mark := "--"
			switch {
			case !ran:
			case res.ok:
				mark = "ok"
				pass++
			default:
				mark = "XX"
				fail++
				if _, ok := known[fmt.Sprintf("conformance/%s %s", tr.name, sc.name)]; ok {
					mark = "XX (known)"
				}
			}
			fmt.Fprintf(&b, " %-13s", mark)
			for _, f := range res.failures {
				details = append(details, fmt.Sprintf("    FAIL %s on %s: %s", sc.name, tr.name, f))
			}
			for _, w := range res.warnings {
				details = append(details, fmt.Sprintf("    warning %s on %s: %s", sc.name, tr.name, w))
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d passed, %d failed (scenario × transport); %d scenarios not applicable: they call the reference server's fixtures by name, which toolhost does not have\n", pass, fail, na)
	for _, sc := range conformanceScenarios {
		if sc.note != "" {
			fmt.Fprintf(&b, "note: %s applies: %s\n", sc.name, sc.note)
		}
	}
	b.WriteString(strings.Join(details, "\n"))
	if len(details) > 0 {
		b.WriteString("\n")
	}
	writeReport(t, b.String())
}
