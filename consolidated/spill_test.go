package consolidated

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

type sizedArgs struct {
	N int `json:"n" jsonschema:"Bytes of text to return."`
}

// sizedTool answers with a text of exactly n bytes (lines of 50), so tests can put a result on
// either side of the budget.
func sizedTool() *Tool {
	return &Tool{Name: "think", Description: "test tool", Single: true, Operations: []Operation{
		Op("think", "return n bytes", RiskRead, func(ctx context.Context, c *Call, a *sizedArgs) (*Result, error) {
			line := strings.Repeat("x", 49) + "\n"
			text := strings.Repeat(line, a.N/len(line)+1)[:a.N]
			return &Result{Text: text}, nil
		}),
	}}
}

// spillHarness serves sizedTool and read_tool_result with a budget of 300 tokens (900 bytes).
func spillHarness(t *testing.T) (*harness, int) {
	h := newHarness(t, harnessOptions{budgetTokens: 300, tools: func(h *harness) []*Tool {
		return []*Tool{sizedTool(), ReadToolResultTool()}
	}})
	return h, budgetBytes(300)
}

var cutNotice = regexp.MustCompile(`^\[result cut to \d+ of (\d+) bytes: .*\{"id":"(r[0-9a-f]{12})"`)

// TestResultBudgetBothSides: a result up to the budget comes whole; a longer one is cut to the
// budget with the id read_tool_result pages the full text with.
func TestResultBudgetBothSides(t *testing.T) {
	h, budget := spillHarness(t)
	for _, tt := range []struct {
		name string
		n    int
		cut  bool
	}{
		{"just under", budget - 1, false},
		{"at", budget, false},
		{"just over", budget + 1, true},
		{"far over", 100 * budget, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, isErr, _ := h.call("think", map[string]any{"n": tt.n})
			m := cutNotice.FindStringSubmatch(got)
			switch {
			case isErr:
				t.Fatalf("a result of %d bytes: %s", tt.n, got)
			case !tt.cut && (len(got) != tt.n || m != nil):
				t.Errorf("a result of %d bytes (budget %d) came as %d bytes, want it whole: %.100s", tt.n, budget, len(got), got)
			case tt.cut && (m == nil || m[1] != fmt.Sprint(tt.n) || len(got) > budget):
				t.Errorf("a result of %d bytes (budget %d) = %d bytes: %.200s; want it cut to the budget, with an id", tt.n, budget, len(got), got)
			}
		})
	}
}

// TestReadToolResultPageBothSides: read_tool_result returns at most the budget less room for
// its head line (Budget.Page), whatever length is asked; up to that, the length asked.
func TestReadToolResultPageBothSides(t *testing.T) {
	h, budget := spillHarness(t)
	got, _, _ := h.call("think", map[string]any{"n": 100 * budget})
	m := cutNotice.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no cut notice in %.200s", got)
	}
	max := Budget{Bytes: budget}.Page().Bytes
	head := regexp.MustCompile(`^\[r[0-9a-f]{12} bytes (\d+)-(\d+) of \d+; next offset \d+\]\n`)
	for _, tt := range []struct {
		name         string
		length, want int
	}{
		{"just under", max - 1, max - 1},
		{"at", max, max},
		{"just over", max + 1, max},
		{"far over", 1000 * max, max},
		{"none asked", 0, max},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page, isErr, _ := h.call("read_tool_result", map[string]any{"id": m[2], "length": tt.length})
			hm := head.FindStringSubmatch(page)
			if isErr || hm == nil {
				t.Fatalf("read_tool_result(length %d) = %.200s", tt.length, page)
			}
			var from, to int
			fmt.Sscan(hm[1], &from)
			fmt.Sscan(hm[2], &to)
			if to-from != tt.want || len(page)-len(hm[0]) != tt.want || len(page) > budget {
				t.Errorf("read_tool_result(length %d) = bytes %d-%d, %d in all; want %d bytes within the budget of %d", tt.length, from, to, len(page), tt.want, budget)
			}
		})
	}
}

// TestSpillMaxBytesBothSides: the texts kept fit in MaxBytes, the oldest going first; the text
// just put is kept whatever its size, its id being handed out.
func TestSpillMaxBytesBothSides(t *testing.T) {
	const max = 100
	for _, tt := range []struct {
		name      string
		second    int
		firstKept bool
	}{
		{"just under", max - 51, true},
		{"at", max - 50, true},
		{"just over", max - 49, false},
		{"far over", 10 * max, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := NewSpill(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sp.MaxBytes = max
			first, err := sp.Put("c", strings.Repeat("a", 50))
			if err != nil {
				t.Fatal(err)
			}
			// Older by a minute: file times are too coarse to order two puts in a row.
			old := time.Now().Add(-time.Minute)
			os.Chtimes(sp.path("c", first), old, old)
			second, err := sp.Put("c", strings.Repeat("b", tt.second))
			if err != nil {
				t.Fatal(err)
			}
			_, _, _, err = sp.Page("c", first, 0, 10)
			if kept := err == nil; kept != tt.firstKept {
				t.Errorf("50 bytes then %d under MaxBytes %d: the first kept %v, want %v", tt.second, max, kept, tt.firstKept)
			}
			if _, _, total, err := sp.Page("c", second, 0, 10); err != nil || total != int64(tt.second) {
				t.Errorf("the text just put = %d bytes, %v; want it kept whole", total, err)
			}
		})
	}
}
