package release

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// SBOM is a CycloneDX 1.5 JSON document listing the Go modules linked into the binary at path,
// read from the build information the Go toolchain embeds (what `go version -m` prints): the
// main module, every dependency with its version and go.sum hash, and the toolchain.
func SBOM(path string, s Stamp) ([]byte, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sbom: %w", err)
	}
	type hash struct {
		Alg     string `json:"alg"`
		Content string `json:"content"`
	}
	type component struct {
		Type    string `json:"type"`
		BOMRef  string `json:"bom-ref"`
		Name    string `json:"name"`
		Version string `json:"version"`
		PURL    string `json:"purl"`
		Hashes  []hash `json:"hashes,omitempty"`
	}
	purl := func(p, v string) string { return "pkg:golang/" + p + "@" + v }
	main := component{Type: "application", Name: info.Main.Path, Version: s.Version, PURL: purl(info.Main.Path, s.Version)}
	main.BOMRef = main.PURL
	var comps []component
	var deps []string
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		c := component{Type: "library", Name: m.Path, Version: m.Version, PURL: purl(m.Path, m.Version)}
		c.BOMRef = c.PURL
		if h, ok := strings.CutPrefix(m.Sum, "h1:"); ok {
			// go.sum's h1 is a SHA-256 over the module's file hashes, base64: recorded as is.
			c.Hashes = []hash{{"SHA-256", h}}
		}
		comps = append(comps, c)
		deps = append(deps, c.BOMRef)
	}
	sort.Slice(comps, func(i, j int) bool { return comps[i].Name < comps[j].Name })
	sort.Strings(deps)
	tool := component{Type: "application", Name: "go", Version: strings.TrimPrefix(info.GoVersion, "go"), PURL: "pkg:golang/std@" + info.GoVersion}
	tool.BOMRef = tool.PURL
	doc := map[string]any{
		"bomFormat":   "CycloneDX",
		"specVersion": "1.5",
		"version":     1,
		"metadata": map[string]any{
			"timestamp": s.Date.UTC().Format(time.RFC3339),
			"component": main,
			"tools":     map[string]any{"components": []component{tool}},
			"properties": []map[string]string{
				{"name": "toolhost:commit", "value": s.Commit},
				{"name": "toolhost:platform", "value": settings(info, "GOOS") + "/" + settings(info, "GOARCH")},
			},
		},
		"components":   comps,
		"dependencies": []map[string]any{{"ref": main.BOMRef, "dependsOn": deps}},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func settings(info *buildinfo.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
