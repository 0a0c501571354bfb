//go:build compat

// Package compat is toolhost's compatibility suite: it drives real, version-pinned agent CLIs
// (Claude Code, Codex, opencode, Qwen Code, Cline, Kilo Code, Continue, GitHub Copilot CLI, and
// the retired Gemini CLI), agent libraries (the OpenAI Agents SDK, mcp-use, mcp-go) and MCP
// clients (the TypeScript SDK, the MCP Inspector CLI, the go-sdk) against the real toolhost
// binary, and checks what reaches the model: whole, as toolhost cut it to the client's own
// limit (TestClientLimits keeps consolidated.ClientLimits true), on the entry `toolhost
// connect` wrote (TestConnectedClients). Its record (COMPAT_RECORD) generates docs/clients.md's
// table (package compat/table). It also runs the generic server scenarios of the MCP conformance package
// (@modelcontextprotocol/conformance) against toolhost serve (TestConformance).
//
// The model is a scripted fake on loopback (Model) that speaks the wire formats the CLIs use: the
// Anthropic Messages API, the OpenAI Responses and Chat Completions APIs, and the Gemini API. It
// answers every turn of the main conversation with the next tool call of a fixed script, and
// records every request, so the tests can look at the tool results exactly as each CLI forwarded
// them: file contents, command output, diffs, the cut marker, todo reminders, duplicates.
// Between each CLI and toolhost sits a recorder (stdio or HTTP) that keeps the MCP traffic, from
// which the negotiated protocol version and what toolhost actually sent are read.
//
// The package builds only with the compat build tag, so the README's plain `go test ./...` needs
// no Node.js; `.ci/run` installs the pinned clients (package-lock.json) and runs
// `go test -tags compat ./compat/`. See compat/README.md for each client's setup.
package compat
