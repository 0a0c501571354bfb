package consolidated

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCut(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %04d of the output\n", i)
	}
	long := b.String() // 48,000 bytes
	tests := []struct {
		name string
		text string
		max  int
		id   string
	}{
		{"codex budget", long, 10_000, "r0123456789ab"},
		{"small budget", long, 900, "r0123456789ab"},
		{"one long line", strings.Repeat("é", 20_000), 3_000, "r0123456789ab"},
		{"nothing spilled", long, 2_000, ""},
	}
	const why = "the state directory is full (ENOSPC); tell the user"
	notice := regexp.MustCompile(`^\[result cut to (\d+) of (\d+) bytes: bytes (\d+)-(\d+) are left out; (.*)\]\n`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cut(tt.text, tt.max, 0, tt.id, why)
			if len(got) > tt.max {
				t.Errorf("cut(%d bytes, %d) = %d bytes, over the budget", len(tt.text), tt.max, len(got))
			}
			m := notice.FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("cut(...) does not start with the notice:\n%.300s", got)
			}
			how := "the read_tool_result tool pages the rest: {\"id\":\"" + tt.id + "\",\"offset\":" + m[3] + "}"
			if tt.id == "" {
				how = "the full text was not kept: " + why
			}
			if m[5] != how {
				t.Errorf("the notice says %q, want %q", m[5], how)
			}
			var from, to int
			fmt.Sscan(m[3], &from)
			fmt.Sscan(m[4], &to)
			rest := got[len(m[0]):]
			gap := fmt.Sprintf("\n[... %d bytes left out (bytes %d-%d) ...]\n", to-from, from, to)
			summary := fmt.Sprintf("\n[end of a cut result: bytes %d-%d of %d were left out; %s]", from, to, len(tt.text), how)
			head, tail, ok := strings.Cut(strings.TrimSuffix(rest, summary), gap)
			if !ok || !strings.HasSuffix(rest, summary) {
				t.Fatalf("cut(...) lacks the gap marker %q or the summary %q at the end:\n%s", gap, summary, got)
			}
			if head != tt.text[:from] || tail != tt.text[to:] {
				t.Errorf("head and tail are not the text's bytes 0-%d and %d-%d", from, to, len(tt.text))
			}
			if tt.max >= 2_000 && (len(head) < 100 || len(tail) < 100) {
				t.Errorf("head %d and tail %d bytes: want both kept", len(head), len(tail))
			}
		})
	}
	if got := cut("short", 100, 0, "r0123456789ab", ""); got != "short" {
		t.Errorf("cut(short) = %q, want it unchanged", got)
	}
}

// TestSpillFailure: when the full text of a cut result cannot be kept, the notice says why in
// the words of the state_unavailable errors, so the model can tell the user what to fix.
func TestSpillFailure(t *testing.T) {
	pathErr := func(errno syscall.Errno) error {
		return fmt.Errorf("spill: %w", &fs.PathError{Op: "write", Path: "/state/results/.tmp-1", Err: errno})
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"disk full", pathErr(syscall.ENOSPC), "the state directory is full (ENOSPC); tell the user to free space"},
		{"quota", pathErr(syscall.EDQUOT), "the state directory is full (ENOSPC)"},
		{"read-only", pathErr(syscall.EROFS), "the state directory is on a read-only file system (EROFS)"},
		{"permissions", pathErr(syscall.EACCES), "the state directory is not writable (EACCES)"},
		{"anything else", errors.New("spill: short write"), "writing it to the state directory failed (the server's log says why)"},
	}
	for _, tt := range tests {
		if got := spillFailure(tt.err); !strings.HasPrefix(got, tt.want) {
			t.Errorf("spillFailure(%v) = %q, want it to start %q", tt.err, got, tt.want)
		}
	}
}

// TestResultBudget: the one decision of a result's budget, for clients in the table and not,
// with the user's [output] limits and a configured token budget.
func TestResultBudget(t *testing.T) {
	tests := []struct {
		name   string
		tokens int
		out    OutputLimits
		client *mcp.Implementation
		want   Budget
	}{
		{"Claude Code", 0, OutputLimits{}, &mcp.Implementation{Name: "claude-code", Version: "2.1.331"}, Budget{Bytes: 45_000}},
		{"Codex", 0, OutputLimits{}, &mcp.Implementation{Name: "codex-mcp-client", Version: "0.169.0"}, Budget{Bytes: 9_500}},
		{"Qwen Code", 0, OutputLimits{}, &mcp.Implementation{Name: "qwen-cli-mcp-client-toolhost"}, Budget{Bytes: 22_500}},
		{"Cline: the JSON counts", 0, OutputLimits{}, &mcp.Implementation{Name: "Cline"}, Budget{Bytes: 6_500, JSON: true}},
		{"Kilo Code: 2,000 lines", 0, OutputLimits{}, &mcp.Implementation{Name: "kilo-code"}, Budget{Bytes: 46_080, Lines: 1_800}},
		{"unknown client: the default", 0, OutputLimits{}, &mcp.Implementation{Name: "my-agent"}, Budget{Bytes: 75_000}},
		{"no client info", 0, OutputLimits{}, nil, Budget{Bytes: 75_000}},
		{"configured tokens below the client's limit", 2_000, OutputLimits{}, &mcp.Implementation{Name: "claude-code"}, Budget{Bytes: 6_000}},
		{"configured tokens above it: the client's limit holds", 50_000, OutputLimits{}, &mcp.Implementation{Name: "codex-mcp-client"}, Budget{Bytes: 9_500}},
		{"the user's limits replace the row", 0, OutputLimits{MaxResultChars: 4_000, MaxResultLines: 100}, &mcp.Implementation{Name: "Cline"}, Budget{Bytes: 2_500, Lines: 60}},
		{"the user's lines alone", 0, OutputLimits{MaxResultLines: 500}, &mcp.Implementation{Name: "my-agent"}, Budget{Bytes: 75_000, Lines: 450}},
		{"a tiny user limit keeps half", 0, OutputLimits{MaxResultChars: 1_000}, nil, Budget{Bytes: 500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResultBudget(tt.tokens, tt.out, tt.client); got != tt.want {
				t.Errorf("ResultBudget(%d, %+v, %v) = %+v, want %+v", tt.tokens, tt.out, tt.client, got, tt.want)
			}
		})
	}
}

// TestBudgetFit: a result cut to a budget fits it, on both sides of the limit, in bytes,
// lines and JSON-encoded characters; what fits is left alone.
func TestBudgetFit(t *testing.T) {
	lines := func(n int, line string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%05d %s\n", i, line)
		}
		return b.String()
	}
	quoted := lines(1_000, `"a" \\ "b"\t"c"`) // every line grows by a third when JSON-encoded
	tests := []struct {
		name    string
		b       Budget
		text    string
		wantCut bool
	}{
		{"bytes: under", Budget{Bytes: 10_000}, strings.Repeat("x", 9_999), false},
		{"bytes: at", Budget{Bytes: 10_000}, strings.Repeat("x", 10_000), false},
		{"bytes: just over", Budget{Bytes: 10_000}, strings.Repeat("x\n", 5_000) + "x", true},
		{"bytes: far over", Budget{Bytes: 10_000}, lines(10_000, "far"), true},
		{"lines: under", Budget{Bytes: 1 << 20, Lines: 2_000}, lines(1_999, "l"), false},
		{"lines: at", Budget{Bytes: 1 << 20, Lines: 2_000}, lines(2_000, "l"), false},
		{"lines: at, no final newline", Budget{Bytes: 1 << 20, Lines: 2_000}, strings.TrimSuffix(lines(2_000, "l"), "\n"), false},
		{"lines: just over", Budget{Bytes: 1 << 20, Lines: 2_000}, lines(2_001, "l"), true},
		{"lines: far over", Budget{Bytes: 1 << 20, Lines: 2_000}, lines(20_000, "l"), true},
		{"JSON: bytes fit, the encoding does not", Budget{Bytes: 20_000, JSON: true}, quoted[:19_000], true},
		{"JSON: the encoding fits", Budget{Bytes: 30_000, JSON: true}, quoted[:19_000], false},
		{"JSON: far over", Budget{Bytes: 6_500, JSON: true}, quoted, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.Fit(tt.text, "r0123456789ab", "")
			if cut := got != tt.text; cut != tt.wantCut {
				t.Fatalf("Fit(%d bytes, %d lines) cut: %v, want %v", len(tt.text), lineCount(tt.text), cut, tt.wantCut)
			}
			if !tt.b.Fits(got) {
				t.Errorf("Fit(...) = %d bytes (measured %d), %d lines: over %+v", len(got), tt.b.Measure(got), lineCount(got), tt.b)
			}
			if tt.wantCut {
				id := `{"id":"r0123456789ab"`
				if !strings.HasPrefix(got, "[result cut to ") || !strings.Contains(got[:200], id) || !strings.Contains(got[len(got)-200:], id) {
					t.Errorf("a cut result lacks the notice and the id at both ends:\n%.300s\n...\n%s", got, got[len(got)-200:])
				}
				if strings.HasPrefix(tt.text, "00000 ") && !strings.Contains(got, "]\n00000 ") {
					t.Errorf("the head of the text is not kept:\n%.300s", got)
				}
			}
		})
	}
}

// TestBudgetTrim: a page trimmed to a budget ends on a line within its lines and encoding.
func TestBudgetTrim(t *testing.T) {
	var b strings.Builder
	for i := range 3_000 {
		fmt.Fprintf(&b, "l%06d \"quoted\"\n", i)
	}
	text := b.String()
	tests := []struct {
		name      string
		b         Budget
		wantLines int
	}{
		{"lines", Budget{Bytes: 1 << 20, Lines: 1_798}, 1_798},
		{"bytes of the JSON", Budget{Bytes: 8_000, JSON: true}, 8_000 / 20}, // 17 bytes a line, 20 encoded
		{"fits whole", Budget{Bytes: 1 << 20, Lines: 5_000}, 3_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.Trim(text)
			if !tt.b.Fits(got) || !strings.HasPrefix(text, got) || !strings.HasSuffix(got, "\n") {
				t.Fatalf("Trim = %d bytes (measured %d), %d lines: want a prefix of whole lines within %+v", len(got), tt.b.Measure(got), lineCount(got), tt.b)
			}
			if n := lineCount(got); n < tt.wantLines-25 || n > tt.wantLines {
				t.Errorf("Trim kept %d lines, want about %d", n, tt.wantLines)
			}
		})
	}
}

// TestBudgetPerClient: the result budget follows the client's name, over the protocol version
// with a session (initialize) and the stateless one (clientInfo in each request's _meta), and a
// configured budget wins over it.
func TestBudgetPerClient(t *testing.T) {
	big := strings.Repeat("x", 99) + "\n"
	big = strings.Repeat(big, 300) // 30,000 bytes
	tests := []struct {
		name     string
		client   string
		protocol string
		tokens   int
		wantCut  bool
		maxBytes int
	}{
		{"Codex", "codex-mcp-client", "2025-06-18", 0, true, 10_000},
		{"Codex, stateless", "codex-mcp-client", "2026-07-28", 0, true, 10_000},
		{"Qwen Code", "qwen-cli-mcp-client-toolhost", "2025-06-18", 0, true, 22_500},
		{"Claude Code", "claude-code", "2026-07-28", 0, false, 40_000},
		{"unknown client: the default", "my-agent", "2025-11-25", 0, false, 75_000},
		{"configured budget wins", "claude-code", "2026-07-28", 2000, true, 6_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{budgetTokens: tt.tokens, clientName: tt.client, protocol: tt.protocol,
				tools: func(h *harness) []*Tool { return []*Tool{testFileTool(h), ReadToolResultTool()} }})
			h.write(map[string]string{"big.txt": big})
			got, _ := h.mustOp("grep_search", map[string]any{"pattern": "x", "path": "big.txt", "max_results": 1000})
			if len(got) > tt.maxBytes {
				t.Errorf("grep_search result = %d bytes, over %s's budget of %d", len(got), tt.client, tt.maxBytes)
			}
			if cut := strings.HasPrefix(got, "[result cut to "); cut != tt.wantCut {
				t.Errorf("grep_search result of %d bytes starts with a cut notice: %v, want %v", len(got), cut, tt.wantCut)
			}
		})
	}
}

// TestPagesFitTheClient: a read_file page and a read_tool_result page never exceed what the
// calling client passes to its model whole: Kilo Code's 2,000 lines (toolhost's full page
// would be 2,001 with its header), Cline's 8,000 characters of JSON, opencode's 2,000 lines;
// a client not in the table gets the full 2,000-line page.
func TestPagesFitTheClient(t *testing.T) {
	var short, quoted strings.Builder
	for i := 1; i <= 3_000; i++ {
		fmt.Fprintf(&short, "l%06d\n", i)
		fmt.Fprintf(&quoted, "line %d: \"quoted\"\t\\ tab\n", i)
	}
	tests := []struct {
		client   string
		file     string
		limit    ClientLimit // what the client passes whole
		wantLast int         // the page's last line at least
	}{
		{"kilo-code", "short.txt", ClientLimit{Chars: 51_200, Lines: 2_000}, 1_700},
		{"opencode", "short.txt", ClientLimit{Chars: 51_200, Lines: 2_000}, 1_700},
		{"Cline", "quoted.txt", ClientLimit{Chars: 8_000, JSON: true}, 150},
		{"my-agent", "short.txt", ClientLimit{Chars: 1 << 20}, 2_000},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			h := newHarness(t, harnessOptions{clientName: tt.client, tools: func(h *harness) []*Tool { return []*Tool{testFileTool(h), ReadToolResultTool()} }})
			h.write(map[string]string{"short.txt": short.String(), "quoted.txt": quoted.String()})
			within := func(what, text string) {
				t.Helper()
				b := Budget{Bytes: tt.limit.Chars, Lines: tt.limit.Lines, JSON: tt.limit.JSON}
				if !b.Fits(text) {
					t.Errorf("%s: %d bytes (%d as the client counts), %d lines: over the client's limit %+v", what, len(text), b.Measure(text), lineCount(text), tt.limit)
				}
			}
			page, _ := h.mustOp("read_file", map[string]any{"path": tt.file})
			within("read_file page", page)
			var first, last int
			fmt.Sscanf(page[strings.Index(page, ": lines ")+len(": lines "):], "%d-%d", &first, &last)
			if first != 1 || last < tt.wantLast || !strings.Contains(page, fmt.Sprintf("continue with start_line %d", last+1)) {
				t.Errorf("read_file page = lines %d-%d, want 1 to at least %d and where to continue:\n%.200s", first, last, tt.wantLast, page)
			}
			if tt.limit.Chars >= 1<<20 {
				return
			}
			// A result over the client's limit is cut and spilled; its pages fit too.
			big, _ := h.mustOp("grep_search", map[string]any{"pattern": "l", "path": tt.file, "max_results": 3000})
			within("cut grep_search", big)
			id := regexp.MustCompile(`r[0-9a-f]{12}`).FindString(big)
			if id == "" {
				t.Fatalf("grep_search of 3,000 lines was not cut:\n%.300s", big)
			}
			h.tool = "read_tool_result"
			rest, isErr, _ := h.call("read_tool_result", map[string]any{"id": id, "offset": 0})
			h.tool = "file_operations"
			if isErr {
				t.Fatalf("read_tool_result: %s", rest)
			}
			within("read_tool_result page", rest)
		})
	}
}
