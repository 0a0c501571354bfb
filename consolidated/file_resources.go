package consolidated

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// File and working-directory resources of file_operations.
const (
	// FileTemplate serves project files by absolute path (file:///home/me/src/app/main.go),
	// through the guard with read_file's rules.
	FileTemplate = "file:///{path}"
	// WorkdirURI is the working directory's summary: its path and top-level entries.
	WorkdirURI = "toolhost://workdir"
	// maxFileResourceBytes bounds one file resource; larger files are paged with read_file.
	maxFileResourceBytes = 1 << 20
	// workdirEntries bounds the entries the summary lists.
	workdirEntries = 200
)

// fileResources are file_operations' resources: the file template and the working directory's
// summary.
func (f *fileTool) resources() []Resource {
	return []Resource{
		{Template: &mcp.ResourceTemplate{
			Name:        "file",
			Title:       "Project file",
			URITemplate: FileTemplate,
			Description: "A file by absolute path, read through the working-directory guard (read_file's rules); binary files as blobs, at most 1 MiB.",
			Annotations: forBoth(0.5),
		}, Read: f.readFileResource, Prefix: "file://", Complete: f.completePath},
		{Resource: &mcp.Resource{
			URI:         WorkdirURI,
			Name:        "workdir",
			Title:       "Working directory",
			Description: "The working directory: its path and top-level entries.",
			MIMEType:    "text/plain",
			Annotations: forBoth(0.7),
		}, Read: f.readWorkdir},
	}
}

// readFileResource serves file:// URIs. The URI's path, percent-decoded, goes to the guard as
// read_file's would, so what a client can read as a resource is exactly what the model can
// read with read_file: a refusal is the guard's, with its next step.
func (f *fileTool) readFileResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !strings.HasPrefix(u.Path, "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, resourceError(&ToolError{Code: CodeInvalidValue, Param: "uri", Message: "a file resource is file:///ABSOLUTE/PATH"})
	}
	p := filepath.Clean(u.Path)
	conv := CallerConversation(ctx)
	t, err := f.guard.Open(ctx, authz.Request{Conversation: conv, Tool: "file_operations", Operation: "read_file", Class: authz.ClassRead, Path: p})
	if err != nil {
		return nil, resourceError(GuardError(err, "uri"))
	}
	defer t.Close()
	file, err := t.OpenRead()
	if err != nil {
		if _, denied := authz.AsDenial(err); denied {
			return nil, resourceError(GuardError(err, "uri"))
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("open %s: %w", t.Canonical, err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", t.Canonical, err)
	}
	if st.IsDir() {
		return nil, resourceError(&ToolError{Code: CodeIsDirectory, Param: "uri", Message: p + " is a directory", Next: "list it with the file_operations tool's list_dir"})
	}
	if st.Size() > maxFileResourceBytes {
		return nil, resourceError(&ToolError{Code: CodeTooLarge, Param: "uri", Message: fmt.Sprintf("%s is %d bytes; a file resource is at most %d", p, st.Size(), maxFileResourceBytes),
			Next: "page it with the file_operations tool's read_file (start_line, or offset with encoding base64)"})
	}
	data, err := io.ReadAll(io.LimitReader(file, maxFileResourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.Canonical, err)
	}
	if len(data) > maxFileResourceBytes {
		return nil, resourceError(&ToolError{Code: CodeTooLarge, Param: "uri", Message: p + " grew past 1 MiB while being read"})
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: fileMIMEType(p, data)}
	if utf8.Valid(data) && !slices.Contains(data, 0) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// fileMIMEType names a file's type by its extension, else by sniffing its first bytes.
func fileMIMEType(p string, data []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(p)); t != "" {
		return t
	}
	return http.DetectContentType(data)
}

// readWorkdir summarises the working directory: its path and its top-level entries,
// directories first, the way a person glances at a project.
func (f *fileTool) readWorkdir(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	root := f.guard.Root()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("list the working directory: %w", err)
	}
	var dirs, files []string
	screen := f.guard.WorkDirScreen()
	for _, e := range entries {
		if screen.Withhold(e.Name(), e.IsDir()) {
			continue // what list_dir withholds: toolhost's own state, ~/.ssh with the working directory at ~
		}
		if e.IsDir() {
			dirs = append(dirs, e.Name()+"/")
		} else {
			files = append(files, e.Name())
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Working directory: %s\nTop level: %d directories and %d files\n", f.guard.WorkDir(), len(dirs), len(files))
	all := append(dirs, files...)
	for i, name := range all {
		if i == workdirEntries {
			fmt.Fprintf(&b, "... %d more (list_dir shows them)\n", len(all)-i)
			break
		}
		b.WriteString(name + "\n")
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: b.String()}}}, nil
}

// completePath completes the file template's path variable (an absolute path without its
// leading slash) toward and then inside the working directory; relativePath asks for paths
// relative to it (prompt arguments).
func (f *fileTool) completePath(ctx context.Context, _, variable, value string, _ map[string]string) []string {
	if variable == relativePath {
		return completePath(ctx, f.guard.Root(), f.guard.WorkDirScreen(), value)
	}
	if variable != "path" {
		return nil
	}
	wd := strings.TrimPrefix(filepath.ToSlash(f.guard.WorkDir()), "/") + "/"
	if strings.HasPrefix(wd, value) {
		return []string{wd}
	}
	rest, ok := strings.CutPrefix(value, wd)
	if !ok {
		return nil
	}
	out := completePath(ctx, f.guard.Root(), f.guard.WorkDirScreen(), rest)
	for i := range out {
		out[i] = wd + out[i]
	}
	return out
}
