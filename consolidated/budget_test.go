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
			got := cut(tt.text, tt.max, tt.id, why)
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
	if got := cut("short", 100, "r0123456789ab", ""); got != "short" {
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

func TestClientBudget(t *testing.T) {
	tests := []struct {
		name   string
		client *mcp.Implementation
		want   int
	}{
		{"Claude Code", &mcp.Implementation{Name: "claude-code", Version: "2.1.331"}, 40_000},
		{"Codex", &mcp.Implementation{Name: "codex-mcp-client", Version: "0.169.0"}, 10_000},
		{"Qwen Code", &mcp.Implementation{Name: "qwen-cli-mcp-client-toolhost"}, 20_000},
		{"opencode", &mcp.Implementation{Name: "opencode"}, 40_000},
		{"Gemini CLI", &mcp.Implementation{Name: "gemini-cli-mcp-client", Version: "0.61.0"}, 36_000},
		{"unknown client", &mcp.Implementation{Name: "my-agent"}, 0},
		{"no client info", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clientBudget(tt.client); got != tt.want {
				t.Errorf("clientBudget(%v) = %d, want %d", tt.client, got, tt.want)
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
		{"Qwen Code", "qwen-cli-mcp-client-toolhost", "2025-06-18", 0, true, 20_000},
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
