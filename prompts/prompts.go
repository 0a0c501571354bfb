// Package prompts holds the prompts toolhost serves as MCP prompts: an embedded system prompt that
// teaches an agent to use toolhost's tools well, short embedded task prompts (code review, tests,
// diff summary), and the user's own Markdown prompts from a configuration directory.
//
// Every prompt is a Markdown file with a small front matter block:
//
//	---
//	name: code_review
//	description: Review a change for bugs, risks and missing tests.
//	arguments:
//	  - name: focus
//	    description: What to weigh most.
//	    required: false
//	    default: correctness
//	---
//	Review the change, focusing on {{focus}}.
//
// The front matter is a fixed subset of YAML: the keys name, description and arguments, and per
// argument name, description, required (true/false) and default. Values may be quoted. A user file
// without front matter is still a prompt: its name is the file name without ".md" and its
// description the first line of text. The body may use {{argument}} placeholders, replaced in a
// single pass by [Get]; every placeholder must be a declared argument.
//
// User prompts are read from the directory at every [List] and [Get] call, so a new or edited file
// shows up without a rebuild or restart.
//
// Shadowing policy: user prompts never replace embedded ones. A user file whose name is taken by
// an embedded prompt is refused (skipped and reported in List's error), because the embedded texts
// are a pinned product surface and a stray file silently changing what every agent is told would
// be hard to notice; pick another name instead.
package prompts

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"toolhost/internal/lazyregexp"
)

//go:embed embedded/*.md
var embeddedFS embed.FS

// Sources of a prompt.
const (
	SourceEmbedded = "embedded"
	SourceUser     = "user"
)

// MaxUserPromptBytes caps a user prompt file; prompts cost tokens every time they are used, and a
// larger file is almost certainly not a prompt.
const MaxUserPromptBytes = 64 << 10

// ErrNotFound is returned by [Get] for a name that no prompt has.
var ErrNotFound = errors.New("prompt not found")

// ErrMissingArgument is returned by [Get] when a required argument is not given.
var ErrMissingArgument = errors.New("missing required prompt argument")

// ErrUnknownArgument is returned by [Get] for an argument the prompt does not declare, so a
// misspelt argument is not silently ignored.
var ErrUnknownArgument = errors.New("unknown prompt argument")

// Argument is a declared prompt parameter, listed to clients so they can ask the user for it.
type Argument struct {
	Name        string
	Description string
	Required    bool
	// Default replaces the placeholder when an optional argument is not given.
	Default string
}

// Prompt is a listable prompt. The text is obtained with [Get].
type Prompt struct {
	Name        string
	Description string
	Arguments   []Argument
	// Source is SourceEmbedded or SourceUser.
	Source string
	// Path is the file the prompt came from: inside the binary for embedded prompts
	// ("embedded/code_review.md"), on disk for user prompts.
	Path string

	body string
}

// UserPromptError reports a user prompt file that was skipped, and why.
type UserPromptError struct {
	Path string
	Err  error
}

func (e *UserPromptError) Error() string { return "user prompt " + e.Path + ": " + e.Err.Error() }
func (e *UserPromptError) Unwrap() error { return e.Err }

var (
	nameRE        = lazyregexp.New(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	placeholderRE = lazyregexp.New(`\{\{\s*([A-Za-z0-9_-]+)\s*\}\}`)
	argNameRE     = lazyregexp.New(`^[A-Za-z0-9_-]+$`)
)

// embedded parses the embedded prompts. They are checked by tests, so an error here is a build
// defect; it is still returned rather than panicking.
func embedded() ([]Prompt, error) {
	entries, err := fs.ReadDir(embeddedFS, "embedded")
	if err != nil {
		return nil, fmt.Errorf("read embedded prompts: %w", err)
	}
	var out []Prompt
	for _, e := range entries {
		p := path.Join("embedded", e.Name())
		data, err := embeddedFS.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read embedded prompt %s: %w", p, err)
		}
		pr, err := Parse(data, strings.TrimSuffix(e.Name(), ".md"))
		if err != nil {
			return nil, fmt.Errorf("embedded prompt %s: %w", p, err)
		}
		pr.Source, pr.Path = SourceEmbedded, p
		out = append(out, pr)
	}
	return out, nil
}

// List returns the embedded prompts followed by the user prompts found in userDir (the *.md files
// directly in it, in name order). userDir "" or a missing directory means no user prompts.
//
// The returned list is always complete: invalid user files, and user files whose name is already
// taken, are left out and described in err (a join of [*UserPromptError]), which the tool layer
// should log rather than fail on.
func List(userDir string) ([]Prompt, error) {
	out, err := embedded()
	if err != nil {
		return nil, err
	}
	users, errs := userPrompts(userDir)
	taken := map[string]string{}
	for _, p := range out {
		taken[p.Name] = p.Path
	}
	for _, p := range users {
		if by, dup := taken[p.Name]; dup {
			errs = append(errs, &UserPromptError{Path: p.Path, Err: fmt.Errorf("name %q is already used by %s; user prompts cannot replace other prompts, rename it", p.Name, by)})
			continue
		}
		taken[p.Name] = p.Path
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}

func userPrompts(dir string) ([]Prompt, []error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{&UserPromptError{Path: dir, Err: err}}
	}
	var out []Prompt
	var errs []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		pr, err := readUserPrompt(p, strings.TrimSuffix(e.Name(), ".md"))
		if err != nil {
			errs = append(errs, &UserPromptError{Path: p, Err: err})
			continue
		}
		out = append(out, pr)
	}
	return out, errs
}

func readUserPrompt(p, stem string) (Prompt, error) {
	fi, err := os.Stat(p) // follows symlinks: the directory belongs to the user
	if err != nil {
		return Prompt{}, err
	}
	if !fi.Mode().IsRegular() {
		return Prompt{}, errors.New("not a regular file")
	}
	if fi.Size() > MaxUserPromptBytes {
		return Prompt{}, fmt.Errorf("%d bytes, at most %d", fi.Size(), MaxUserPromptBytes)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return Prompt{}, err
	}
	pr, err := Parse(data, stem)
	if err != nil {
		return Prompt{}, err
	}
	pr.Source, pr.Path = SourceUser, p
	return pr, nil
}

// Get returns the prompt called name and its text with args substituted. Optional arguments not
// given take their default (or ""). A missing required argument is [ErrMissingArgument], an
// undeclared one [ErrUnknownArgument], an unknown name [ErrNotFound]; each message names what
// is valid.
func Get(name, userDir string, args map[string]string) (Prompt, string, error) {
	all, listErr := List(userDir)
	if all == nil && listErr != nil {
		return Prompt{}, "", listErr
	}
	i := slices.IndexFunc(all, func(p Prompt) bool { return p.Name == name })
	if i < 0 {
		names := make([]string, len(all))
		for j, p := range all {
			names[j] = p.Name
		}
		err := fmt.Errorf("%w: %q; available: %s", ErrNotFound, name, strings.Join(names, ", "))
		if listErr != nil {
			// The prompt may be one of the skipped user files; say why they were skipped.
			err = fmt.Errorf("%w\n%w", err, listErr)
		}
		return Prompt{}, "", err
	}
	p := all[i]
	text, err := p.Render(args)
	if err != nil {
		return Prompt{}, "", err
	}
	return p, text, nil
}

// Body is the prompt's text as written, its {{argument}} placeholders unreplaced: for a reader
// (a model) that fills them in itself.
func (p Prompt) Body() string { return p.body }

// Render substitutes args into the prompt's body, as [Get] does.
func (p Prompt) Render(args map[string]string) (string, error) {
	vals := map[string]string{}
	var missing []string
	for _, a := range p.Arguments {
		v, ok := args[a.Name]
		switch {
		case ok:
			vals[a.Name] = v
		case a.Required:
			missing = append(missing, describeArg(a))
		default:
			vals[a.Name] = a.Default
		}
	}
	var unknown []string
	for k := range args {
		if _, ok := vals[k]; !ok && !slices.ContainsFunc(p.Arguments, func(a Argument) bool { return a.Name == k }) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	slices.Sort(unknown)
	if len(missing) > 0 {
		return "", fmt.Errorf("prompt %s: %w %s", p.Name, ErrMissingArgument, strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		return "", fmt.Errorf("prompt %s: %w %s; it takes %s", p.Name, ErrUnknownArgument, strings.Join(unknown, ", "), p.argNames())
	}
	return placeholderRE.ReplaceAllStringFunc(p.body, func(m string) string {
		return vals[placeholderRE.FindStringSubmatch(m)[1]]
	}), nil
}

func describeArg(a Argument) string {
	s := strconv.Quote(a.Name)
	if a.Description != "" {
		s += " (" + strings.TrimSuffix(a.Description, ".") + ")"
	}
	return s
}

func (p Prompt) argNames() string {
	if len(p.Arguments) == 0 {
		return "no arguments"
	}
	names := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// Parse reads one prompt file: optional front matter, then the Markdown body. defaultName is used
// when the front matter does not name the prompt (the file name without ".md").
func Parse(data []byte, defaultName string) (Prompt, error) {
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\ufeff"))), "\r\n", "\n")
	var p Prompt
	body := text
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		front, after, found := strings.Cut(rest, "\n---\n")
		if !found && strings.HasPrefix(rest, "---\n") {
			front, after, found = "", rest[4:], true
		}
		if !found {
			front, found = strings.CutSuffix(rest, "\n---")
		}
		if !found {
			return Prompt{}, errors.New("front matter starts with --- but has no closing --- line")
		}
		if err := parseFront(front, &p); err != nil {
			return Prompt{}, err
		}
		body = after
	}
	p.body = strings.TrimSpace(body) + "\n"
	if p.Name == "" {
		p.Name = defaultName
	}
	if !nameRE.MatchString(p.Name) {
		return Prompt{}, fmt.Errorf("name %q: use 1-64 lower-case letters, digits, _ or -", p.Name)
	}
	if p.Description == "" {
		p.Description = firstLine(p.body)
	}
	if strings.TrimSpace(p.body) == "" {
		return Prompt{}, errors.New("empty prompt text")
	}
	for _, m := range placeholderRE.FindAllStringSubmatch(p.body, -1) {
		if !slices.ContainsFunc(p.Arguments, func(a Argument) bool { return a.Name == m[1] }) {
			return Prompt{}, fmt.Errorf("placeholder {{%s}} is not a declared argument (declared: %s)", m[1], p.argNames())
		}
	}
	return p, nil
}

func firstLine(body string) string {
	for line := range strings.Lines(body) {
		if l := strings.TrimSpace(strings.TrimLeft(line, "# ")); l != "" {
			if len(l) > 100 {
				l = l[:97] + "..."
			}
			return l
		}
	}
	return ""
}

// parseFront parses the supported YAML subset; anything else is an error naming the line, so a
// user learns at once that a key is not supported instead of seeing it ignored.
func parseFront(front string, p *Prompt) error {
	inArgs := false
	var cur *Argument
	for n, line := range strings.Split(front, "\n") {
		lineNo := n + 2 // the opening --- is line 1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indented := line != strings.TrimLeft(line, " \t")
		item := strings.HasPrefix(trimmed, "- ")
		if item {
			trimmed = strings.TrimSpace(trimmed[2:])
		}
		key, val, ok := strings.Cut(trimmed, ":")
		if !ok {
			return fmt.Errorf("front matter line %d: want key: value, got %q", lineNo, line)
		}
		key, val = strings.TrimSpace(key), unquote(strings.TrimSpace(val))
		switch {
		case !indented && !item:
			inArgs, cur = false, nil
			switch key {
			case "name":
				p.Name = val
			case "description":
				p.Description = val
			case "arguments":
				if val != "" && val != "[]" {
					return fmt.Errorf("front matter line %d: arguments must be a list of items on the following lines", lineNo)
				}
				inArgs = true
			default:
				return fmt.Errorf("front matter line %d: unknown key %q; use name, description, arguments", lineNo, key)
			}
		case !inArgs:
			return fmt.Errorf("front matter line %d: unexpected indented line outside arguments", lineNo)
		default:
			if item {
				p.Arguments = append(p.Arguments, Argument{})
				cur = &p.Arguments[len(p.Arguments)-1]
			}
			if cur == nil {
				return fmt.Errorf("front matter line %d: an argument starts with \"- name: ...\"", lineNo)
			}
			switch key {
			case "name":
				cur.Name = val
			case "description":
				cur.Description = val
			case "default":
				cur.Default = val
			case "required":
				b, err := strconv.ParseBool(val)
				if err != nil {
					return fmt.Errorf("front matter line %d: required must be true or false, got %q", lineNo, val)
				}
				cur.Required = b
			default:
				return fmt.Errorf("front matter line %d: unknown argument key %q; use name, description, required, default", lineNo, key)
			}
		}
	}
	seen := map[string]bool{}
	for i, a := range p.Arguments {
		if !argNameRE.MatchString(a.Name) {
			return fmt.Errorf("argument %d: name %q: use letters, digits, _ or -", i+1, a.Name)
		}
		if seen[a.Name] {
			return fmt.Errorf("argument %q declared twice", a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"') {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}
