package release

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NPMName is the npm package an MCP client configuration names: `npx -y toolhost-mcp stdio`.
const NPMName = "toolhost-mcp"

//go:embed npm/launcher.js
var launcher []byte

//go:embed npm/README.md
var npmReadme []byte

// npmVersion is a release version in npm's form (no leading v).
func npmVersion(v string) string { return strings.TrimPrefix(v, "v") }

// WriteNPMMain writes the toolhost-mcp package into dir: the launcher and a package.json whose
// optionalDependencies name every platform package at the same version. npm installs the one
// whose os and cpu match the machine and skips the others.
func WriteNPMMain(dir, version string) error {
	v := npmVersion(version)
	opt := map[string]string{}
	for _, t := range Targets {
		opt[t.NPMPackage()] = v
	}
	pkg := map[string]any{
		"name":                 NPMName,
		"version":              v,
		"description":          "toolhost: an MCP server giving coding agents files, terminals, git, web and databases behind a working-directory guard",
		"license":              "UNLICENSED", // the repository names no license yet
		"bin":                  map[string]string{NPMName: "bin/toolhost-mcp.js"},
		"files":                []string{"bin/toolhost-mcp.js", "README.md"},
		"engines":              map[string]string{"node": ">=18"},
		"optionalDependencies": opt,
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "toolhost-mcp.js"), launcher, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), npmReadme, 0o644)
}

// WriteNPMPlatform writes t's package into dir, carrying the binary at bin.
func WriteNPMPlatform(dir, version string, t Target, bin string) error {
	pkg := map[string]any{
		"name":            t.NPMPackage(),
		"version":         npmVersion(version),
		"description":     fmt.Sprintf("The toolhost binary for %s (installed by %s).", t, NPMName),
		"license":         "MIT",
		"os":              []string{t.NPMPlatform()},
		"cpu":             []string{t.NPMArch()},
		"files":           []string{"bin/" + t.Exe()},
		"preferUnplugged": true,
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bin", t.Exe()), b, 0o755)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
