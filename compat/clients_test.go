//go:build compat

package compat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// client is one agent CLI: how to install (package), start (bin) and configure it. setup
// writes the client's config files into the run's home and returns the command-line arguments
// and extra environment. Each setup documents why a setting is there; compat/README.md says the
// same for people.
type client struct {
	name       string
	pkg        string // npm package (version pinned in package.json)
	bin        string // node_modules/.bin entry
	api        API
	transports []string
	setup      func(t *testing.T, r *run) (args, env []string)
}

// clients is the table of agent CLIs the suite drives, the slowest first: runs start in this
// order, COMPAT_PARALLEL at a time.
var clients = []*client{
	{name: "kilo", pkg: "@kilocode/cli", bin: "kilo", api: APIChat, transports: []string{"stdio", "http"}, setup: setupKilo},
	{name: "opencode", pkg: "opencode-ai", bin: "opencode", api: APIChat, transports: []string{"stdio", "http"}, setup: setupOpencode},
	{name: "claude-code", pkg: "@anthropic-ai/claude-code", bin: "claude", api: APIAnthropic, transports: []string{"stdio", "http"}, setup: setupClaude},
	{name: "codex", pkg: "@openai/codex", bin: "codex", api: APIResponses, transports: []string{"stdio", "http"}, setup: setupCodex},
	{name: "gemini-cli", pkg: "@google/gemini-cli", bin: "gemini", api: APIGemini, transports: []string{"stdio", "http"}, setup: setupGemini},
	{name: "qwen-code", pkg: "@qwen-code/qwen-code", bin: "qwen", api: APIChat, transports: []string{"stdio", "http"}, setup: setupQwen},
	{name: "cline", pkg: "cline", bin: "cline", api: APIChat, transports: []string{"stdio", "http"}, setup: setupCline},
	{name: "continue", pkg: "@continuedev/cli", bin: "cn", api: APIChat, transports: []string{"stdio", "http"}, setup: setupContinue},
	{name: "copilot", pkg: "@github/copilot", bin: "copilot", api: APIChat, transports: []string{"stdio", "http"}, setup: setupCopilot},
}

// dummyKey is the API key every client sends; only the fake model sees it.
const dummyKey = "sk-compat-dummy-key-00000000000000000000"

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b))
}

// mcpJSON is the common "mcpServers" entry (Claude Code, Gemini CLI, Qwen Code).
func mcpJSON(r *run, httpKey string, extra map[string]any) map[string]any {
	e := map[string]any{}
	if r.transport == "stdio" {
		e["command"], e["args"] = r.mcp.Command, r.mcp.Args
	} else {
		e[httpKey] = r.mcp.URL
		e["headers"] = map[string]string{"Authorization": "Bearer " + r.mcp.Token}
	}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// Claude Code: the Anthropic Messages API at ANTHROPIC_BASE_URL with a dummy API key, print
// mode (-p), the server from --mcp-config only (--strict-mcp-config), and its tools allowed
// without prompts (--allowedTools mcp__toolhost). Running as root rules out
// --dangerously-skip-permissions.
func setupClaude(t *testing.T, r *run) (args, env []string) {
	entry := mcpJSON(r, "url", nil)
	if r.transport == "stdio" {
		entry["type"] = "stdio"
	} else {
		entry["type"] = "http"
	}
	cfg := filepath.Join(r.dir, "claude-mcp.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{"toolhost": entry}})
	// Skip the first-run onboarding and the API-key approval dialog.
	writeJSONFile(t, filepath.Join(r.home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true, "bypassPermissionsModeAccepted": true,
		"customApiKeyResponses": map[string]any{"approved": []string{dummyKey[len(dummyKey)-20:]}, "rejected": []string{}},
	})
	args = []string{"-p", r.prompt, "--mcp-config", cfg, "--strict-mcp-config", "--allowedTools", "mcp__toolhost",
		"--model", "claude-sonnet-4-5", "--output-format", "json", "--max-turns", "30"}
	env = []string{
		"ANTHROPIC_BASE_URL=" + r.modelURL,
		"ANTHROPIC_API_KEY=" + dummyKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", // telemetry, error reports, update checks
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
		"MCP_TIMEOUT=60000",
	}
	if r.connected {
		// toolhost connect wrote the server into ~/.claude.json, the user scope, which Claude
		// Code reads when CLAUDE_CONFIG_DIR does not move its config.
		args = slices.Delete(args, 2, 5)
	} else {
		env = append(env, "CLAUDE_CONFIG_DIR="+filepath.Join(r.home, ".claude"))
	}
	return args, env
}

// Codex: a custom model provider (the OpenAI Responses API at the fake model, key from an env
// var), `codex exec` with no approvals and no sandbox (the suite's temp dirs are the sandbox),
// analytics and update checks off. CODEX_HOME keeps its config in the run's home.
func setupCodex(t *testing.T, r *run) (args, env []string) {
	var server string
	if r.transport == "stdio" {
		server = fmt.Sprintf("command = %s\nargs = %s\n", tomlString(r.mcp.Command), tomlStrings(r.mcp.Args))
	} else {
		server = fmt.Sprintf("url = %s\nbearer_token_env_var = \"COMPAT_TOOLHOST_TOKEN\"\n", tomlString(r.mcp.URL))
	}
	cfg := fmt.Sprintf(`model = "compat-model"
model_provider = "compat"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.compat]
name = "compat"
base_url = %s
env_key = "COMPAT_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false

[otel]
exporter = "none"

[mcp_servers.toolhost]
%sstartup_timeout_sec = 60
tool_timeout_sec = 120
`, tomlString(r.modelURL+"/v1"), server)
	codexHome := filepath.Join(r.home, ".codex")
	writeFile(t, filepath.Join(codexHome, "config.toml"), cfg)
	args = []string{"exec", "--skip-git-repo-check", "--color", "never", "-C", r.work, r.prompt}
	env = []string{"CODEX_HOME=" + codexHome, "COMPAT_API_KEY=" + dummyKey, "COMPAT_TOOLHOST_TOKEN=" + r.mcp.Token}
	return args, env
}

func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Gemini CLI: the Gemini API at GOOGLE_GEMINI_BASE_URL with a dummy GEMINI_API_KEY, the
// server trusted (no confirmation), yolo approval, folder trust, telemetry, usage statistics
// and update checks off.
func setupGemini(t *testing.T, r *run) (args, env []string) {
	settings := geminiSettings(r, "gemini-api-key")
	settings["general"] = map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true}
	settings["ui"] = map[string]any{"hideTips": true, "hideBanner": true}
	writeJSONFile(t, filepath.Join(r.home, ".gemini", "settings.json"), settings)
	args = []string{"-p", r.prompt, "--yolo", "-m", "gemini-2.5-pro", "--output-format", "json"}
	env = []string{"GEMINI_API_KEY=" + dummyKey, "GOOGLE_GEMINI_BASE_URL=" + r.modelURL, "GEMINI_CLI_NO_RELAUNCH=true"}
	return args, env
}

// geminiSettings is the settings.json part Gemini CLI and its fork Qwen Code share: the
// server, trusted (no confirmations); the auth type; folder trust, usage statistics and
// telemetry off.
func geminiSettings(r *run, auth string) map[string]any {
	return map[string]any{
		"mcpServers": map[string]any{"toolhost": mcpJSON(r, "httpUrl", map[string]any{"trust": true, "timeout": 120000})},
		"security":   map[string]any{"auth": map[string]any{"selectedType": auth}, "folderTrust": map[string]any{"enabled": false}},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
		"telemetry":  map[string]any{"enabled": false},
	}
}

// opencodeConfig is the configuration opencode and its fork Kilo Code share: a custom
// provider on the bundled OpenAI-compatible SDK, the server, every permission allowed.
func opencodeConfig(r *run, schema string) map[string]any {
	var server map[string]any
	if r.transport == "stdio" {
		server = map[string]any{"type": "local", "command": append([]string{r.mcp.Command}, r.mcp.Args...), "enabled": true, "timeout": 60000}
	} else {
		server = map[string]any{"type": "remote", "url": r.mcp.URL, "enabled": true, "oauth": false, "timeout": 60000,
			"headers": map[string]string{"Authorization": "Bearer " + r.mcp.Token}}
	}
	cfg := map[string]any{
		"$schema": schema,
		"provider": map[string]any{"compat": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "compat",
			"options": map[string]any{"baseURL": r.modelURL + "/v1", "apiKey": dummyKey},
			"models":  map[string]any{"compat-model": map[string]any{"name": "compat-model", "tool_call": true, "limit": map[string]any{"context": 200000, "output": 8192}}},
		}},
		"model":       "compat/compat-model",
		"small_model": "compat/compat-model",
		"mcp":         map[string]any{"toolhost": server},
		"permission":  map[string]any{"*": "allow"},
		"autoupdate":  false,
		"share":       "disabled",
	}
	if r.connected {
		// The server comes from the global config toolhost connect wrote, which the client
		// merges with this one.
		delete(cfg, "mcp")
	}
	return cfg
}

// opencode: a custom provider on the bundled OpenAI-compatible SDK (Chat Completions at the
// fake model), the server as a local or remote MCP entry, every permission allowed, and
// autoupdate, sharing, the models.dev catalogue and LSP downloads off.
func setupOpencode(t *testing.T, r *run) (args, env []string) {
	cfg := filepath.Join(r.dir, "opencode.json")
	writeJSONFile(t, cfg, opencodeConfig(r, "https://opencode.ai/config.json"))
	args = []string{"run", "--model", "compat/compat-model", r.prompt}
	env = []string{"OPENCODE_CONFIG=" + cfg, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_PURE=1"} // no plugin installs from npm
	return args, env
}

// Qwen Code: OpenAI-compatible auth (Chat Completions at OPENAI_BASE_URL with a dummy key),
// the server trusted, yolo approval, telemetry, usage statistics and update checks off.
func setupQwen(t *testing.T, r *run) (args, env []string) {
	settings := geminiSettings(r, "openai")
	settings["general"] = map[string]any{"enableAutoUpdate": false} // 0.24 renamed disableAutoUpdate
	settings["model"] = map[string]any{"name": "compat-model"}
	writeJSONFile(t, filepath.Join(r.home, ".qwen", "settings.json"), settings)
	args = []string{"-p", r.prompt, "--yolo", "--output-format", "json"}
	env = []string{"OPENAI_API_KEY=" + dummyKey, "OPENAI_BASE_URL=" + r.modelURL + "/v1", "OPENAI_MODEL=compat-model"}
	return args, env
}

// Cline (CLI): an OpenAI-compatible provider (Chat Completions at the fake model) in
// ~/.cline/data/settings/providers.json, as `cline auth -p openai -b URL` writes it, and the
// server in cline_mcp_settings.json beside it, as `cline mcp add --yes` writes it (a
// "transport" object per server). A prompt argument runs one task with every tool
// auto-approved; --json prints its messages.
func setupCline(t *testing.T, r *run) (args, env []string) {
	settings := filepath.Join(r.home, ".cline", "data", "settings")
	writeJSONFile(t, filepath.Join(settings, "providers.json"), map[string]any{
		"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
		"providers": map[string]any{"openai-compatible": map[string]any{
			"settings":    map[string]any{"provider": "openai-compatible", "apiKey": dummyKey, "model": "compat-model", "baseUrl": r.modelURL + "/v1"},
			"updatedAt":   "2026-01-01T00:00:00.000Z",
			"tokenSource": "manual",
		}},
	})
	var transport map[string]any
	if r.transport == "stdio" {
		transport = map[string]any{"type": "stdio", "command": r.mcp.Command, "args": r.mcp.Args}
	} else {
		transport = map[string]any{"type": "streamableHttp", "url": r.mcp.URL, "headers": map[string]string{"Authorization": "Bearer " + r.mcp.Token}}
	}
	writeJSONFile(t, filepath.Join(settings, "cline_mcp_settings.json"), map[string]any{
		"mcpServers": map[string]any{"toolhost": map[string]any{"transport": transport}}})
	args = []string{"--json", "-c", r.work, "--compaction", "off", r.prompt}
	return args, nil
}

// Kilo Code (CLI), opencode's fork: the same configuration as opencode under its own names
// (KILO_CONFIG, KILO_DISABLE_*, KILO_PURE), and `kilo run --auto` (permissions not denied
// are granted).
func setupKilo(t *testing.T, r *run) (args, env []string) {
	cfg := filepath.Join(r.dir, "kilo.json")
	writeJSONFile(t, cfg, opencodeConfig(r, "https://kilo.ai/config.json"))
	args = []string{"run", "--auto", "--model", "compat/compat-model", r.prompt}
	env = []string{"KILO_CONFIG=" + cfg, "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_MODELS_FETCH=1",
		"KILO_DISABLE_LSP_DOWNLOAD=1", "KILO_DISABLE_DEFAULT_PLUGINS=1", "KILO_DISABLE_SHARE=1",
		"KILO_DISABLE_CODEBASE_INDEXING=1", "KILO_TELEMETRY_LEVEL=off", "KILO_PURE=1"}
	return args, env
}

// Continue (CLI, cn): a local config.yaml (--config) with an OpenAI-compatible model at the
// fake model and the server under mcpServers; -p runs headless, --auto allows every tool.
// Telemetry off (CONTINUE_CLI_ENABLE_TELEMETRY).
func setupContinue(t *testing.T, r *run) (args, env []string) {
	var server string
	if r.transport == "stdio" {
		server = fmt.Sprintf("    command: %s\n    args: %s\n", tomlString(r.mcp.Command), tomlStrings(r.mcp.Args))
	} else {
		server = fmt.Sprintf("    type: streamable-http\n    url: %s\n    requestOptions:\n      headers:\n        Authorization: %s\n",
			tomlString(r.mcp.URL), tomlString("Bearer "+r.mcp.Token))
	}
	cfg := filepath.Join(r.home, ".continue", "config.yaml")
	writeFile(t, cfg, fmt.Sprintf(`name: compat
version: 0.0.1
schema: v1
models:
  - name: compat-model
    provider: openai
    model: compat-model
    apiBase: %s
    apiKey: %s
    roles: [chat, edit, apply]
    capabilities: [tool_use]
mcpServers:
  - name: toolhost
%s`, tomlString(r.modelURL+"/v1"), tomlString(dummyKey), server))
	args = []string{"-p", "--auto", "--config", cfg, r.prompt}
	env = []string{"CONTINUE_CLI_ENABLE_TELEMETRY=0", "CONTINUE_METRICS_ENABLED=0", "CONTINUE_GLOBAL_DIR=" + filepath.Join(r.home, ".continue")}
	return args, env
}

// GitHub Copilot CLI: a custom model provider (BYOK: Chat Completions at the fake model) in
// offline mode (no GitHub sign-in, telemetry or updates), the server in COPILOT_HOME's
// mcp-config.json as `copilot mcp add` writes it, and -p with every tool allowed.
func setupCopilot(t *testing.T, r *run) (args, env []string) {
	server := map[string]any{"tools": []string{"*"}}
	if r.transport == "stdio" {
		server["type"], server["command"], server["args"] = "local", r.mcp.Command, r.mcp.Args
	} else {
		server["type"], server["url"] = "http", r.mcp.URL
		server["headers"] = map[string]string{"Authorization": "Bearer " + r.mcp.Token}
	}
	home := filepath.Join(r.home, ".copilot")
	writeJSONFile(t, filepath.Join(home, "mcp-config.json"), map[string]any{"mcpServers": map[string]any{"toolhost": server}})
	args = []string{"-p", r.prompt, "--allow-all-tools", "--no-auto-update", "--disable-client-telemetry", "--output-format", "json", "-C", r.work}
	env = []string{"COPILOT_HOME=" + home, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + r.modelURL + "/v1",
		"COPILOT_PROVIDER_API_KEY=" + dummyKey, "COPILOT_MODEL=compat-model", "COPILOT_AUTO_UPDATE=false", "COPILOT_ALLOW_ALL=1"}
	return args, env
}

// unavailable are the agent CLIs users run that cannot run here, each with why: the suite
// says so per client (TestUnavailableClients, and the record's table) rather than leaving
// them out without a word.
var unavailable = []struct{ name, title, pkg, version, why string }{
	{"crush", "Crush", "@charmland/crush", "0.96.1", "its npm package downloads the binary from outside the registries at install, and the Go module proxy refuses the module"},
	{"kilo-7.8", "Kilo Code 7.8", "@kilocode/cli", "7.8.1", "no Linux binary package of 7.8.1 in the registry (7.7.7 runs)"},
}

// TestUnavailableClients names each client that cannot run here and why.
func TestUnavailableClients(t *testing.T) {
	for _, u := range unavailable {
		t.Run(u.name, func(t *testing.T) {
			t.Skipf("%s (%s %s) cannot run here: %s", u.title, u.pkg, u.version, u.why)
		})
	}
}
