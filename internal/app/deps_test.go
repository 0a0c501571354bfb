package app

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection enforces ARCHITECTURE.md §2: dependencies point down, and only
// consolidated and internal/server (plus the wiring above them) import the MCP SDK.
func TestDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "toolhost/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const sdk = "github.com/modelcontextprotocol/go-sdk"
	// Packages that may import the SDK: the MCP layer and the wiring above it.
	mcpLayer := []string{"toolhost/consolidated", "toolhost/internal/server", "toolhost/internal/app", "toolhost/cmd/"}
	// Packages that must never depend on the MCP layer.
	engines := func(pkg string) bool {
		for _, p := range mcpLayer {
			if pkg == p || strings.HasPrefix(pkg, p) {
				return false
			}
		}
		return true
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		for _, d := range deps {
			switch {
			case engines(pkg) && strings.HasPrefix(d, sdk):
				t.Errorf("%s imports the MCP SDK (%s); only consolidated and internal/server may", pkg, d)
			case engines(pkg) && (d == "toolhost/consolidated" || d == "toolhost/internal/server" || d == "toolhost/internal/app"):
				t.Errorf("%s imports %s; engines must not depend on the MCP layer", pkg, d)
			case pkg == "toolhost/consolidated" && (d == "toolhost/internal/server" || d == "toolhost/internal/app"):
				t.Errorf("consolidated imports %s; dependencies point down", d)
			case pkg == "toolhost/internal/server" && d == "toolhost/internal/app":
				t.Errorf("internal/server imports internal/app; dependencies point down")
			case d == "toolhost/internal/golden" || d == "toolhost/store/storetest":
				t.Errorf("%s imports %s, a helper for tests only", pkg, d)
			}
		}
	}
}
