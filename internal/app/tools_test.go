package app

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"toolhost/consolidated"
	"toolhost/internal/config"
)

var update = flag.Bool("update", false, "rewrite golden files")

// toolBudget is each tool's share of the tools/list budget, in o200k tokens of its minified JSON
// as clients receive it. The sum stays under 3,500 for all ten places (round 2 added
// build_and_version_control and web_operations); raise a share only with a reason in the commit
// message.
var toolBudget = map[string]int{
	"think":                     90,
	"user_collaboration":        280,
	"todo_operations":           360,
	"memory_operations":         295,
	"file_operations":           800,
	"terminal_operations":       480,
	"build_and_version_control": 470,
	"web_operations":            130,
	"read_tool_result":          130,
}

// envelopeBudget covers {"tools":[...]} and the separators between tools.
const envelopeBudget = 30

func testApp(t *testing.T) *App {
	t.Helper()
	cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts")}
	cfg.ApprovalWait.Duration = 200 * time.Millisecond
	a, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func TestToolGolden(t *testing.T) {
	a := testApp(t)
	for _, tl := range a.Registry.Tools() {
		got, err := json.MarshalIndent(tl, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "tools", tl.Name+".json")
		if *update {
			if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./internal/app -run TestToolGolden -update)", err)
		}
		if !bytes.Equal(bytes.TrimSpace(want), got) {
			t.Errorf("tool %s drifted from %s; review and rerun with -update\n got: %s", tl.Name, path, got)
		}
	}
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
	tools := testApp(t).Registry.Tools()
	total := 0
	for _, tl := range tools {
		b, _ := json.Marshal(tl)
		n := len(enc.Encode(string(b), nil, nil))
		budget, ok := toolBudget[tl.Name]
		if !ok {
			t.Errorf("tool %s has no token budget", tl.Name)
		}
		if n > budget {
			t.Errorf("tool %s costs %d o200k tokens, over its budget of %d", tl.Name, n, budget)
		}
		t.Logf("%-26s %4d tokens %5d bytes", tl.Name, n, len(b))
	}
	b, _ := json.Marshal(map[string]any{"tools": tools})
	total = len(enc.Encode(string(b), nil, nil))
	t.Logf("whole list: %d tools, %d o200k tokens, %d bytes", len(tools), total, len(b))
	sum, listBudget := envelopeBudget, envelopeBudget
	advertised := testApp(t).Registry.Names()
	for name, v := range toolBudget {
		sum += v
		if indexOf(advertised, name) >= 0 {
			listBudget += v
		}
	}
	if sum >= 3500 {
		t.Errorf("budgets sum to %d; the target is under 3500", sum)
	}
	if total > listBudget {
		t.Errorf("tools/list costs %d o200k tokens, over the budget of %d for the tools advertised", total, listBudget)
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
