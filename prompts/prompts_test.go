package prompts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/golden"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// describe renders a prompt's listing and text the way a reviewer wants to see them in a diff.
func describe(p Prompt, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\ndescription: %s\n", p.Name, p.Description)
	for _, a := range p.Arguments {
		fmt.Fprintf(&b, "argument: %s required=%v default=%q: %s\n", a.Name, a.Required, a.Default, a.Description)
	}
	fmt.Fprintf(&b, "bytes: %d, estimated tokens: %d\n", len(text), (len(text)+3)/4)
	b.WriteString("----\n")
	b.WriteString(text)
	return b.String()
}

// Every embedded prompt, rendered with its defaults (required arguments get a sample value), is
// pinned by a golden file; the size line in it makes token cost visible in review.
func TestEmbeddedGolden(t *testing.T) {
	list, err := List("")
	if err != nil {
		t.Fatalf("List(\"\") error: %v", err)
	}
	var names []string
	for _, p := range list {
		names = append(names, p.Name)
		t.Run(p.Name, func(t *testing.T) {
			args := map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = "<" + a.Name + ">"
				}
			}
			got, text, err := Get(p.Name, "", args)
			if err != nil {
				t.Fatalf("Get(%q) error: %v", p.Name, err)
			}
			if got.Source != SourceEmbedded {
				t.Errorf("Get(%q).Source = %q, want %q", p.Name, got.Source, SourceEmbedded)
			}
			golden.CheckString(t, "testdata/"+p.Name+".golden", describe(got, text))
		})
	}
	want := []string{"code_review", "fix_error", "summarize_diff", "toolhost_system", "write_tests"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("embedded prompt names (-want +got):\n%s", diff)
	}
}

// Prompts are sent to the model whole; keep them short.
func TestEmbeddedSize(t *testing.T) {
	list, _ := List("")
	for _, p := range list {
		limit := 900
		if p.Name == "toolhost_system" {
			limit = 1600
		}
		if len(p.body) > limit {
			t.Errorf("prompt %s is %d bytes, budget %d", p.Name, len(p.body), limit)
		}
	}
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUserPrompts(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deploy.md", "---\nname: deploy\ndescription: \"Deploy: carefully\"\narguments:\n  - name: env\n    required: true\n---\nDeploy to {{env}}.\n")
	writeFile(t, dir, "plain.md", "# Explain the build\n\nExplain how this project is built.\n")
	writeFile(t, dir, "shadow.md", "---\nname: code_review\n---\nMy own review.\n")
	writeFile(t, dir, "broken.md", "---\nname: broken\ncolor: red\n---\nx\n")
	writeFile(t, dir, "notes.txt", "not a prompt")

	list, err := List(dir)
	var got []string
	for _, p := range list {
		got = append(got, p.Source+":"+p.Name)
	}
	want := []string{"embedded:code_review", "embedded:fix_error", "embedded:summarize_diff", "embedded:toolhost_system", "embedded:write_tests", "user:deploy", "user:plain"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List() names (-want +got):\n%s", diff)
	}
	var upe *UserPromptError
	if !errors.As(err, &upe) {
		t.Fatalf("List() error = %v, want *UserPromptError for the skipped files", err)
	}
	for _, wantErr := range []string{
		`broken.md: front matter line 3: unknown key "color"; use name, description, arguments`,
		`shadow.md: name "code_review" is already used by embedded/code_review.md; user prompts cannot replace other prompts, rename it`,
	} {
		if !strings.Contains(err.Error(), wantErr) {
			t.Errorf("List() error = %q, want it to contain %q", err, wantErr)
		}
	}

	p, text, err := Get("deploy", dir, map[string]string{"env": "staging"})
	if err != nil || text != "Deploy to staging.\n" || p.Description != "Deploy: carefully" {
		t.Errorf("Get(deploy) = %q, %q, %v; want %q", p.Description, text, err, "Deploy to staging.\n")
	}
	p, _, err = Get("plain", dir, nil)
	if err != nil || p.Description != "Explain the build" {
		t.Errorf("Get(plain).Description = %q, %v; want the first line", p.Description, err)
	}
	if _, text, _ := Get("code_review", dir, nil); strings.Contains(text, "My own review") {
		t.Errorf("user file replaced the embedded code_review prompt")
	}

	// Asking for a skipped prompt says why it was skipped.
	if _, _, err := Get("broken", dir, nil); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `unknown key "color"`) {
		t.Errorf("Get(broken) error = %v, want ErrNotFound explaining the skipped file", err)
	}

	// A file added while running is listed at the next call.
	writeFile(t, dir, "later.md", "Added later.\n")
	if _, text, err := Get("later", dir, nil); err != nil || text != "Added later.\n" {
		t.Errorf("Get(later) after adding the file = %q, %v", text, err)
	}
}

func TestListMissingDir(t *testing.T) {
	list, err := List(filepath.Join(t.TempDir(), "nope"))
	if err != nil || len(list) != 5 {
		t.Errorf("List(missing dir) = %d prompts, %v; want the 5 embedded ones and no error", len(list), err)
	}
}

func TestGetErrors(t *testing.T) {
	tests := []struct {
		name    string
		prompt  string
		args    map[string]string
		wantIs  error
		wantErr string
	}{
		{"missing required", "write_tests", nil, ErrMissingArgument,
			`prompt write_tests: missing required prompt argument "target" (The code to test, e.g. a function, file or package)`},
		{"unknown argument", "code_review", map[string]string{"focs": "x"}, ErrUnknownArgument,
			`prompt code_review: unknown prompt argument "focs"; it takes target, focus`},
		{"unknown prompt", "nope", nil, ErrNotFound,
			`prompt not found: "nope"; available: code_review, fix_error, summarize_diff, toolhost_system, write_tests`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Get(tt.prompt, "", tt.args)
			if !errors.Is(err, tt.wantIs) || err.Error() != tt.wantErr {
				t.Errorf("Get(%q, %v) error = %v, want %q (errors.Is %v)", tt.prompt, tt.args, err, tt.wantErr, tt.wantIs)
			}
		})
	}
}

func TestRenderSubstitution(t *testing.T) {
	p, err := Parse([]byte("---\narguments:\n  - name: a\n  - name: b\n    default: B\n---\n{{a}}|{{ b }}|{{a}}\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args map[string]string
		want string
	}{
		{nil, "|B|\n"},
		{map[string]string{"a": "{{b}}"}, "{{b}}|B|{{b}}\n"}, // values are not substituted again
		{map[string]string{"a": "x", "b": ""}, "x||x\n"},
	}
	for _, tt := range tests {
		if got, err := p.Render(tt.args); err != nil || got != tt.want {
			t.Errorf("Render(%v) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    Prompt
		wantErr string
	}{
		{"full front matter", "---\nname: x\ndescription: 'it''s short'\narguments:\n  - name: a\n    description: \"A\"\n    required: true\n  - name: b\n    default: d\n---\n\nBody {{a}} {{b}}\n\n",
			Prompt{Name: "x", Description: "it's short", Arguments: []Argument{{Name: "a", Description: "A", Required: true}, {Name: "b", Default: "d"}}, body: "Body {{a}} {{b}}\n"}, ""},
		{"no front matter", "Do the thing.\nMore.", Prompt{Name: "file", Description: "Do the thing.", body: "Do the thing.\nMore.\n"}, ""},
		{"empty front matter", "---\n---\nHi", Prompt{Name: "file", Description: "Hi", body: "Hi\n"}, ""},
		{"CRLF", "---\r\nname: c\r\n---\r\nHi\r\n", Prompt{Name: "c", Description: "Hi", body: "Hi\n"}, ""},
		{"unclosed", "---\nname: x\nbody", Prompt{}, "front matter starts with --- but has no closing --- line"},
		{"bad name", "---\nname: Bad Name\n---\nx", Prompt{}, `name "Bad Name": use 1-64 lower-case letters, digits, _ or -`},
		{"undeclared placeholder", "Hi {{who}}", Prompt{}, "placeholder {{who}} is not a declared argument (declared: no arguments)"},
		{"bad required", "---\narguments:\n  - name: a\n    required: maybe\n---\nx", Prompt{}, `front matter line 4: required must be true or false, got "maybe"`},
		{"unknown argument key", "---\narguments:\n  - name: a\n    type: string\n---\nx", Prompt{}, `front matter line 4: unknown argument key "type"; use name, description, required, default`},
		{"duplicate argument", "---\narguments:\n  - name: a\n  - name: a\n---\nx", Prompt{}, `argument "a" declared twice`},
		{"empty body", "---\nname: e\n---\n", Prompt{}, "empty prompt text"},
		{"not key value", "---\njust text\n---\nx", Prompt{}, `front matter line 2: want key: value, got "just text"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.text), "file")
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("Parse(%q) error = %q, want %q", tt.text, gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty(), cmp.AllowUnexported(Prompt{})); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}
