package consolidated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/edit"
)

var fileTree = map[string]string{
	"main.go":            "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
	"notes.txt":          "one\ntwo\nthree\nfour\nfive\n",
	"crlf.txt":           "alpha\r\nbeta\r\n",
	"pkg/util.go":        "package pkg\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	"pkg/deep/x.go":      "package deep\n\nvar X = 1 // TODO: rename\n",
	"pkg/deep/y.md":      "# Y\nTODO later\n",
	".hidden/secret.txt": "TODO hidden\n",
	".gitignore":         "build/\n",
	"build/out.txt":      "TODO ignored\n",
	"bin.dat":            "\x00\x01\x02binary",
	"empty.txt":          "",
	".git/HEAD":          "ref: refs/heads/main\n",
}

type fileCase struct {
	name    string
	op      string
	args    map[string]any
	wantErr bool
	// want are substrings of the text the model sees; absent must not occur.
	want   []string
	absent []string
	// check inspects the working directory afterwards.
	check func(t *testing.T, h *harness)
}

func runFileCases(t *testing.T, cases []fileCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newFileHarness(t, 0)
			h.write(fileTree)
			args := map[string]any{}
			for k, v := range tc.args {
				// "ABS:rel" stands for the absolute path of rel in this test's working directory.
				if s, ok := v.(string); ok && strings.HasPrefix(s, "ABS:") {
					v = h.wd + "/" + strings.TrimPrefix(s, "ABS:")
				}
				args[k] = v
			}
			got, isErr, _ := h.op(tc.op, args)
			if isErr != tc.wantErr {
				t.Fatalf("file_operations %s %v: isError = %v, want %v\n%s", tc.op, tc.args, isErr, tc.wantErr, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("file_operations %s %v = %q, want it to contain %q", tc.op, tc.args, got, w)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("file_operations %s %v = %q, want no %q", tc.op, tc.args, got, a)
				}
			}
			if tc.check != nil {
				tc.check(t, h)
			}
		})
	}
}

func wantFileContent(p, content string) func(t *testing.T, h *harness) {
	return func(t *testing.T, h *harness) {
		t.Helper()
		if got := h.read(p); got != content {
			t.Errorf("%s = %q, want %q", p, got, content)
		}
	}
}

func wantFileGone(p string) func(t *testing.T, h *harness) {
	return func(t *testing.T, h *harness) {
		t.Helper()
		if h.exists(p) {
			t.Errorf("%s still exists", p)
		}
	}
}

func TestFileReadOperations(t *testing.T) {
	runFileCases(t, []fileCase{
		{name: "read whole file", op: "read_file", args: map[string]any{"path": "notes.txt"},
			want: []string{"notes.txt: lines 1-5 of 5\none\ntwo\nthree\nfour\nfive"}},
		{name: "read range with numbers", op: "read_file", args: map[string]any{"path": "notes.txt", "start_line": 2, "end_line": 3, "line_numbers": true},
			want: []string{"notes.txt: lines 2-3 of 5; more from line 4\n", "2\ttwo\n3\tthree"}, absent: []string{"four"}},
		{name: "read negative offset", op: "read_file", args: map[string]any{"path": "notes.txt", "offset": -2},
			want: []string{"lines 4-5 of 5\nfour\nfive"}},
		{name: "read negative start_line as offset", op: "read_file", args: map[string]any{"path": "notes.txt", "start_line": -2},
			want: []string{"notes.txt: lines 4-5 of 5\nfour\nfive"}},
		{name: "read offset limit", op: "read_file", args: map[string]any{"path": "notes.txt", "offset": 3, "limit": 1},
			want: []string{"lines 3-3 of 5", "three"}, absent: []string{"four"}},
		{name: "read limit only", op: "read_file", args: map[string]any{"path": "notes.txt", "limit": 2},
			want: []string{"lines 1-2 of 5; more from line 3\none\ntwo"}},
		{name: "read end_line only", op: "read_file", args: map[string]any{"path": "notes.txt", "end_line": 1},
			want: []string{"lines 1-1 of 5; more from line 2\none"}},
		{name: "read numbers as strings", op: "read_file", args: map[string]any{"path": "notes.txt", "start_line": "4", "line_numbers": "true"},
			want: []string{"lines 4-5 of 5\n   4\tfour"}},
		{name: "read alias file_path", op: "read_file", args: map[string]any{"file_path": "pkg/util.go"},
			want: []string{"pkg/util.go: lines 1-4 of 4"}},
		{name: "read camelCase alias", op: "read_file", args: map[string]any{"filePath": "pkg/util.go", "startLine": 3},
			want: []string{"lines 3-4 of 4\n// Add adds."}},
		{name: "read absolute path inside", op: "read_file", args: map[string]any{"path": "ABS:notes.txt"},
			want: []string{"notes.txt: lines 1-5"}},
		{name: "read crlf", op: "read_file", args: map[string]any{"path": "crlf.txt"}, want: []string{"; CRLF\nalpha\nbeta"}},
		{name: "read empty", op: "read_file", args: map[string]any{"path": "empty.txt"}, want: []string{"empty.txt: empty file"}},
		{name: "read binary", op: "read_file", args: map[string]any{"path": "bin.dat"}, want: []string{"bin.dat: binary file, 9 bytes", "encoding base64 or hex"}, absent: []string{"binary, 9"}},
		{name: "read hex", op: "read_file", args: map[string]any{"path": "bin.dat", "encoding": "hex", "limit": 3},
			want: []string{"bytes 0-3 of 9, hex; more: offset 3\n000102"}},
		{name: "read base64", op: "read_file", args: map[string]any{"path": "bin.dat", "encoding": "base64", "offset": -6},
			want: []string{"bytes 3-9 of 9, base64\nYmluYXJ5"}},
		{name: "read missing", op: "read_file", args: map[string]any{"path": "zzzzzzzzzzzzzzzz.bin"}, wantErr: true,
			want: []string{"error not_found: zzzzzzzzzzzzzzzz.bin does not exist", "next: find it with file_search"}},
		{name: "read missing suggests similar name", op: "read_file", args: map[string]any{"path": "pkg/utl.go"}, wantErr: true,
			want: []string{"error not_found: pkg/utl.go does not exist", "next: did you mean pkg/util.go?"}},
		{name: "read missing never suggests dot paths", op: "read_file", args: map[string]any{"path": "secret.txt"}, wantErr: true,
			want: []string{"error not_found"}, absent: []string{".hidden"}},
		{name: "read missing suggests same name elsewhere", op: "read_file", args: map[string]any{"path": "util.go"}, wantErr: true,
			want: []string{"next: did you mean pkg/util.go?"}},
		{name: "read directory", op: "read_file", args: map[string]any{"path": "pkg"}, wantErr: true,
			want: []string{"error is_directory", "use list_dir"}},
		{name: "read past end", op: "read_file", args: map[string]any{"path": "notes.txt", "start_line": 40}, wantErr: true,
			want: []string{"error past_end: notes.txt has 5 lines"}},
		{name: "read both ranges", op: "read_file", args: map[string]any{"path": "notes.txt", "start_line": 1, "offset": 2}, wantErr: true,
			want: []string{"error invalid_value", "not both"}, absent: []string{"invalid options"}},
		{name: "read bad encoding", op: "read_file", args: map[string]any{"path": "notes.txt", "encoding": "latin1"}, wantErr: true,
			want: []string{"error invalid_value", "utf-8, base64, hex"}},
		{name: "read missing path", op: "read_file", args: nil, wantErr: true,
			want: []string{"error missing_parameter: read_file requires path"}},
		{name: "read protected", op: "read_file", args: map[string]any{"path": ".git/config"}, wantErr: true,
			want: []string{"error protected_path", "user_collaboration"}},

		{name: "list root", op: "list_dir", args: nil,
			want:   []string{".: 6 entries; skipped 3 hidden, 1 gitignored\nbin.dat 9B 13mo\ncrlf.txt 13B 13mo\nempty.txt 0B 13mo\nmain.go 48B 13mo\nnotes.txt 24B 13mo\npkg/"},
			absent: []string{".hidden", "util.go", "build"}},
		{name: "list recursive", op: "list_dir", args: map[string]any{"path": "pkg", "recursive": true},
			want: []string{"pkg/: 4 entries\ndeep/\ndeep/x.go 40B 13mo\ndeep/y.md 15B 13mo\nutil.go 66B 13mo"}},
		{name: "list max_depth", op: "list_dir", args: map[string]any{"path": "pkg", "max_depth": 1},
			want: []string{"pkg/: 2 entries"}, absent: []string{"x.go"}},
		{name: "list hidden and ignored", op: "list_dir", args: map[string]any{"include_hidden": true, "include_ignored": true},
			want: []string{"\n.hidden/", "\n.gitignore"}, absent: []string{"; skipped", ".git/"}},
		{name: "list capped", op: "list_dir", args: map[string]any{"max_results": 2},
			want: []string{"2 entries, 4 more not shown (max_results)"}},
		{name: "list a file", op: "list_dir", args: map[string]any{"path": "main.go"}, wantErr: true,
			want: []string{"error not_directory"}},
		{name: "list missing", op: "list_dir", args: map[string]any{"path": "nowhere"}, wantErr: true,
			want: []string{"error not_found: nowhere does not exist"}},

		{name: "glob go files", op: "file_search", args: map[string]any{"pattern": "*.go", "sort": "path"},
			want: []string{"3 match(es) for *.go, by path; skipped 3 hidden, 1 gitignored\nmain.go\npkg/deep/x.go\npkg/util.go"}},
		{name: "glob under base", op: "file_search", args: map[string]any{"pattern": "**/*.md", "path": "pkg"},
			want: []string{"1 match(es) for **/*.md under pkg\npkg/deep/y.md"}},
		{name: "glob capped", op: "file_search", args: map[string]any{"pattern": "**/*", "max_results": 1},
			want: []string{", first 1 shown"}},
		{name: "glob bare name part", op: "file_search", args: map[string]any{"pattern": "util"},
			want: []string{"0 match(es) for util; 1 match(es) for *util*;", "\npkg/util.go"}},
		{name: "glob absolute under the base", op: "file_search", args: map[string]any{"pattern": "ABS:pkg/*.go", "path": "pkg"},
			want: []string{"2 match(es) for *.go under pkg", "\npkg/util.go"}},
		{name: "glob absolute elsewhere", op: "file_search", args: map[string]any{"pattern": "/somewhere/else/*.go"}, wantErr: true,
			want: []string{"error invalid_pattern", "put the directory in path"}},
		{name: "glob directory with slash", op: "file_search", args: map[string]any{"pattern": "deep/"},
			want: []string{"2 match(es) for **/deep/**", "\npkg/deep/x.go", "\npkg/deep/y.md"}},
		{name: "glob bad pattern", op: "file_search", args: map[string]any{"pattern": "[a-"}, wantErr: true,
			want: []string{"error invalid_pattern"}},
		{name: "glob bad sort", op: "file_search", args: map[string]any{"pattern": "*", "sort": "size"}, wantErr: true,
			want: []string{"error invalid_value", "mtime, path"}},

		{name: "grep regex", op: "grep_search", args: map[string]any{"pattern": "TODO\\b"},
			want:   []string{"2 matching line(s) in 2 file(s)", "\npkg/deep/x.go\n3:var X = 1 // TODO: rename", "\npkg/deep/y.md\n2:TODO later"},
			absent: []string{".hidden/secret.txt", "build/out.txt"}},
		{name: "grep literal case-insensitive include", op: "grep_search", args: map[string]any{"pattern": "todo:", "literal": true, "case_insensitive": true, "include": "*.go"},
			want: []string{"1 matching line(s) in 1 file(s)", "3:var X"}},
		{name: "grep exclude and context", op: "grep_search", args: map[string]any{"pattern": "println", "exclude": []string{"pkg"}, "context_lines": 1},
			want: []string{"main.go\n3-func main() {\n4:\tprintln(\"hello\")\n5-}"}},
		{name: "grep hidden and ignored", op: "grep_search", args: map[string]any{"pattern": "TODO", "include_hidden": true, "include_ignored": true},
			want: []string{"4 matching line(s)", ".hidden/secret.txt", "build/out.txt"}, absent: []string{"; skipped"}},
		{name: "grep capped", op: "grep_search", args: map[string]any{"pattern": "e", "max_matches": 1},
			want: []string{"first 1 shown"}},
		{name: "grep nothing outside ignored", op: "grep_search", args: map[string]any{"pattern": "TODO ignored"},
			want: []string{"0 matching line(s)", "1 gitignored (include_hidden, include_ignored search them)"}},
		{name: "glob nothing outside ignored", op: "file_search", args: map[string]any{"pattern": "out.txt"},
			want: []string{"0 match(es) for out.txt", "1 gitignored (include_hidden, include_ignored search them)"}},
		{name: "grep exclude dir with slash", op: "grep_search", args: map[string]any{"pattern": "TODO", "exclude": "pkg/"},
			want: []string{"0 matching line(s)"}},
		{name: "grep include negation and dir", op: "grep_search", args: map[string]any{"pattern": "TODO", "include": []string{"pkg/", "!*.md"}},
			want: []string{"1 matching line(s)", "pkg/deep/x.go"}, absent: []string{"y.md"}},
		{name: "grep pattern with a line break", op: "grep_search", args: map[string]any{"pattern": "one\ntwo", "literal": true}, wantErr: true,
			want: []string{"error invalid_pattern", "one line at a time"}},
		{name: "grep regex with \\n", op: "grep_search", args: map[string]any{"pattern": `one\ntwo`},
			want: []string{"0 matching line(s)", "matching is per line, so \\n finds nothing"}},
		{name: "grep query alias", op: "grep_search", args: map[string]any{"query": "Add adds"},
			want: []string{"pkg/util.go\n3:// Add adds."}},
		{name: "grep bad regex", op: "grep_search", args: map[string]any{"pattern": "func (", "include": "*.go"}, wantErr: true,
			want: []string{"error invalid_pattern", "missing closing )", "set literal true"}, absent: []string{"(?m)"}},
		{name: "grep absolute base", op: "grep_search", args: map[string]any{"pattern": "Add", "path": "ABS:pkg"},
			want: []string{"pkg/util.go\n3:// Add adds."}},
	})
}

func TestFileWriteOperations(t *testing.T) {
	runFileCases(t, []fileCase{
		{name: "create new", op: "create_file", args: map[string]any{"path": "new/dir/a.txt", "content": "x\ny\n"},
			want: []string{"created new/dir/a.txt (2 lines, 4 bytes)"}, absent: []string{"+++"}, check: wantFileContent("new/dir/a.txt", "x\ny\n")},
		{name: "create overwrite shows diff", op: "create_file", args: map[string]any{"path": "notes.txt", "content": "one\n"},
			want: []string{"overwrote notes.txt", "-two"}, check: wantFileContent("notes.txt", "one\n")},
		{name: "create overwrite keeps CRLF", op: "create_file", args: map[string]any{"path": "crlf.txt", "content": "alpha\ngamma\n"},
			want: []string{"overwrote crlf.txt (2 lines, 14 bytes; kept the file's CRLF line endings)", "-beta\n+gamma"}, absent: []string{"-alpha"},
			check: wantFileContent("crlf.txt", "alpha\r\ngamma\r\n")},
		{name: "create append", op: "create_file", args: map[string]any{"path": "notes.txt", "content": "six\n", "mode": "append"},
			want: []string{"appended 1 lines to notes.txt", "+six"}, check: wantFileContent("notes.txt", "one\ntwo\nthree\nfour\nfive\nsix\n")},
		{name: "create if missing refuses", op: "create_file", args: map[string]any{"path": "notes.txt", "content": "z", "mode": "create_if_missing"}, wantErr: true,
			want: []string{"error exists"}, check: wantFileContent("notes.txt", fileTree["notes.txt"])},
		{name: "create empty content", op: "create_file", args: map[string]any{"path": "blank.txt", "content": ""},
			want: []string{"created blank.txt (0 lines, 0 bytes)"}, check: wantFileContent("blank.txt", "")},
		{name: "create protected git config", op: "create_file", args: map[string]any{"path": ".git/config", "content": "[core]\n"}, wantErr: true,
			want: []string{"error protected_path", "user_collaboration"}, check: wantFileGone(".git/config")},

		{name: "replace", op: "replace_string", args: map[string]any{"path": "main.go", "old_string": "println(\"hello\")", "new_string": "println(\"bye\")"},
			want:  []string{"main.go: 1 replacement at line 4", "-\tprintln(\"hello\")", "+\tprintln(\"bye\")"},
			check: wantFileContent("main.go", "package main\n\nfunc main() {\n\tprintln(\"bye\")\n}\n")},
		{name: "replace camelCase", op: "replace_string", args: map[string]any{"filePath": "notes.txt", "oldString": "two", "newString": "2"},
			want: []string{"1 replacement at line 2"}},
		{name: "replace tolerant", op: "replace_string", args: map[string]any{"path": "main.go", "old_string": "    println(\"hello\")", "new_string": "    println(\"tab\")"},
			want: []string{"(matched ignoring indentation; wrote new_string in the file's style: indentation)"}, check: wantFileContent("main.go", "package main\n\nfunc main() {\n\tprintln(\"tab\")\n}\n")},
		{name: "replace with curly quotes writes the file's ASCII quotes", op: "replace_string",
			args:  map[string]any{"path": "main.go", "old_string": "println(\u201chello\u201d)", "new_string": "println(\u201chello, world\u201d)"},
			want:  []string{"(matched ignoring unicode punctuation; wrote new_string in the file's style: \u201c→\", \u201d→\")", "+\tprintln(\"hello, world\")"},
			check: wantFileContent("main.go", "package main\n\nfunc main() {\n\tprintln(\"hello, world\")\n}\n")},
		{name: "patch with curly quotes writes the file's ASCII quotes", op: "apply_patch",
			args:  map[string]any{"patch": "*** Begin Patch\n*** Update File: main.go\n-\tprintln(\u201chello\u201d)\n+\tprintln(\u201cbye\u201d)\n*** End Patch\n"},
			want:  []string{"update main.go (wrote the added lines in the file's style: \u201c→\", \u201d→\")"},
			check: wantFileContent("main.go", "package main\n\nfunc main() {\n\tprintln(\"bye\")\n}\n")},
		{name: "replace all", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "o", "new_string": "0", "replace_all": true},
			want: []string{"3 replacements at lines 1, 2, 4"}},
		{name: "replace all on one line", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "e", "new_string": "E", "replace_all": true},
			want: []string{"4 replacements at lines 1, 3, 5\n"}},
		{name: "replace ambiguous on one line", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "e", "new_string": "E"}, wantErr: true,
			want: []string{"matches 4 places in notes.txt (lines 1, 3, 5)"}},
		{name: "replace ambiguous", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "o", "new_string": "0"}, wantErr: true,
			want: []string{"error ambiguous", "parameter: old_string"}, check: wantFileContent("notes.txt", fileTree["notes.txt"])},
		{name: "replace not found", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "thre\nfuor", "new_string": "x"}, wantErr: true,
			want: []string{"error not_found", "nearest text is lines 3-4", "first differing at line 3", "next: copy lines 3-4"}},
		{name: "replace count mismatch", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "o", "new_string": "0", "expected_replacements": 2}, wantErr: true,
			want: []string{"error count_mismatch", "parameter: expected_replacements"}},
		{name: "replace empty old", op: "replace_string", args: map[string]any{"path": "notes.txt", "old_string": "", "new_string": "x"}, wantErr: true,
			want: []string{"error invalid_value", "old_string is empty"}},
		{name: "replace missing file", op: "replace_string", args: map[string]any{"path": "gone.txt", "old_string": "a", "new_string": "b"}, wantErr: true,
			want: []string{"error not_found", "create_file", "parameter: path"}},

		{name: "multi replace", op: "multi_replace_string", args: map[string]any{"edits": []any{
			map[string]any{"path": "notes.txt", "old_string": "one", "new_string": "1"},
			map[string]any{"filePath": "pkg/util.go", "oldString": "a + b", "newString": "b + a"},
			map[string]any{"path": "notes.txt", "old_str": "five", "new_str": "5"},
		}}, want: []string{"3 edits in 2 file(s)\n1. notes.txt: 1 replacement at line 1\n2. pkg/util.go: 1 replacement at line 4\n3. notes.txt: 1 replacement at line 5"},
			check: wantFileContent("notes.txt", "1\ntwo\nthree\nfour\n5\n")},
		{name: "multi replace default path", op: "multi_replace_string", args: map[string]any{"path": "notes.txt", "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"}, map[string]any{"old_string": "two", "new_string": "2"},
		}}, check: wantFileContent("notes.txt", "1\n2\nthree\nfour\nfive\n")},
		{name: "multi replace all or nothing", op: "multi_replace_string", args: map[string]any{"edits": []any{
			map[string]any{"path": "notes.txt", "old_string": "one", "new_string": "1"},
			map[string]any{"path": "pkg/util.go", "old_string": "no such text", "new_string": "x"},
		}}, wantErr: true, want: []string{"error not_found", "edit 2", "no file was changed", "parameter: edits[1].old_string"}, check: wantFileContent("notes.txt", fileTree["notes.txt"])},
		{name: "multi replace unknown field", op: "multi_replace_string", args: map[string]any{"edits": []any{
			map[string]any{"path": "notes.txt", "old_string": "one", "new_string": "1", "count": 2},
		}}, wantErr: true, want: []string{"error unexpected_parameter", "count"}},
		{name: "multi replace no path", op: "multi_replace_string", args: map[string]any{"edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"},
		}}, wantErr: true, want: []string{"error missing_parameter", "edits[0].path"}},

		{name: "insert before line", op: "insert_edit", args: map[string]any{"path": "notes.txt", "line": 2, "content": "one and a half"},
			want: []string{"notes.txt: inserted before line 2", "+one and a half"}, check: wantFileContent("notes.txt", "one\none and a half\ntwo\nthree\nfour\nfive\n")},
		{name: "insert after pattern", op: "insert_edit", args: map[string]any{"path": "notes.txt", "after_pattern": "thr", "content": "3.5\n"},
			check: wantFileContent("notes.txt", "one\ntwo\nthree\n3.5\nfour\nfive\n")},
		{name: "insert after ambiguous pattern", op: "insert_edit", args: map[string]any{"path": "notes.txt", "after_pattern": "o", "content": "x\n"}, wantErr: true,
			want: []string{"error ambiguous", "is on 3 lines (lines 1, 2, 4)", "parameter: after_pattern"}, check: wantFileContent("notes.txt", fileTree["notes.txt"])},
		{name: "insert replacing a line with itself", op: "insert_edit", args: map[string]any{"path": "notes.txt", "start_line": 2, "content": "two"},
			want: []string{"notes.txt: replaced lines 2-2; nothing changed"}},
		{name: "multi replace undoing itself", op: "multi_replace_string", args: map[string]any{"path": "notes.txt", "edits": []any{
			map[string]any{"old_string": "two", "new_string": "2"}, map[string]any{"old_string": "2", "new_string": "two"}}},
			want: []string{"2 edits in 1 file(s); together they change nothing"}},
		{name: "insert before pattern", op: "insert_edit", args: map[string]any{"path": "notes.txt", "before": "one", "content": "zero"},
			check: wantFileContent("notes.txt", "zero\none\ntwo\nthree\nfour\nfive\n")},
		{name: "insert replace range", op: "insert_edit", args: map[string]any{"path": "notes.txt", "start_line": 2, "end_line": 4, "content": "middle"},
			want: []string{"replaced lines 2-4"}, check: wantFileContent("notes.txt", "one\nmiddle\nfive\n")},
		{name: "insert delete range", op: "insert_edit", args: map[string]any{"path": "notes.txt", "start_line": 5, "content": ""},
			want: []string{"deleted lines 5-5"}, check: wantFileContent("notes.txt", "one\ntwo\nthree\nfour\n")},
		{name: "insert no placement", op: "insert_edit", args: map[string]any{"path": "notes.txt", "content": "x"}, wantErr: true,
			want: []string{"error invalid_value"}},
		{name: "insert pattern missing", op: "insert_edit", args: map[string]any{"path": "notes.txt", "after": "zzz", "content": "x"}, wantErr: true,
			want: []string{"error not_found", "parameter: after_pattern"}, absent: []string{"did you mean"}},
		{name: "insert line out of range", op: "insert_edit", args: map[string]any{"path": "notes.txt", "line": 99, "content": "x"}, wantErr: true,
			want: []string{"error invalid_value", "the file has 5 lines", "6 appends after the last line"}},
		{name: "create under a file", op: "create_file", args: map[string]any{"path": "notes.txt/x", "content": "x"}, wantErr: true,
			want: []string{"error not_directory"}},

		{name: "rename", op: "rename_file", args: map[string]any{"path": "notes.txt", "new_path": "docs/notes.md"},
			want: []string{"renamed notes.txt -> docs/notes.md"}, check: wantFileContent("docs/notes.md", fileTree["notes.txt"])},
		{name: "rename alias destination", op: "rename_file", args: map[string]any{"source": "pkg", "destination": "lib"},
			check: wantFileContent("lib/util.go", fileTree["pkg/util.go"])},
		{name: "rename onto existing", op: "rename_file", args: map[string]any{"path": "notes.txt", "new_path": "main.go"}, wantErr: true,
			want: []string{"error exists", "parameter: new_path", "set overwrite true"}},
		{name: "rename overwrite", op: "rename_file", args: map[string]any{"path": "notes.txt", "new_path": "main.go", "overwrite": true},
			check: wantFileContent("main.go", fileTree["notes.txt"])},
		{name: "rename missing", op: "rename_file", args: map[string]any{"path": "nope", "new_path": "x"}, wantErr: true,
			want: []string{"error not_found"}},

		{name: "delete file", op: "delete_file", args: map[string]any{"path": "notes.txt"},
			want: []string{"deleted file notes.txt"}, check: wantFileGone("notes.txt")},
		{name: "delete dir needs recursive", op: "delete_file", args: map[string]any{"path": "pkg"}, wantErr: true,
			want: []string{"error invalid_value", "set recursive"}, absent: []string{"invalid argument"}},
		{name: "delete dir recursive", op: "delete_file", args: map[string]any{"path": "pkg", "recursive": true},
			want: []string{"deleted directory pkg/"}, check: wantFileGone("pkg")},
		{name: "delete working directory", op: "delete_file", args: map[string]any{"path": ".", "recursive": true}, wantErr: true,
			want: []string{"error is_workdir"}},
		{name: "delete missing", op: "delete_file", args: map[string]any{"path": "nope"}, wantErr: true, want: []string{"error not_found"}},

		{name: "mkdir", op: "create_directory", args: map[string]any{"path": "a/b/c"}, want: []string{"created a/b/c/"}},
		{name: "mkdir existing", op: "create_directory", args: map[string]any{"path": "pkg"}, want: []string{"pkg/ already exists"}},

		{name: "patch unified", op: "apply_patch", args: map[string]any{"patch": "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"},
			want: []string{"applied patch: update notes.txt\n--- a/notes.txt"}, check: wantFileContent("notes.txt", "one\nTWO\nthree\nfour\nfive\n")},
		{name: "patch envelope add move delete", op: "apply_patch", args: map[string]any{"patch": "*** Begin Patch\n*** Add File: added.txt\n+hi\n*** Update File: notes.txt\n*** Move to: moved.txt\n@@\n-one\n+ONE\n*** Delete File: crlf.txt\n*** End Patch\n"},
			want: []string{"applied patch:", "add added.txt", "move notes.txt -> moved.txt", "delete crlf.txt", "-one\n+ONE"}, absent: []string{"+hi", "-alpha"},
			check: func(t *testing.T, h *harness) {
				wantFileContent("added.txt", "hi\n")(t, h)
				wantFileContent("moved.txt", "ONE\ntwo\nthree\nfour\nfive\n")(t, h)
				wantFileGone("notes.txt")(t, h)
				wantFileGone("crlf.txt")(t, h)
			}},
		{name: "patch dry run", op: "apply_patch", args: map[string]any{"patch": "--- a/notes.txt\n+++ b/notes.txt\n@@\n-one\n+1\n", "dry_run": true},
			want: []string{"dry run, nothing written", "+1"}, check: wantFileContent("notes.txt", fileTree["notes.txt"])},
		{name: "patch alias diff", op: "apply_patch", args: map[string]any{"diff": "--- a/notes.txt\n+++ b/notes.txt\n@@\n-one\n+1\n"},
			check: wantFileContent("notes.txt", "1\ntwo\nthree\nfour\nfive\n")},
		{name: "patch garbage", op: "apply_patch", args: map[string]any{"patch": "please change line 2"}, wantErr: true,
			want: []string{"error bad_patch", "parameter: patch"}},
		{name: "patch hunk does not apply", op: "apply_patch", args: map[string]any{"patch": "--- a/notes.txt\n+++ b/notes.txt\n@@\n-seven\n+7\n"}, wantErr: true,
			want: []string{"error not_found", "nothing was written"}},
		{name: "patch misspelt path", op: "apply_patch", args: map[string]any{"patch": "--- a/pkg/utl.go\n+++ b/pkg/utl.go\n@@\n-x\n+y\n"}, wantErr: true,
			want: []string{"error not_found", "did you mean pkg/util.go?", "parameter: patch"}},
		{name: "patch that changes nothing", op: "apply_patch", args: map[string]any{"patch": "--- a/notes.txt\n+++ b/notes.txt\n@@\n one\n-two\n+two\n"}, wantErr: true,
			want: []string{"error no_change", "parameter: patch"}},
		{name: "patch with one file unchanged", op: "apply_patch", args: map[string]any{"patch": "--- a/notes.txt\n+++ b/notes.txt\n@@\n-two\n+two\n--- a/main.go\n+++ b/main.go\n@@\n-package main\n+package app\n"},
			want: []string{"applied patch: update notes.txt (no change), update main.go\n"}},
		{name: "patch protected", op: "apply_patch", args: map[string]any{"patch": "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+echo hi\n*** End Patch\n"}, wantErr: true,
			want: []string{"error protected_path", "user_collaboration"}, check: wantFileGone(".git/hooks/pre-commit")},

		{name: "unknown operation", op: "write_file", args: map[string]any{"path": "x"}, wantErr: true,
			want: []string{"error unknown_operation", "did you mean"}},
		{name: "parameter of another operation", op: "read_file", args: map[string]any{"path": "notes.txt", "old_string": "x"},
			want: []string{"one\ntwo", "Note: read_file does not take old_string; ignored. Its parameters: path string (required)"}},
		{name: "parameter of another operation, a required one missing", op: "read_file", args: map[string]any{"where": "notes.txt"}, wantErr: true,
			want: []string{"error unexpected_parameter", "read_file does not take where, and requires path"}},
		{name: "client-injected keys dropped silently", op: "read_file", args: map[string]any{"path": "notes.txt", "wait_for_previous": true, "_meta_hint": "x", "waitForPrevious": false},
			want: []string{"one\ntwo"}, absent: []string{"Note:", "wait_for_previous", "_meta_hint"}},
	})
}

func TestFileUnknownEnum(t *testing.T) {
	h := newFileHarness(t, 0)
	h.write(fileTree)
	got, isErr, _ := h.op("create_file", map[string]any{"path": "x", "content": "y", "mode": "replace"})
	if !isErr || !strings.Contains(got, "mode must be one of overwrite, append, create_if_missing") {
		t.Errorf("create_file mode=replace = %q (isError %v), want the enum named", got, isErr)
	}
}

// TestFileGrepLongLine checks that a match in a long line is shown cut around the match, and
// says so, so the excerpt is not taken for the whole line.
func TestFileGrepLongLine(t *testing.T) {
	h := newFileHarness(t, 0)
	h.write(map[string]string{"min.js": strings.Repeat("var a=1;", 1000) + "NEEDLE" + strings.Repeat("b", 1000) + "\nshort NEEDLE\n"})
	got, _ := h.mustOp("grep_search", map[string]any{"pattern": "NEEDLE"})
	for _, want := range []string{"NEEDLE" + strings.Repeat("b", 10), "bbb [line cut]\n", "\n2:short NEEDLE"} {
		if !strings.Contains(got, want) {
			t.Errorf("grep_search NEEDLE = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "short NEEDLE [line cut]") {
		t.Errorf("grep_search NEEDLE = %q, want no cut marker on the short line", got)
	}
}

// TestFileEditTooLarge checks that an edit of a file above the engine's limit blames the path
// (not old_string or line) and points to terminal tools. The file is sparse, so it costs no disk.
func TestFileEditTooLarge(t *testing.T) {
	h := newFileHarness(t, 0)
	f, err := os.Create(filepath.Join(h.wd, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(edit.MaxEditSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		op   string
		args map[string]any
	}{
		{"replace_string", map[string]any{"path": "huge.log", "old_string": "a", "new_string": "b"}},
		{"insert_edit", map[string]any{"path": "huge.log", "line": 1, "content": "x"}},
	}
	for _, tt := range tests {
		got, isErr, _ := h.op(tt.op, tt.args)
		if !isErr || !strings.Contains(got, "error too_large") || !strings.Contains(got, "parameter: path\n") {
			t.Errorf("file_operations %s on a huge file = %q (isError %v), want too_large about path", tt.op, got, isErr)
		}
	}
}

// wantTreeUnchanged checks that the working directory still holds fileTree exactly and nothing
// else but what the harness wrote (a dry run must leave no trace, temporary files included).
func wantTreeUnchanged(t *testing.T, h *harness) {
	t.Helper()
	for p, content := range fileTree {
		if got := h.read(p); got != content {
			t.Errorf("%s = %q after a dry run, want %q", p, got, content)
		}
	}
	filepath.WalkDir(h.wd, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(h.wd, p)
		rel = filepath.ToSlash(rel)
		if !d.IsDir() {
			if _, ok := fileTree[rel]; !ok {
				t.Errorf("a dry run left %s", rel)
			}
		}
		return nil
	})
}

// TestFileDryRun: every edit operation takes dry_run, answers what it would do and writes
// nothing; it refuses what the real call would refuse.
func TestFileDryRun(t *testing.T) {
	runFileCases(t, []fileCase{
		{name: "create new", op: "create_file", args: map[string]any{"path": "new/a.txt", "content": "x\n", "dry_run": true},
			want: []string{"dry run, nothing written: would create new/a.txt (1 lines, 2 bytes)"}, check: wantTreeUnchanged},
		{name: "create overwrite", op: "create_file", args: map[string]any{"path": "notes.txt", "content": "one\n", "dry_run": true},
			want: []string{"dry run, nothing written: overwrote notes.txt", "-two"}, check: wantTreeUnchanged},
		{name: "create if missing still refuses", op: "create_file", args: map[string]any{"path": "notes.txt", "content": "z", "mode": "create_if_missing", "dry_run": true},
			wantErr: true, want: []string{"error exists"}, check: wantTreeUnchanged},
		{name: "replace", op: "replace_string", args: map[string]any{"path": "main.go", "old_string": "hello", "new_string": "bye", "dry_run": true},
			want: []string{"dry run, nothing written: main.go: 1 replacement at line 4", "+\tprintln(\"bye\")"}, check: wantTreeUnchanged},
		{name: "replace not found still fails", op: "replace_string", args: map[string]any{"path": "main.go", "old_string": "nothing like it", "new_string": "x", "dry_run": true},
			wantErr: true, want: []string{"error not_found"}, check: wantTreeUnchanged},
		{name: "multi replace", op: "multi_replace_string", args: map[string]any{"dry_run": true, "edits": []map[string]any{
			{"path": "notes.txt", "old_string": "two", "new_string": "2"}, {"path": "pkg/util.go", "old_string": "adds", "new_string": "sums"}}},
			want: []string{"dry run, nothing written: 2 edits in 2 file(s)", "+2", "+// Add sums."}, check: wantTreeUnchanged},
		{name: "insert", op: "insert_edit", args: map[string]any{"path": "notes.txt", "line": 1, "content": "zero", "dry_run": true},
			want: []string{"dry run, nothing written: notes.txt: inserted before line 1", "+zero"}, check: wantTreeUnchanged},
		{name: "rename", op: "rename_file", args: map[string]any{"path": "main.go", "new_path": "cmd/main.go", "dry_run": true},
			want: []string{"dry run, nothing written: would rename main.go -> cmd/main.go"}, check: wantTreeUnchanged},
		{name: "rename onto an existing file still refused", op: "rename_file", args: map[string]any{"path": "main.go", "new_path": "notes.txt", "dry_run": true},
			wantErr: true, want: []string{"error exists"}, check: wantTreeUnchanged},
		{name: "delete file", op: "delete_file", args: map[string]any{"path": "notes.txt", "dry_run": true},
			want: []string{"dry run, nothing written: would delete file notes.txt"}, check: wantTreeUnchanged},
		{name: "delete directory", op: "delete_file", args: map[string]any{"path": "pkg", "recursive": true, "dry_run": true},
			want: []string{"dry run, nothing written: would delete directory pkg/ and its 4 entries"}, check: wantTreeUnchanged},
		{name: "patch", op: "apply_patch", args: map[string]any{"dry_run": true, "patch": "*** Begin Patch\n*** Update File: notes.txt\n-two\n+2\n*** Delete File: main.go\n*** End Patch\n"},
			want: []string{"dry run, nothing written; the patch applies", "+2"}, check: wantTreeUnchanged},
		{name: "create directory", op: "create_directory", args: map[string]any{"path": "new/sub", "dry_run": true},
			want: []string{"dry run, nothing written: would create new/sub/"}, check: wantTreeUnchanged},
		{name: "create an existing directory", op: "create_directory", args: map[string]any{"path": "pkg", "dry_run": true},
			want: []string{"pkg/ already exists"}, check: wantTreeUnchanged},
		{name: "create directory over a file still refused", op: "create_directory", args: map[string]any{"path": "notes.txt/sub", "dry_run": true},
			wantErr: true, want: []string{"error exists"}, check: wantTreeUnchanged},
	})
}

// TestFileCreateEncoding: create_file writes text in the encoding asked for and refuses text the
// encoding cannot hold, naming the character, where it is, and an encoding that can.
func TestFileCreateEncoding(t *testing.T) {
	runFileCases(t, []fileCase{
		{name: "latin-1", op: "create_file", args: map[string]any{"path": "l1.txt", "content": "café\n", "encoding": "latin-1"},
			want: []string{"created l1.txt (1 lines, 5 bytes, latin-1)"}, check: wantFileContent("l1.txt", "caf\xe9\n")},
		{name: "windows-1252", op: "create_file", args: map[string]any{"path": "w.txt", "content": "5 €\n", "encoding": "windows-1252"},
			want: []string{"created w.txt (1 lines, 4 bytes, windows-1252)"}, check: wantFileContent("w.txt", "5 \x80\n")},
		{name: "utf-16le with BOM", op: "create_file", args: map[string]any{"path": "u.txt", "content": "hé\n", "encoding": "utf-16le"},
			want: []string{"created u.txt (1 lines, 8 bytes, utf-16le)"}, check: wantFileContent("u.txt", "\xff\xfeh\x00\xe9\x00\n\x00")},
		{name: "utf-16be with BOM", op: "create_file", args: map[string]any{"path": "u.txt", "content": "h", "encoding": "utf-16be"},
			check: wantFileContent("u.txt", "\xfe\xff\x00h")},
		{name: "overwrite a CRLF file in latin-1 writes the bytes as given", op: "create_file",
			args:  map[string]any{"path": "crlf.txt", "content": "é\n", "encoding": "latin-1"},
			check: wantFileContent("crlf.txt", "\xe9\n")},
		{name: "base64 bytes", op: "create_file", args: map[string]any{"path": "b.bin", "content": "AAEC/w==", "encoding": "base64"},
			check: wantFileContent("b.bin", "\x00\x01\x02\xff")},
		{name: "latin-1 cannot hold the euro sign", op: "create_file", args: map[string]any{"path": "e.txt", "content": "a\nprice 5 €", "encoding": "latin-1"},
			wantErr: true, want: []string{"error unencodable: latin-1 cannot encode '€' (U+20AC) at line 2, column 9", "parameter: content", "next: set encoding windows-1252"},
			check: wantFileGone("e.txt")},
		{name: "bad base64", op: "create_file", args: map[string]any{"path": "b.bin", "content": "@@@", "encoding": "base64"},
			wantErr: true, want: []string{"error invalid_value: content is not valid base64"}, check: wantFileGone("b.bin")},
		{name: "unknown encoding", op: "create_file", args: map[string]any{"path": "x.txt", "content": "x", "encoding": "ebcdic"},
			wantErr: true, want: []string{"error invalid_value", "encoding must be one of"}, check: wantFileGone("x.txt")},
		{name: "read_file does not decode legacy encodings", op: "read_file", args: map[string]any{"path": "notes.txt", "encoding": "latin-1"},
			wantErr: true, want: []string{"error invalid_value: latin-1 is an encoding create_file writes", "encoding hex or base64"}},
	})
}

func TestFileAge(t *testing.T) {
	const day = 24 * time.Hour
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "now"}, {0, "now"}, {59 * time.Second, "now"}, {time.Minute, "1m"}, {59 * time.Minute, "59m"},
		{time.Hour, "1h"}, {47 * time.Hour, "47h"}, {2 * day, "2d"}, {59 * day, "59d"}, {60 * day, "2mo"},
		{729 * day, "24mo"}, {730 * day, "2y"}, {3650 * day, "10y"},
	} {
		if got := fileAge(tt.d); got != tt.want {
			t.Errorf("fileAge(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
