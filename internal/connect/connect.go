// Package connect writes toolhost's entry into an MCP client's own configuration file, and
// takes it out again: the shape and place each client reads (JSON, JSONC with comments, TOML,
// YAML), changed where the entry stands and nowhere else, so that the rest of the file stays
// byte for byte. A file that does not parse is never written over.
package connect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Entry is what a client needs to reach toolhost: a command to start (stdio), or a URL and
// bearer token (streamable HTTP).
type Entry struct {
	Command string
	Args    []string
	URL     string
	Token   string
}

// HTTP reports whether the entry is an HTTP one.
func (e Entry) HTTP() bool { return e.URL != "" }

// Format is how a client's file is written.
type Format string

const (
	JSON Format = "json" // JSON, or JSONC where the client allows comments
	TOML Format = "toml"
	YAML Format = "yaml"
)

// Client is one client's configuration: where its file is, how it is written, and the shape
// of a server entry in it.
type Client struct {
	// Name is what `toolhost connect NAME` takes; Title is the client's own name.
	Name, Title string
	Format      Format
	// Path is the file, from the user's home and config directory (XDG_CONFIG_HOME, or the
	// platform's); Env names a variable that moves it (CODEX_HOME), with the file under it.
	Path func(home, config string) string
	Env  string
	// Key is the path of the servers object (JSON: object keys; TOML: the table prefix;
	// YAML: the list's key).
	Key []string
	// Value is a server entry of toolhost; nil http means the client's file takes no HTTP
	// servers.
	Stdio func(e Entry) any
	HTTP  func(e Entry) any
	// Note is shown after the entry is written: what the user does next.
	Note string
	// ClientInfo is the name the client sends in clientInfo, by which toolhost knows its
	// result limit ("" when the suite has not seen it).
	ClientInfo string
}

// appSupport is where desktop apps keep their settings: ~/Library/Application Support on
// macOS, the config directory elsewhere.
func appSupport(home, config string) string {
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support")
	}
	return config
}

// obj is an object whose keys keep their order in JSON, TOML and YAML: an entry reads as a
// person would write it (type, command, args).
type obj []kv

type kv struct {
	Key   string
	Value any
}

// MarshalJSON writes the pairs in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Key)
		v, err := json.Marshal(p.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (e Entry) headers() obj { return obj{{"Authorization", "Bearer " + e.Token}} }

func mcpServers(e Entry) any { return obj{{"command", e.Command}, {"args", e.Args}} }
func urlHeaders(e Entry) any { return obj{{"url", e.URL}, {"headers", e.headers()}} }
func typedStdio(e Entry) any { return obj{{"type", "stdio"}, {"command", e.Command}, {"args", e.Args}} }
func typedHTTP(e Entry) any  { return obj{{"type", "http"}, {"url", e.URL}, {"headers", e.headers()}} }
func opencodeLocal(e Entry) any {
	return obj{{"type", "local"}, {"command", append([]string{e.Command}, e.Args...)}, {"enabled", true}}
}
func opencodeRemote(e Entry) any {
	return obj{{"type", "remote"}, {"url", e.URL}, {"headers", e.headers()}, {"oauth", false}, {"enabled", true}}
}

// Clients are the clients connect knows, in the order `toolhost connect` lists them. Each
// place and shape is the client's own documented one; the compat suite runs the clients it
// has against what connect wrote.
var Clients = []Client{
	{Name: "claude-code", ClientInfo: "claude-code", Title: "Claude Code", Format: JSON, Key: []string{"mcpServers"},
		Path:  func(home, _ string) string { return filepath.Join(home, ".claude.json") },
		Stdio: typedStdio, HTTP: typedHTTP, Note: "user scope: every project; `claude mcp list` shows it"},
	{Name: "claude-desktop", Title: "Claude Desktop", Format: JSON, Key: []string{"mcpServers"},
		Path: func(home, config string) string {
			return filepath.Join(appSupport(home, config), "Claude", "claude_desktop_config.json")
		},
		Stdio: mcpServers, Note: "restart Claude Desktop to load it"},
	{Name: "codex", ClientInfo: "codex-mcp-client", Title: "Codex", Format: TOML, Key: []string{"mcp_servers"}, Env: "CODEX_HOME",
		Path:  func(home, _ string) string { return filepath.Join(home, ".codex", "config.toml") },
		Stdio: mcpServers,
		HTTP:  func(e Entry) any { return obj{{"url", e.URL}, {"http_headers", e.headers()}} }},
	{Name: "cursor", Title: "Cursor", Format: JSON, Key: []string{"mcpServers"},
		Path:  func(home, _ string) string { return filepath.Join(home, ".cursor", "mcp.json") },
		Stdio: mcpServers, HTTP: urlHeaders},
	{Name: "vscode", Title: "VS Code", Format: JSON, Key: []string{"servers"},
		Path: func(home, config string) string {
			return filepath.Join(appSupport(home, config), "Code", "User", "mcp.json")
		},
		Stdio: typedStdio, HTTP: typedHTTP, Note: "user profile: every workspace"},
	{Name: "windsurf", Title: "Windsurf", Format: JSON, Key: []string{"mcpServers"},
		Path:  func(home, _ string) string { return filepath.Join(home, ".codeium", "windsurf", "mcp_config.json") },
		Stdio: mcpServers, HTTP: func(e Entry) any { return obj{{"serverUrl", e.URL}, {"headers", e.headers()}} }},
	{Name: "zed", Title: "Zed", Format: JSON, Key: []string{"context_servers"},
		Path:  func(home, config string) string { return filepath.Join(config, "zed", "settings.json") },
		Stdio: func(e Entry) any { return obj{{"command", e.Command}, {"args", e.Args}, {"env", obj{}}} },
		HTTP:  urlHeaders},
	{Name: "opencode", ClientInfo: "opencode", Title: "opencode", Format: JSON, Key: []string{"mcp"},
		Path:  func(home, config string) string { return filepath.Join(config, "opencode", "opencode.json") },
		Stdio: opencodeLocal, HTTP: opencodeRemote},
	{Name: "qwen-code", ClientInfo: "qwen-cli-mcp-client", Title: "Qwen Code", Format: JSON, Key: []string{"mcpServers"},
		Path:  func(home, _ string) string { return filepath.Join(home, ".qwen", "settings.json") },
		Stdio: mcpServers, HTTP: func(e Entry) any { return obj{{"httpUrl", e.URL}, {"headers", e.headers()}} }},
	{Name: "cline", ClientInfo: "@cline/core", Title: "Cline", Format: JSON, Key: []string{"mcpServers"}, Env: "CLINE_DIR",
		Path: func(home, _ string) string {
			return filepath.Join(home, ".cline", "data", "settings", "cline_mcp_settings.json")
		},
		Stdio: func(e Entry) any {
			return obj{{"transport", obj{{"type", "stdio"}, {"command", e.Command}, {"args", e.Args}}}}
		},
		HTTP: func(e Entry) any {
			return obj{{"transport", obj{{"type", "streamableHttp"}, {"url", e.URL}, {"headers", e.headers()}}}}
		}, Note: "the Cline CLI's settings (`cline mcp add` writes the same)"},
	{Name: "kilo", ClientInfo: "kilo", Title: "Kilo Code", Format: JSON, Key: []string{"mcp"},
		Path:  func(home, config string) string { return filepath.Join(config, "kilo", "kilo.json") },
		Stdio: opencodeLocal, HTTP: opencodeRemote, Note: "the Kilo CLI's global configuration"},
	{Name: "crush", Title: "Crush", Format: JSON, Key: []string{"mcp"},
		Path:  func(home, config string) string { return filepath.Join(config, "crush", "crush.json") },
		Stdio: typedStdio, HTTP: typedHTTP},
	{Name: "continue", ClientInfo: "continue-cli-client", Title: "Continue", Format: YAML, Key: []string{"mcpServers"},
		Path: func(home, _ string) string { return filepath.Join(home, ".continue", "config.yaml") },
		Stdio: func(e Entry) any {
			return obj{{"name", "toolhost"}, {"command", e.Command}, {"args", e.Args}}
		},
		HTTP: func(e Entry) any {
			return obj{{"name", "toolhost"}, {"type", "streamable-http"}, {"url", e.URL}, {"requestOptions", obj{{"headers", e.headers()}}}}
		}},
	{Name: "copilot", ClientInfo: "copilot-cli", Title: "GitHub Copilot CLI", Format: JSON, Key: []string{"mcpServers"}, Env: "COPILOT_HOME",
		Path: func(home, _ string) string { return filepath.Join(home, ".copilot", "mcp-config.json") },
		Stdio: func(e Entry) any {
			return obj{{"type", "local"}, {"command", e.Command}, {"args", e.Args}, {"tools", []string{"*"}}}
		},
		HTTP: func(e Entry) any {
			return obj{{"type", "http"}, {"url", e.URL}, {"headers", e.headers()}, {"tools", []string{"*"}}}
		}},
	{Name: "lm-studio", Title: "LM Studio", Format: JSON, Key: []string{"mcpServers"},
		Path:  func(home, _ string) string { return filepath.Join(home, ".lmstudio", "mcp.json") },
		Stdio: mcpServers, HTTP: urlHeaders},
}

// Lookup returns the client named name (its Name, or its Title in any case).
func Lookup(name string) (Client, error) {
	for _, c := range Clients {
		if c.Name == name || strings.EqualFold(c.Title, name) {
			return c, nil
		}
	}
	names := make([]string, len(Clients))
	for i, c := range Clients {
		names[i] = c.Name
	}
	return Client{}, fmt.Errorf("no client %q: connect knows %s", name, strings.Join(names, ", "))
}

// DefaultPath is the client's file for a user whose home and config directory are given,
// and whose environment is getenv.
func (c Client) DefaultPath(home, config string, getenv func(string) string) string {
	if c.Env != "" && getenv(c.Env) != "" {
		base := filepath.Base(c.Path(home, config))
		if c.Name == "cline" {
			return filepath.Join(getenv(c.Env), "data", "settings", base)
		}
		return filepath.Join(getenv(c.Env), base)
	}
	return c.Path(home, config)
}

// value is toolhost's entry in the client's shape, or an error when the client's file takes
// no entry of that transport.
func (c Client) value(e Entry) (any, error) {
	if e.HTTP() {
		if c.HTTP == nil {
			return nil, fmt.Errorf("%s's configuration file takes only servers it starts itself: connect it without --http", c.Title)
		}
		return c.HTTP(e), nil
	}
	return c.Stdio(e), nil
}

// Apply returns text with the entry name set to e (or, with e nil, taken out), and whether
// anything changed. Only the entry's bytes change; text that does not parse is an error
// (*SyntaxError, whose File the caller sets).
func (c Client) Apply(text []byte, name string, e *Entry) ([]byte, error) {
	var v any
	if e != nil {
		var err error
		if v, err = c.value(*e); err != nil {
			return nil, err
		}
	}
	switch c.Format {
	case TOML:
		return setTOML(text, strings.Join(append(slices.Clone(c.Key), name), "."), v)
	case YAML:
		return setYAMLItem(text, c.Key[0], name, v)
	}
	return setJSON(text, append(slices.Clone(c.Key), name), v)
}

// Current returns the entry name as the file holds it, decoded (nil when there is none).
func (c Client) Current(text []byte, name string) (any, error) {
	var all map[string]any
	switch c.Format {
	case TOML:
		if err := decodeTOML(text, &all); err != nil {
			return nil, err
		}
	case YAML:
		items, err := yamlItems(text, c.Key[0])
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if it["name"] == name {
				return it, nil
			}
		}
		return nil, nil
	default:
		root, err := parseJSONC(text)
		if err != nil || root == nil {
			return nil, err
		}
		v := root
		for _, k := range append(slices.Clone(c.Key), name) {
			m, ok := v.get(k)
			if !ok {
				return nil, nil
			}
			v = m.value
		}
		var out any
		if err := json.Unmarshal(stripJSONC(text[v.start:v.end]), &out); err != nil {
			return nil, nil
		}
		return out, nil
	}
	var v any = all
	for _, k := range append(slices.Clone(c.Key), name) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil
		}
		v = m[k]
	}
	return v, nil
}

// Token finds the bearer token in an entry as Current returns it ("" when there is none).
func Token(v any) string {
	switch x := v.(type) {
	case string:
		if t, ok := strings.CutPrefix(x, "Bearer "); ok {
			return t
		}
	case map[string]any:
		for _, e := range x {
			if t := Token(e); t != "" {
				return t
			}
		}
	case []any:
		for _, e := range x {
			if t := Token(e); t != "" {
				return t
			}
		}
	}
	return ""
}

// stripJSONC removes comments and trailing commas, for decoding a value of a JSONC file.
func stripJSONC(b []byte) []byte {
	var out bytes.Buffer
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out.WriteByte(c)
			if c == '\\' && i+1 < len(b) {
				i++
				out.WriteByte(b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out.WriteByte(c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				i = len(b)
			} else {
				i += end + 3
			}
		case c == ',':
			j := i + 1
			for j < len(b) && strings.IndexByte(" \t\r\n", b[j]) >= 0 {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
			out.WriteByte(c)
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// Result is what Write did.
type Result struct {
	Path    string
	Changed bool
	Backup  string // the file as it was, when it changed ("" for a new file)
}

// Write applies the entry to the file at path: read, edit, back the old file up beside it
// (PATH.toolhost-backup), write the new one in its place (a temporary file renamed over it,
// with the old file's mode). A file that does not parse is left alone: the error names the
// file and the line.
func (c Client) Write(path, name string, e *Entry) (Result, error) {
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	exists := err == nil
	if !exists && e == nil {
		return res, nil
	}
	text, err := c.Apply(old, name, e)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.File = path
		}
		return res, err
	}
	if bytes.Equal(text, old) {
		return res, nil
	}
	// The edit must leave a file the client reads: check it as the client's reader would.
	if _, err := c.Current(text, name); err != nil {
		return res, fmt.Errorf("connect: the edited %s would not parse (%v); nothing written", path, err)
	}
	mode := os.FileMode(0o600)
	if exists {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		res.Backup = path + ".toolhost-backup"
		if err := os.WriteFile(res.Backup, old, mode); err != nil {
			return res, fmt.Errorf("back up %s: %w", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return res, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return res, err
	}
	if _, err := tmp.Write(text); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return res, err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return res, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return res, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return res, err
	}
	res.Changed = true
	return res, nil
}
