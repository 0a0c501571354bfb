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

// ClientLimit is what one client passes to its model whole: a tool result of more than Chars
// characters or more than Lines lines is cut, previewed or moved to a file by the client
// itself, and the model reads what the client kept instead of what toolhost sent. The compat
// suite keeps each row true: it fails when a client cuts a result toolhost sent whole, and
// its probe run records where each client's own cut begins (docs/clients.md).
type ClientLimit struct {
	// Client names the client in docs and reports.
	Client string
	// Match is a word of the lowercased clientInfo name the client sends.
	Match string
	// Chars and Lines are the client's limits (0: none of that kind).
	Chars, Lines int
	// JSON says Chars counts the result's JSON encoding (escapes and all), not its text.
	JSON bool
	// Cut is what the client does to a result over its limit.
	Cut string
}

// ClientLimits is the table of the clients that cut long tool results themselves. toolhost
// keeps every result below the calling client's row (Budget), with its own marker and the
// read_tool_result id, so no client ever cuts what toolhost sends. A client not in the table
// gets DefaultBudgetTokens. The rows are in the order docs/clients.md lists them.
var ClientLimits = []ClientLimit{
	{Client: "Claude Code", Match: "claude", Chars: 50_000, Cut: "a 2 KB preview, the rest in a file"},
	{Client: "Codex", Match: "codex", Chars: 11_000, Cut: "about 12 KB, head and tail"},
	{Client: "Gemini CLI", Match: "gemini", Chars: 40_000, Cut: "about 40 KB, head and tail"},
	{Client: "opencode", Match: "opencode", Chars: 51_200, Lines: 2_000, Cut: "the first 2,000 lines or 50 KB, the rest in a file"},
	{Client: "Qwen Code", Match: "qwen", Chars: 25_000, Cut: "a 2.4 KB preview"},
	{Client: "Cline", Match: "cline", Chars: 8_000, JSON: true, Cut: "8,000 characters of the result's JSON, head and tail, no word of the gap"},
	{Client: "Kilo Code", Match: "kilo", Chars: 51_200, Lines: 2_000, Cut: "the first 2,000 lines or 50 KB, no word of the rest"},
	{Client: "GitHub Copilot CLI", Match: "copilot", Chars: 20_000, Cut: "a file and a 500-character preview"},
}

// LimitFor returns the row of the client that sent info, and whether there is one.
func LimitFor(info *mcp.Implementation) (ClientLimit, bool) {
	if info == nil {
		return ClientLimit{}, false
	}
	name := strings.ToLower(info.Name)
	for _, l := range ClientLimits {
		if strings.Contains(name, l.Match) {
			return l, true
		}
	}
	return ClientLimit{}, false
}

// jsonForwarders are clients that hand the model each tool result as its whole JSON
// encoding although they cut nothing (so they have no row in ClientLimits): mcp-use's agent
// adapters stringify the result.
var jsonForwarders = []string{"mcp-use"}

// ForwardsJSON reports whether the client that sent info shows the model a result's whole
// JSON encoding (a ClientLimits row with JSON set, or jsonForwarders): for it, every key of
// the result costs the model tokens, _meta included.
func ForwardsJSON(info *mcp.Implementation) bool {
	if l, ok := LimitFor(info); ok && l.JSON {
		return true
	}
	if info == nil {
		return false
	}
	name := strings.ToLower(info.Name)
	for _, m := range jsonForwarders {
		if strings.Contains(name, m) {
			return true
		}
	}
	return false
}

// OutputLimits are the user's own limits of their client ([output] max_result_chars and
// max_result_lines): set, they replace the client's row of ClientLimits.
type OutputLimits struct {
	MaxResultChars int
	MaxResultLines int
}

// Budget is how large one result may be for the calling client: its main text, once the
// reminders and notes that follow it are counted in (reserve).
type Budget struct {
	// Bytes bounds the text (its JSON encoding when JSON is set).
	Bytes int
	// Lines bounds its lines; 0 sets no bound.
	Lines int
	// JSON measures the text as the client does: JSON-encoded.
	JSON bool
}

// ResultBudget is the one place that decides a result's budget: the token budget (configured,
// else DefaultBudgetTokens), kept below the client's own limit (the user's [output] limits,
// else the client's row of ClientLimits) by a reserve for the reminders and notes that follow
// the text. Every handler that stops at the budget and the final cut read it through
// Call.Budget; `toolhost connect --print` shows it.
func ResultBudget(tokens int, out OutputLimits, info *mcp.Implementation) Budget {
	b := Budget{Bytes: budgetBytes(tokens)}
	lim, _ := LimitFor(info)
	if out.MaxResultChars > 0 || out.MaxResultLines > 0 {
		lim = ClientLimit{Chars: out.MaxResultChars, Lines: out.MaxResultLines}
	}
	if lim.Chars > 0 {
		// Characters as a JavaScript client counts them (UTF-16 units) are never more than
		// UTF-8 bytes, so bytes under the limit are characters under it.
		b.Bytes = min(b.Bytes, lim.Chars-reserve(lim.Chars, 1_500))
		b.JSON = lim.JSON
	}
	if lim.Lines > 0 {
		b.Lines = lim.Lines - reserve(lim.Lines, 40)
	}
	return b
}

// reserve is the room kept under a client's limit for what follows the main text: a
// reminder block (max_tokens, 300 by default), the call's notes, the client's own wrapping.
func reserve(limit, least int) int {
	return min(max(limit/10, least), limit/2)
}

// Measure is the size of text as the budget counts it: bytes, or bytes of its JSON encoding.
func (b Budget) Measure(text string) int {
	if !b.JSON {
		return len(text)
	}
	n := len(text) + 2
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// Fits reports whether text is within the budget, bytes and lines.
func (b Budget) Fits(text string) bool {
	return b.Measure(text) <= b.Bytes && (b.Lines <= 0 || lineCount(text) <= b.Lines)
}

// lineCount counts the lines of text as an editor shows them (a last line without a newline
// counts).
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// Page is the budget of a page a handler reads to fit (read_file, read_tool_result): the
// budget less room for the line in front of the page.
func (b Budget) Page() Budget {
	p := b
	p.Bytes -= min(512, b.Bytes/4)
	if p.Lines > 0 {
		p.Lines = max(1, p.Lines-2)
	}
	return p
}

// Trim shortens a page to the budget from its end: to its first Lines lines, then to the
// bytes whose measure fits, ending on a line boundary where one is near (lineBoundary). The
// page's next offset follows from its length.
func (b Budget) Trim(text string) string {
	if b.Lines > 0 && lineCount(text) > b.Lines {
		text = text[:afterLines(text, b.Lines)]
	}
	if b.Measure(text) <= b.Bytes {
		return text
	}
	end := b.prefix(text)
	if e := lineBoundary(text, end, false); e > 0 {
		end = e
	}
	return text[:end]
}

// prefix is the length of the longest prefix of text, ending on a rune boundary, whose
// measure is within the budget's bytes.
func (b Budget) prefix(text string) int {
	room := b.Bytes - b.Measure("")
	end := 0
	for i := 0; i < len(text) && room >= 0; i++ {
		room -= b.Measure(text[i:i+1]) - b.Measure("")
		if room >= 0 {
			end = i + 1
		}
	}
	for end > 0 && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	return end
}

// Fit cuts text to the budget (see cut), measuring as the budget does: a JSON budget moves
// the cut until the encoded text fits.
func (b Budget) Fit(text, id, why string) string {
	if b.Fits(text) {
		return text
	}
	maxBytes := b.Bytes
	var out string
	for range 6 {
		out = cut(text, maxBytes, b.Lines, id, why)
		over := b.Measure(out) - b.Bytes
		if over <= 0 {
			break
		}
		maxBytes -= over + 64
	}
	return out
}

// cut fits text into max bytes and, when maxLines is set, maxLines lines: a notice with the
// read_tool_result id first, then the head, a marker where bytes were left out, the tail, and
// a summary line last. Clients cut long results again on their own (most keep the head and
// drop the rest, Codex keeps head and tail), so the way to the full text is at both ends,
// never only in the middle. Without an id (the full text could not be kept) both say why:
// lost, the model would only call again.
func cut(text string, maxBytes, maxLines int, id, why string) string {
	if len(text) <= maxBytes && (maxLines <= 0 || lineCount(text) <= maxLines) {
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
	room := maxBytes - len(notice(n, n)) - len(gap(n, n)) - len(summary(n, n)) - 8
	if room < 0 {
		room = 0
	}
	headEnd := lineBoundary(text, room*2/3, false)
	tailStart := lineBoundary(text, len(text)-(room-headEnd), true)
	if maxLines > 0 {
		// The notice, the gap marker and the summary take five lines of their own.
		lines := max(0, maxLines-6)
		headEnd = min(headEnd, afterLines(text, lines*2/3))
		tailStart = max(tailStart, beforeLines(text, lines-lines*2/3))
	}
	if tailStart < headEnd {
		tailStart = headEnd
	}
	return notice(headEnd, tailStart) + text[:headEnd] + gap(headEnd, tailStart) + text[tailStart:] + summary(headEnd, tailStart)
}

// afterLines is the offset just after the first n lines of text (len(text) when it has fewer).
func afterLines(text string, n int) int {
	i := 0
	for range n {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return len(text)
		}
		i += j + 1
	}
	return i
}

// beforeLines is the offset where the last n lines of text begin (0 when it has fewer); a last
// line without a newline counts.
func beforeLines(text string, n int) int {
	if n <= 0 {
		return len(text)
	}
	i := len(text)
	if strings.HasSuffix(text, "\n") {
		i--
	}
	for range n {
		j := strings.LastIndexByte(text[:i], '\n')
		if j < 0 {
			return 0
		}
		i = j
	}
	return i + 1
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
