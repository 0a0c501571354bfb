package consolidated

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel"
	"toolhost/internal/codeintel/codetest"
	"toolhost/internal/edit"
	"toolhost/internal/embed"
	"toolhost/internal/lsp"
)

// newCodeHarness serves file_operations with a code engine whose language servers are the
// real ones found on PATH (servers is nil) or the given specs.
func newCodeHarness(t *testing.T, servers []lsp.Spec) (*harness, *lsp.Pool) {
	t.Helper()
	var pool *lsp.Pool
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		j, _, err := edit.OpenJournal(filepath.Join(h.st.Dir(), "journal"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if servers == nil {
			servers = lsp.DefaultSpecs(nil)
		}
		pool = lsp.NewPool(lsp.Options{Root: h.wd, StartTimeout: 30 * time.Second, Timeout: 30 * time.Second}, servers)
		t.Cleanup(func() { pool.Close() })
		emb, err := embed.New("") // the built-in embedder, as servers use it
		if err != nil {
			t.Fatal(err)
		}
		code := codeintel.NewEngine(codeintel.Config{Root: h.guard.Root(), RootPath: h.wd, Screen: h.guard.WorkDirScreen(), Pool: pool, Embedder: emb})
		return []*Tool{FileTool(FileConfig{Guard: h.guard, Journal: j, Code: code}), ReadToolResultTool()}
	}})
	return h, pool
}

// TestCodeOperationsOnRealServers runs every code operation on a small project in each
// language with its real language server: outline, definitions, usages, the way to a
// definition, a rename that still builds, and semantic search.
func TestCodeOperationsOnRealServers(t *testing.T) {
	for _, p := range codetest.Projects {
		t.Run(p.Lang, func(t *testing.T) {
			spec := codetest.Require(t, p.Lang)
			build := codetest.RequireTool(t, p.Build[0])
			h, _ := newCodeHarness(t, nil)
			h.write(p.Files)

			text, _ := h.mustOp("document_symbols", map[string]any{"path": p.DefFile})
			for _, want := range []string{p.Type, p.Method, p.Func} {
				if !strings.Contains(text, want) {
					t.Errorf("document_symbols %s lacks %s:\n%s", p.DefFile, want, text)
				}
			}

			text, _ = h.mustOp("find_symbol", map[string]any{"name": p.Func})
			if !strings.Contains(text, "1 symbol(s) named "+p.Func) || !strings.Contains(text, p.DefFile+":") {
				t.Errorf("find_symbol %s:\n%s", p.Func, text)
			}
			text, _ = h.mustOp("find_symbol", map[string]any{"name": p.Method, "kind": "method"})
			if !strings.Contains(text, p.Type+"."+p.Method) {
				t.Errorf("find_symbol %s (method) does not name its class:\n%s", p.Method, text)
			}

			text, _ = h.mustOp("list_usages", map[string]any{"path": p.UseFile, "line": p.UseLine, "column": p.UseColumn})
			if want := regexp.MustCompile(`^(\d+) reference\(s\) to ` + p.Method); !want.MatchString(text) || !strings.Contains(text, "("+spec.Name+")") {
				t.Errorf("list_usages at %s:%d:%d, want references from %s:\n%s", p.UseFile, p.UseLine, p.UseColumn, spec.Name, text)
			} else if n := want.FindStringSubmatch(text)[1]; n != "3" {
				t.Errorf("list_usages found %s references, want %d:\n%s", n, p.MethodUses, text)
			}

			text, _ = h.mustOp("go_to_definition", map[string]any{"path": p.UseFile, "line": p.UseLine, "column": p.UseColumn})
			if !strings.Contains(text, p.DefFile+":") || !strings.Contains(text, spec.Name) {
				t.Errorf("go_to_definition from %s:%d:%d:\n%s", p.UseFile, p.UseLine, p.UseColumn, text)
			}

			newName := "Put"
			if p.Lang != "go" {
				newName = "put"
			}
			before := h.read(p.UseFile)
			text, _ = h.mustOp("rename_symbol", map[string]any{"path": p.UseFile, "line": p.UseLine, "column": p.UseColumn, "new_name": newName, "dry_run": true})
			if !strings.HasPrefix(text, "dry run, nothing written") || !strings.Contains(text, "+") || h.read(p.UseFile) != before {
				t.Errorf("rename_symbol dry_run wrote or showed no diff:\n%s", text)
			}
			text, _ = h.mustOp("rename_symbol", map[string]any{"path": p.UseFile, "line": p.UseLine, "column": p.UseColumn, "new_name": newName})
			if !strings.Contains(text, "in 2 file(s)") {
				t.Errorf("rename_symbol did not change both files:\n%s", text)
			}
			for _, f := range []string{p.DefFile, p.UseFile} {
				if strings.Contains(h.read(f), "."+p.Method+"(") || !strings.Contains(h.read(f), newName) {
					t.Errorf("%s after the rename:\n%s", f, h.read(f))
				}
			}
			cmd := exec.Command(build, p.Build[1:]...)
			cmd.Dir = h.wd
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s after the rename: %v\n%s", strings.Join(p.Build, " "), err, out)
			}

			text, _ = h.mustOp("semantic_search", map[string]any{"query": "where do we retry failed uploads"})
			if first := strings.SplitN(text, "\n", 3); len(first) < 2 || !strings.Contains(first[1], p.Func) {
				t.Errorf("semantic_search does not put %s first:\n%s", p.Func, text)
			}
		})
	}
}

// TestCodeOperationsBadInput: positions outside a file, unknown symbols and paths outside the
// working directory get the usual errors; a rename without a server says which to install.
func TestCodeOperationsBadInput(t *testing.T) {
	p := codetest.Projects[0]
	h, _ := newCodeHarness(t, []lsp.Spec{}) // no servers: built-in answers only
	h.write(p.Files)
	outside := t.TempDir()
	cases := []struct {
		name string
		args map[string]any
		code string
		text string
	}{
		{"line past the end", map[string]any{"operation": "list_usages", "path": "main.go", "line": 999, "column": 1}, "past_end", "line 999"},
		{"column past the end", map[string]any{"operation": "go_to_definition", "path": "main.go", "line": 11, "column": 200}, "past_end", "column 200"},
		{"no identifier there", map[string]any{"operation": "list_usages", "path": "main.go", "line": 2, "column": 1}, "not_found", "no identifier"},
		{"unknown symbol", map[string]any{"operation": "go_to_definition", "path": ".", "name": "NoSuchThing"}, "not_found", "NoSuchThing"},
		{"outside the working directory", map[string]any{"operation": "document_symbols", "path": outside}, "", outside},
		{"missing file", map[string]any{"operation": "document_symbols", "path": "nope.go"}, "not_found", "nope.go"},
		{"rename without a server", map[string]any{"operation": "rename_symbol", "path": "main.go", "line": 11, "column": 4, "new_name": "Put"}, "no_language_server", "gopls"},
		{"rename to a non-identifier", map[string]any{"operation": "rename_symbol", "path": "main.go", "line": 11, "column": 4, "new_name": "a b"}, "invalid_value", "not an identifier"},
		{"neither name nor position", map[string]any{"operation": "list_usages", "path": "main.go"}, "missing_parameter", "name"},
		{"unsupported file", map[string]any{"operation": "document_symbols", "path": "go.mod"}, "invalid_value", "no symbol support"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, isErr, _ := h.call("file_operations", c.args)
			if !isErr || (c.code != "" && !strings.Contains(text, "error "+c.code)) || !strings.Contains(text, c.text) {
				t.Errorf("%v = %q (error %v), want error %s mentioning %q", c.args, text, isErr, c.code, c.text)
			}
		})
	}
	// Without a server the built-in parsers and word matches answer, and say so.
	text, _ := h.mustOp("list_usages", map[string]any{"path": "store/store.go", "name": "Add"})
	if !strings.Contains(text, "whole-word") || !strings.Contains(text, "main.go (2)") {
		t.Errorf("list_usages without a server:\n%s", text)
	}
	text, _ = h.mustOp("go_to_definition", map[string]any{"path": "main.go", "line": 11, "column": 4})
	if !strings.Contains(text, "store/store.go:15") || !strings.Contains(text, codeintel.BackendGoParser) {
		t.Errorf("go_to_definition without a server:\n%s", text)
	}
}

// TestGrepSearchUsesTheIndex: once the working directory's index is built, grep_search is
// served from it (the index counts what it served), answers like the walk, and sees changes
// made right before the call.
func TestGrepSearchUsesTheIndex(t *testing.T) {
	var ix *codeindex.Index
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		ix = codeindex.Open(codeindex.Config{Dir: filepath.Join(t.TempDir(), "index"), Root: h.guard.Root(), RootPath: h.wd, Screen: h.guard.WorkDirScreen()})
		t.Cleanup(func() { ix.Close() })
		return []*Tool{FileTool(FileConfig{Guard: h.guard, Index: ix, IndexMinFiles: 3})}
	}})
	h.write(map[string]string{"a.go": "package a // needle\n", "b/c.go": "package b\n", "b/d.txt": "no\n", ".hidden/x": "needle\n"})
	walked, _ := h.mustOp("grep_search", map[string]any{"pattern": "needle"})
	deadline := time.Now().Add(10 * time.Second)
	for !ix.Ready() {
		if time.Now().After(deadline) {
			t.Fatal("a search over 3 files did not start the index")
		}
		time.Sleep(10 * time.Millisecond)
	}
	served := ix.Served.Load()
	indexed, _ := h.mustOp("grep_search", map[string]any{"pattern": "needle"})
	if ix.Served.Load() != served+1 || indexed != walked {
		t.Errorf("grep_search through the index (served %d -> %d):\n%s\nwant the walk's answer:\n%s", served, ix.Served.Load(), indexed, walked)
	}
	h.write(map[string]string{"b/c.go": "package b // needle\n"})
	text, _ := h.mustOp("grep_search", map[string]any{"pattern": "needle"})
	if !strings.Contains(text, "b/c.go") {
		t.Errorf("grep_search right after an edit:\n%s", text)
	}
	// include_hidden is the walk's: the index holds no hidden files.
	served = ix.Served.Load()
	text, _ = h.mustOp("grep_search", map[string]any{"pattern": "needle", "include_hidden": true})
	if !strings.Contains(text, ".hidden/x") || ix.Served.Load() != served {
		t.Errorf("grep_search include_hidden:\n%s", text)
	}
}

// TestListUsagesOfFiveThousandReferences: a symbol with 5,000 references fits the result
// budget with a count for every file (the first max_results lines in full), and under a small
// budget the result is cut and read_tool_result pages the rest.
func TestListUsagesOfFiveThousandReferences(t *testing.T) {
	files := map[string]string{"go.mod": "module m\n\ngo 1.22\n", "def.go": "package m\n\nfunc Target() {}\n"}
	for i := range 500 {
		var b strings.Builder
		b.WriteString("package m\n\nfunc use" + strconv.Itoa(i) + "() {\n")
		for range 10 {
			b.WriteString("\tTarget()\n")
		}
		b.WriteString("}\n")
		files[fmt.Sprintf("u/f%03d.go", i)] = b.String()
	}
	for _, budget := range []int{0, 2000} {
		t.Run(fmt.Sprint("budget ", budget), func(t *testing.T) {
			h := newHarness(t, harnessOptions{budgetTokens: budget, tools: func(h *harness) []*Tool {
				code := codeintel.NewEngine(codeintel.Config{Root: h.guard.Root(), RootPath: h.wd, Screen: h.guard.WorkDirScreen()})
				return []*Tool{FileTool(FileConfig{Guard: h.guard, Code: code}), ReadToolResultTool()}
			}})
			h.write(files)
			text, _ := h.mustOp("list_usages", map[string]any{"path": "def.go", "name": "Target"})
			if !strings.HasPrefix(text, "5001 whole-word match(es) to Target") && !strings.Contains(text, "5001 whole-word match(es) to Target") {
				t.Fatalf("list_usages:\n%.600s", text)
			}
			if budget == 0 {
				if strings.Contains(text, "[result cut") {
					t.Fatalf("5,001 references do not fit the default budget (%d bytes)", len(text))
				}
				for i := range 500 {
					if !strings.Contains(text, fmt.Sprintf("u/f%03d.go (10)", i)) {
						t.Fatalf("no count for u/f%03d.go", i)
					}
				}
				if n := len(regexp.MustCompile(`(?m)^  \d+:\d+: `).FindAllString(text, -1)); n != 300 {
					t.Errorf("%d reference lines shown, want max_results' default 300", n)
				}
				return
			}
			m := regexp.MustCompile(`"id":"([^"]+)","offset":(\d+)`).FindStringSubmatch(text)
			if m == nil || !strings.Contains(text, "[result cut") {
				t.Fatalf("under a budget of %d tokens the result is not cut with a read_tool_result id:\n%.600s", budget, text)
			}
			page, isErr, _ := h.call("read_tool_result", map[string]any{"id": m[1], "offset": m[2], "length": 20000})
			if isErr || !regexp.MustCompile(`u/f\d{3}\.go \(10\)`).MatchString(page) {
				t.Errorf("read_tool_result does not page the rest:\n%.600s", page)
			}
		})
	}
}
