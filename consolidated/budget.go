package consolidated

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultBudgetTokens is the per-result budget for clients with large contexts; Claude Code, for
// one, refuses MCP results above 25,000 tokens.
const DefaultBudgetTokens = 25000

// bytesPerToken converts a token budget to bytes. Code and logs run at 3.5–4.5 bytes per o200k
// token; 3 keeps dense text (JSON, numbers) inside the budget too.
const bytesPerToken = 3

// budgetBytes is the largest text a result may carry.
func budgetBytes(tokens int) int {
	if tokens <= 0 {
		tokens = DefaultBudgetTokens
	}
	return tokens * bytesPerToken
}

// EstimateTokens is a cheap token estimate used where a tokenizer would cost more than it tells
// (the CLI's listing, reminder caps).
func EstimateTokens(s string) int {
	return (len(s) + 3) / 4
}

// clientBudgets are the default result budgets, in bytes, of the clients that cut long tool
// results themselves, keyed by a word of the clientInfo name they send. Each is below the size
// at which that client cuts or previews a result, so the model reads what toolhost kept: the
// notice, the head and the tail. A configured budget_tokens overrides them all.
//
// Measured by the compat suite: Claude Code keeps results up to 50,000 characters whole and
// shows a 2 KB preview of larger ones; Codex keeps about 10 KB, head and tail; Qwen Code keeps
// 25,000 characters (and 1,000 lines) and previews beyond; opencode keeps 50 KB (and 2,000
// lines); Gemini CLI keeps about 40,000 characters, head and tail.
var clientBudgets = []struct {
	Match string // a word of the lowercased clientInfo name
	Bytes int
}{
	{"claude", 40_000},
	{"codex", 10_000},
	{"qwen", 20_000},
	{"opencode", 40_000},
	{"gemini", 36_000},
}

// clientBudget is the budget of the client that sent info, or 0 when toolhost knows no budget
// for it.
func clientBudget(info *mcp.Implementation) int {
	if info == nil {
		return 0
	}
	name := strings.ToLower(info.Name)
	for _, b := range clientBudgets {
		if strings.Contains(name, b.Match) {
			return b.Bytes
		}
	}
	return 0
}

// cut fits text into max bytes: a notice with the read_tool_result id first, then the head,
// a marker where bytes were left out, the tail, and a summary line last. Clients cut long
// results again on their own (most keep the head and drop the rest, Codex keeps head and tail),
// so the way to the full text is at both ends, never only in the middle. Without an id (the
// full text could not be kept) both say why: lost, the model would only call again.
func cut(text string, max int, id, why string) string {
	if len(text) <= max {
		return text
	}
	how := "the full text was not kept: " + why
	if id != "" {
		how = fmt.Sprintf("the read_tool_result tool pages the rest: {\"id\":%q,\"offset\":OFFSET}", id)
	}
	notice := func(from, to int) string {
		return fmt.Sprintf("[result cut to %d of %d bytes: bytes %d-%d are left out; %s]\n",
			len(text)-(to-from), len(text), from, to, strings.Replace(how, "OFFSET", fmt.Sprint(from), 1))
	}
	gap := func(from, to int) string {
		return fmt.Sprintf("\n[... %d bytes left out (bytes %d-%d) ...]\n", to-from, from, to)
	}
	summary := func(from, to int) string {
		return fmt.Sprintf("\n[end of a cut result: bytes %d-%d of %d were left out; %s]", from, to, len(text),
			strings.Replace(how, "OFFSET", fmt.Sprint(from), 1))
	}
	n := len(text)
	room := max - len(notice(n, n)) - len(gap(n, n)) - len(summary(n, n)) - 8
	if room < 0 {
		room = 0
	}
	headEnd := lineBoundary(text, room*2/3, false)
	tailStart := lineBoundary(text, len(text)-(room-headEnd), true)
	if tailStart < headEnd {
		tailStart = headEnd
	}
	return notice(headEnd, tailStart) + text[:headEnd] + gap(headEnd, tailStart) + text[tailStart:] + summary(headEnd, tailStart)
}

// lineBoundary moves i to a nearby line start (within 512 bytes), else to a rune boundary.
func lineBoundary(text string, i int, forward bool) int {
	i = max(0, min(i, len(text)))
	if forward {
		if j := strings.IndexByte(text[i:min(len(text), i+512)], '\n'); j >= 0 {
			return i + j + 1
		}
		for i < len(text) && !utf8.RuneStart(text[i]) {
			i++
		}
		return i
	}
	if j := strings.LastIndexByte(text[max(0, i-512):i], '\n'); j >= 0 {
		return max(0, i-512) + j + 1
	}
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}
