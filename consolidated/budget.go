package consolidated

import (
	"fmt"
	"strings"
	"unicode/utf8"
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

// cut keeps the head and the tail of text within max bytes, cut on line boundaries where one is
// near, and puts a marker between them that says how to read the rest.
func cut(text string, max int, id string) string {
	if len(text) <= max {
		return text
	}
	marker := func(from, to int) string {
		return fmt.Sprintf("\n[... %d bytes cut (bytes %d-%d of %d); read them with read_tool_result {\"id\":%q,\"offset\":%d} ...]\n",
			to-from, from, to, len(text), id, from)
	}
	room := max - len(marker(len(text), len(text))) - 16
	if room < 0 {
		room = 0
	}
	headEnd := lineBoundary(text, room*2/3, false)
	tailStart := lineBoundary(text, len(text)-(room-headEnd), true)
	if tailStart < headEnd {
		tailStart = headEnd
	}
	return text[:headEnd] + marker(headEnd, tailStart) + text[tailStart:]
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
