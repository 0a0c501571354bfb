package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/golden"
)

// toolBudget is each tool's share of tools/list, in o200k tokens of its minified JSON as clients
// receive it. It is the one budget table: a new tool adds its row here. The shares of all ten
// tools and the envelope sum to at most listBudget, so a tool that needs more takes it from
// another row, with the reason in the commit message.
var toolBudget = map[string]int{
	"think":                     88,
	"user_collaboration":        305,
	"todo_operations":           375,
	"memory_operations":         336,
	"file_operations":           975,
	"terminal_operations":       470,
	"build_and_version_control": 432,
	"web_operations":            418,
	"database_operations":       223,
	"read_tool_result":          132,
}

// envelopeBudget covers {"tools":[...]} and the separators between tools.
const envelopeBudget = 30

// listBudget is the whole tools/list with every tool of consolidated.Order built.
const listBudget = 3900

func testApp(t *testing.T) *App {
	t.Helper()
	return testAppWith(t, nil)
}

// testAppWith opens an app on temporary directories, with the configuration adjusted by edit.
func testAppWith(t testing.TB, edit func(*config.Config)) *App {
	t.Helper()
	cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts")}
	cfg.ApprovalWait.Duration = 200 * time.Millisecond
	if edit != nil {
		edit(cfg)
	}
	a, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestToolGolden pins every advertised tool as clients receive it: the one place tool schemas
// are pinned. TOOLHOST_GOLDEN=update rewrites them.
func TestToolGolden(t *testing.T) {
	a := testApp(t)
	for _, tl := range a.Registry.Tools() {
		got, err := json.MarshalIndent(tl, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "tools", tl.Name+".json"), append(got, '\n'))
	}
}

// TestReadmeToolTable keeps README.md's tool table what `toolhost tools --markdown` prints for
// the default configuration; TOOLHOST_GOLDEN=update rewrites the block.
func TestReadmeToolTable(t *testing.T) {
	golden.CheckBlock(t, filepath.Join("..", "..", "README.md"),
		"<!-- begin: toolhost tools --markdown -->", "<!-- end: toolhost tools --markdown -->",
		testApp(t).Registry.MarkdownTable())
}

// TestArchitectureToolTable keeps ARCHITECTURE.md §1, the map's tool list, the registry's tools
// and operations in order (the same table as the README's); TOOLHOST_GOLDEN=update rewrites it.
func TestArchitectureToolTable(t *testing.T) {
	golden.CheckBlock(t, filepath.Join("..", "..", "ARCHITECTURE.md"),
		"<!-- begin: toolhost tools --markdown -->", "<!-- end: toolhost tools --markdown -->",
		testApp(t).Registry.MarkdownTable())
}

func TestToolListIsByteStable(t *testing.T) {
	first, _ := json.Marshal(testApp(t).Registry.Tools())
	for i := 0; i < 5; i++ {
		again, _ := json.Marshal(testApp(t).Registry.Tools())
		if !bytes.Equal(first, again) {
			t.Fatalf("tools/list bytes differ between two servers:\n%s\n%s", first, again)
		}
	}
}

func TestToolListTokenBudget(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	sum := envelopeBudget
	for name, share := range toolBudget {
		if indexOf(consolidated.Order, name) < 0 {
			t.Errorf("toolBudget has a row for %s, which is not in consolidated.Order", name)
		}
		sum += share
	}
	if sum > listBudget {
		t.Errorf("the budget rows and the envelope sum to %d o200k tokens, over the list budget of %d", sum, listBudget)
	}
	tools := testApp(t).Registry.Tools()
	advertised := envelopeBudget
	for _, tl := range tools {
		b, _ := json.Marshal(tl)
		n := len(enc.Encode(string(b), nil, nil))
		share, ok := toolBudget[tl.Name]
		if !ok {
			t.Errorf("tool %s has no row in toolBudget", tl.Name)
		}
		if n > share {
			t.Errorf("tool %s costs %d o200k tokens, over its budget of %d", tl.Name, n, share)
		}
		advertised += share
		t.Logf("%-26s %4d tokens %5d bytes (budget %d)", tl.Name, n, len(b), share)
	}
	b, _ := json.Marshal(map[string]any{"tools": tools})
	total := len(enc.Encode(string(b), nil, nil))
	t.Logf("whole list: %d tools, %d o200k tokens, %d bytes (budget %d of %d)", len(tools), total, len(b), advertised, listBudget)
	if total > advertised {
		t.Errorf("tools/list costs %d o200k tokens, over the budget of %d for the tools advertised", total, advertised)
	}
}

func TestSchemasArePortable(t *testing.T) {
	// Anthropic and OpenAI reject top-level combinators; Gemini rejects union types.
	for _, tl := range testApp(t).Registry.Tools() {
		var s map[string]any
		b, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s["type"] != "object" {
			t.Errorf("%s: schema type %v, want object", tl.Name, s["type"])
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "$ref"} {
				if _, bad := m[k]; bad {
					t.Errorf("%s: %s uses %s", tl.Name, path, k)
				}
			}
			if props, ok := m["properties"].(map[string]any); ok {
				for name, p := range props {
					pm := p.(map[string]any)
					if _, ok := pm["type"].(string); !ok {
						t.Errorf("%s: property %s%s has no single concrete type: %v", tl.Name, path, name, pm["type"])
					}
					walk(path+name+".", p)
				}
			}
			if items, ok := m["items"]; ok {
				walk(path+"[].", items)
			}
		}
		walk("", s)
	}
}

func TestEveryToolIsInOrder(t *testing.T) {
	names := testApp(t).Registry.Names()
	last := -1
	for _, n := range names {
		i := indexOf(consolidated.Order, n)
		if i <= last {
			t.Errorf("tool %s out of the fixed order in %v", n, names)
		}
		last = i
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// TestTierToolLists pins what each tier is shown in tools/list, as tool and operation names
// (the schemas themselves are pinned by TestToolGolden), and that each tier's list is the same
// bytes every time: clients cache the prompt prefix that holds it.
func TestTierToolLists(t *testing.T) {
	a := testApp(t)
	for _, tier := range authz.Tiers {
		t.Run(string(tier), func(t *testing.T) {
			tools := a.Registry.ToolsFor(tier)
			first, _ := json.Marshal(tools)
			again, _ := json.Marshal(testApp(t).Registry.ToolsFor(tier))
			if !bytes.Equal(first, again) {
				t.Errorf("tools/list of tier %s differs between two servers", tier)
			}
			var b strings.Builder
			for _, tl := range tools {
				fmt.Fprintf(&b, "%s: %s\n", tl.Name, strings.Join(operationEnum(t, tl.InputSchema), " "))
			}
			golden.Check(t, filepath.Join("testdata", "tiers", string(tier)+".golden"), []byte(b.String()))
		})
	}
}

// TestDescriptionsNameOperationsFirst: Claude Code and Qwen Code defer MCP tools and show the
// model only names and the start of each description (Qwen about 150 characters), so the first
// sentence names every operation, and the first 150 characters say what the tool is for and
// start the list.
func TestDescriptionsNameOperationsFirst(t *testing.T) {
	for _, tl := range testApp(t).Registry.Tools() {
		ops := operationEnum(t, tl.InputSchema)
		if len(ops) == 0 {
			continue // a single-purpose tool
		}
		first, _, _ := strings.Cut(tl.Description, ". ")
		first, _, _ = strings.Cut(first, "\n")
		for _, op := range ops {
			if !strings.Contains(first, op) {
				t.Errorf("%s: the first sentence %q does not name operation %s", tl.Name, first, op)
			}
		}
		if start := tl.Description[:min(150, len(tl.Description))]; !strings.Contains(start, ": "+ops[0]) {
			t.Errorf("%s: the first 150 characters %q do not start the operation list", tl.Name, start)
		}
	}
}

// operationEnum is the operation names an input schema offers; none for a single-purpose tool.
func operationEnum(t *testing.T, schema any) []string {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties["operation"].Enum
}
