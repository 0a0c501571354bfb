package edit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/logtest"
)

// TestEditCorpus drives every case of testdata/corpus through the real binary, built here and
// spawned over stdio like an editor spawns it: the model's reads, then its edit call, then the
// files on disk are compared with the intended ones. It prints a table per class (go test
// ./internal/edit -run TestEditCorpus -v) and fails when fewer than minLanded of the attempts
// that have an intended result land as intended, on any wrong write, on a refusal that does not
// say where and what next, and on a crash or a hang.
//
// TOOLHOST_CORPUS_REPORT=FILE also writes every case's outcome and answer there (JSON lines);
// TOOLHOST_CORPUS_BINARY=PATH measures that binary instead of building this tree.
func TestEditCorpus(t *testing.T) {
	cases := loadCorpus(t)
	bin := buildToolhost(t)
	results := make([]caseResult, len(cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range corpusWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = runCorpusCase(t, bin, cases[i])
			}
		}()
	}
	for i := range cases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	table, sum := corpusTable(cases, results)
	t.Logf("edit corpus, %d attempts:\n%s", len(cases), table)
	if p := os.Getenv("TOOLHOST_CORPUS_REPORT"); p != "" {
		writeCorpusReport(t, p, cases, results)
	}
	for i, r := range results {
		switch r.outcome {
		case outcomeWrong, outcomeCrash, outcomePoor:
			t.Errorf("%s: %s: %s\nanswer: %s", cases[i].ID, r.outcome, r.detail, clip(r.text, 600))
		case outcomeMissed:
			t.Logf("%s: missed: %s\nanswer: %s", cases[i].ID, r.detail, clip(r.text, 600))
		}
	}
	if sum.withResult == 0 {
		t.Fatal("no case has an intended result")
	}
	if share := float64(sum.landed) / float64(sum.withResult); share < minLanded {
		t.Errorf("%d of %d attempts with an intended result landed as intended (%.1f%%), want at least %.0f%%",
			sum.landed, sum.withResult, 100*share, 100*minLanded)
	}
}

const (
	// minLanded is the share of attempts with an intended result that must land as intended.
	minLanded = 0.97
	// corpusWorkers is how many cases run at once, each its own toolhost process.
	corpusWorkers = 4
	// corpusCallTimeout bounds every call: a case that takes longer is a hang, and fails.
	corpusCallTimeout = 60 * time.Second
)

// The outcomes of a case.
const (
	outcomeLanded = "landed"        // the files hold the intended result
	outcomeUseful = "refused"       // a refusal was intended, and says where and what next
	outcomePoor   = "poor refusal"  // a refusal was intended, but the message falls short
	outcomeMissed = "missed"        // refused, though an intended result exists
	outcomeWrong  = "WRONG WRITE"   // written other than intended, or success claimed wrongly
	outcomeCrash  = "crash or hang" // the server died or did not answer in time
)

type caseResult struct {
	outcome string
	detail  string
	text    string // the answer to the edit call
	isError bool
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in %s: %v", corpusDir, err)
	}
	var out []corpusCase
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cs []corpusCase
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, cs...)
	}
	return out
}

// buildToolhost builds the binary the corpus runs against; TOOLHOST_CORPUS_BINARY names another
// one to measure (an older build, for a before-and-after table).
func buildToolhost(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("TOOLHOST_CORPUS_BINARY"); bin != "" {
		t.Logf("measuring %s", bin)
		return bin
	}
	bin := filepath.Join(t.TempDir(), "toolhost")
	out, err := exec.Command("go", "build", "-o", bin, "toolhost/cmd/toolhost").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runCorpusCase runs one case in a toolhost process of its own, with a fresh state directory and
// the case's files as its working directory.
func runCorpusCase(t *testing.T, bin string, c corpusCase) caseResult {
	dir, err := os.MkdirTemp("", "corpus-case-")
	if err != nil {
		return caseResult{outcome: outcomeCrash, detail: err.Error()}
	}
	defer os.RemoveAll(dir)
	work, state := filepath.Join(dir, "work"), filepath.Join(dir, "state")
	for _, d := range []string{work, state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return caseResult{outcome: outcomeCrash, detail: err.Error()}
		}
	}
	if err := writeTree(work, c.Files); err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	cfg := filepath.Join(state, "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		return caseResult{outcome: outcomeCrash, detail: err.Error()}
	}
	cmd := exec.Command(bin, "stdio", "--state-dir", state, "--workdir", work, "--config", cfg)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+state)
	var stderr logtest.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*corpusCallTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "edit-corpus", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return caseResult{outcome: outcomeCrash, detail: fmt.Sprintf("connect: %v\n%s", err, stderr.String())}
	}
	defer cs.Close()
	call := func(args map[string]any) (*mcp.CallToolResult, error) {
		cctx, ccancel := context.WithTimeout(ctx, corpusCallTimeout)
		defer ccancel()
		return cs.CallTool(cctx, &mcp.CallToolParams{Name: "file_operations", Arguments: args})
	}
	reads := c.Reads
	if len(reads) == 0 {
		var names []string
		for n := range c.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			reads = append(reads, map[string]any{"path": n})
		}
	}
	for _, r := range reads {
		args := map[string]any{"operation": "read_file"}
		for k, v := range r {
			args[k] = v
		}
		if _, err := call(args); err != nil {
			return caseResult{outcome: outcomeCrash, detail: fmt.Sprintf("read_file: %v\n%s", err, stderr.String())}
		}
	}
	if len(c.Disk) > 0 {
		if err := writeTree(work, c.Disk); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
	}
	res, err := call(c.Call)
	if err != nil {
		return caseResult{outcome: outcomeCrash, detail: fmt.Sprintf("call: %v\n%s", err, stderr.String())}
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	got, err := readTree(work)
	if err != nil {
		return caseResult{outcome: outcomeCrash, detail: err.Error()}
	}
	r := classify(c, got, res.IsError, text.String())
	r.text, r.isError = text.String(), res.IsError
	return r
}

// classify decides a case's outcome from the files on disk and the answer.
func classify(c corpusCase, got map[string][]byte, isError bool, text string) caseResult {
	before := copyFiles(c.Files)
	for n, f := range c.Disk {
		before[n] = f
	}
	beforeB, err := treeBytes(before)
	if err != nil {
		return caseResult{outcome: outcomeCrash, detail: err.Error()}
	}
	unchanged := treeDiff(beforeB, got) == ""
	if c.Want.Refuse != nil {
		switch {
		case !unchanged:
			return caseResult{outcome: outcomeWrong, detail: "a refusal was intended, but files changed: " + treeDiff(beforeB, got)}
		case !isError:
			return caseResult{outcome: outcomeWrong, detail: "a refusal was intended, but the answer claims success"}
		}
		if why := refusalShortfall(c.Want.Refuse, text); why != "" {
			return caseResult{outcome: outcomePoor, detail: why}
		}
		return caseResult{outcome: outcomeUseful}
	}
	after := copyFiles(before)
	for n, f := range c.Want.Files {
		after[n] = f
	}
	for _, n := range c.Want.Deleted {
		delete(after, n)
	}
	want, err := treeBytes(after)
	if err != nil {
		return caseResult{outcome: outcomeCrash, detail: err.Error()}
	}
	diff := treeDiff(want, got)
	switch {
	case diff == "" && !isError:
		return caseResult{outcome: outcomeLanded}
	case unchanged && isError:
		return caseResult{outcome: outcomeMissed, detail: refusalShortfall(&corpusRefusal{}, text)}
	case unchanged:
		return caseResult{outcome: outcomeWrong, detail: "success claimed, nothing written"}
	case diff == "":
		return caseResult{outcome: outcomeWrong, detail: "the intended result was written, but the answer is an error"}
	}
	return caseResult{outcome: outcomeWrong, detail: diff}
}

var (
	errorCodeRe = regexp.MustCompile(`^error ([a-z_]+):`)
	namesLineRe = regexp.MustCompile(`\blines? \d+`)
	// nextStepRe is the next step a refusal must give: toolhost's "next:" line, or advice in
	// the message itself.
	nextStepRe = regexp.MustCompile(`(?m)^next: |(?i)\b(copy|read|re-read|include|set|use|send|leave|correct|write|replace|give|split|match|check|choose|convert)\b[^.;\n]*\b(again|exact|file|old_string|new_string|patch|hunk|line|lines|encoding|expected_replacements|replace_all|text|characters?|pattern|start_line)\b`)
)

// refusalShortfall says what a refusal lacks ("" when it is useful): the intended code, every
// mention, a line and a next step.
func refusalShortfall(r *corpusRefusal, text string) string {
	var miss []string
	if len(r.Code) > 0 {
		m := errorCodeRe.FindStringSubmatch(text)
		if m == nil || !contains(r.Code, m[1]) {
			miss = append(miss, fmt.Sprintf("code is not %s", strings.Join(r.Code, " or ")))
		}
	}
	for _, re := range r.Mentions {
		if !regexp.MustCompile(re).MatchString(text) {
			miss = append(miss, "does not mention "+re)
		}
	}
	if !namesLineRe.MatchString(text) {
		miss = append(miss, "names no line")
	}
	if !nextStepRe.MatchString(text) {
		miss = append(miss, "gives no next step")
	}
	return strings.Join(miss, "; ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

type corpusSum struct {
	attempts, withResult, landed, useful, poor, missed, wrong, crash int
}

func (s *corpusSum) add(withResult bool, outcome string) {
	s.attempts++
	if withResult {
		s.withResult++
	}
	switch outcome {
	case outcomeLanded:
		s.landed++
	case outcomeUseful:
		s.useful++
	case outcomePoor:
		s.poor++
	case outcomeMissed:
		s.missed++
	case outcomeWrong:
		s.wrong++
	case outcomeCrash:
		s.crash++
	}
}

// corpusTable renders the per-class table (Markdown, so docs/edits.md can quote it).
func corpusTable(cases []corpusCase, results []caseResult) (string, corpusSum) {
	byClass := map[string]*corpusSum{}
	var order []string
	var total corpusSum
	for i, c := range cases {
		s, ok := byClass[c.Class]
		if !ok {
			s = &corpusSum{}
			byClass[c.Class] = s
			order = append(order, c.Class)
		}
		s.add(c.Want.Refuse == nil, results[i].outcome)
		total.add(c.Want.Refuse == nil, results[i].outcome)
	}
	sort.Strings(order)
	var b strings.Builder
	b.WriteString("| class | attempts | landed as intended | refused, useful | refused, poor message | missed | WRONG WRITE | crash/hang |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, s corpusSum) {
		landed := "–"
		if s.withResult > 0 {
			landed = fmt.Sprintf("%d/%d (%.1f%%)", s.landed, s.withResult, 100*float64(s.landed)/float64(s.withResult))
		}
		refusals := s.attempts - s.withResult
		useful := "–"
		if refusals > 0 {
			useful = fmt.Sprintf("%d/%d", s.useful, refusals)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %d | %d | %d |\n", name, s.attempts, landed, useful, s.poor, s.missed, s.wrong, s.crash)
	}
	for _, name := range order {
		row(name, *byClass[name])
	}
	row("**all**", total)
	return b.String(), total
}

func writeCorpusReport(t *testing.T, path string, cases []corpusCase, results []caseResult) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, c := range cases {
		enc.Encode(map[string]any{"id": c.ID, "outcome": results[i].outcome, "detail": results[i].detail, "is_error": results[i].isError, "answer": results[i].text})
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Error(err)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
