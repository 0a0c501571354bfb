package consolidated

import (
	"context"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/fsread"
)

// maxCompletions is the most values one completion/complete answers (the protocol's limit).
const maxCompletions = 100

// A Completer proposes values for one variable of a resource template, for the client behind
// conv, given the value typed so far and the template's other variables already chosen.
type Completer func(ctx context.Context, conv, variable, value string, chosen map[string]string) []string

// pathArguments are prompt arguments that name files or directories: they complete like the
// file template's path, relative to the working directory.
var pathArguments = []string{"target", "path", "file"}

// Complete answers completion/complete: resource template variables through the Complete of the
// advertised tool's template, and prompt arguments that name a path with the working
// directory's entries. Values that belong to another conversation are never proposed: a
// conversation variable completes to the caller's own conversation only.
func (r *Registry) Complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if reg, err := r.route(ctx, req.Session); err != nil || reg != r {
		if err != nil {
			return nil, resourceError(err)
		}
		return reg.Complete(ctx, req)
	}
	p := req.Params
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if p == nil || p.Ref == nil {
		return res, nil
	}
	conv := r.callerConversation(ctx, req.Session, req.Extra)
	var chosen map[string]string
	if p.Context != nil {
		chosen = p.Context.Arguments
	}
	var values []string
	switch p.Ref.Type {
	case "ref/resource":
		if c := r.completer(func(res Resource) bool { return res.Template != nil && res.Template.URITemplate == p.Ref.URI }); c != nil {
			values = c(ctx, conv, p.Argument.Name, p.Argument.Value, chosen)
		}
	case "ref/prompt":
		if slices.Contains(pathArguments, p.Argument.Name) {
			if c := r.completer(func(res Resource) bool { return res.Prefix == "file://" }); c != nil {
				values = c(ctx, conv, relativePath, p.Argument.Value, chosen)
			}
		}
	}
	res.Completion.Total = len(values)
	if len(values) > maxCompletions {
		values, res.Completion.HasMore = values[:maxCompletions], true
	}
	res.Completion.Values = append(res.Completion.Values, values...)
	return res, nil
}

// relativePath asks the file template's completer for paths relative to the working directory
// rather than its path variable (absolute, without the leading slash).
const relativePath = "\x00relative"

func (r *Registry) completer(match func(Resource) bool) Completer {
	for _, t := range r.advertised() {
		for _, res := range t.Resources {
			if res.Complete != nil && match(res) {
				return res.Complete
			}
		}
	}
	return nil
}

// completeOwnConversation completes a conversation variable: the caller's conversation, when
// it starts with what was typed.
func completeOwnConversation(conv, value string) []string {
	if conv != "" && strings.HasPrefix(conv, value) {
		return []string{conv}
	}
	return nil
}

// completePath lists the entries of the working directory (root) that complete value, a
// slash-separated path relative to it: "src/ma" proposes "src/main.go" and "src/maps/".
// Hidden entries appear only once a "." is typed, .git never, and nothing screen withholds.
func completePath(ctx context.Context, root *os.Root, screen fsread.Screen, value string) []string {
	dir, base := path.Split(value)
	clean := path.Clean("./" + dir)
	if strings.HasPrefix(clean, "..") || path.IsAbs(dir) {
		return nil
	}
	entries, err := fs.ReadDir(root.FS(), clean)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if ctx.Err() != nil {
			break
		}
		if !strings.HasPrefix(name, base) || name == ".git" || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if screen != nil && screen.Withhold(path.Join(clean, name), e.IsDir()) {
			continue // a name list_dir would withhold: ~/.ssh with the working directory at ~
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	return out
}
