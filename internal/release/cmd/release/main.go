// Command release builds a release into a directory: for each platform an archive with the
// stamped binary, README and license, a CycloneDX SBOM of its Go modules, SHA256SUMS over them,
// and the npm packages (toolhost-mcp and one per platform), packed with `npm pack` when -pack
// is given. Run from the module root:
//
//	go run ./internal/release/cmd/release -version v1.2.0 -out dist -pack
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"toolhost/internal/release"
)

func main() {
	version := flag.String("version", "", "release version, e.g. v1.2.0 (default: git describe)")
	out := flag.String("out", "dist", "output directory (emptied first)")
	only := flag.String("targets", "", "comma-separated GOOS/GOARCH subset (default: all six)")
	pack := flag.Bool("pack", false, "pack the npm packages with npm pack")
	flag.Parse()
	if err := run(context.Background(), *version, *out, *only, *pack); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func git(args ...string) string {
	b, err := exec.Command("git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func run(ctx context.Context, version, out, only string, pack bool) error {
	s := release.Stamp{Version: version, Commit: git("rev-parse", "HEAD"), Date: time.Now().UTC().Truncate(time.Second)}
	if s.Version == "" {
		s.Version = git("describe", "--tags", "--always", "--dirty")
	}
	if s.Version == "" {
		return fmt.Errorf("no -version and git describe gives none")
	}
	if !strings.HasPrefix(s.Version, "v") {
		s.Version = "v" + s.Version
	}
	if ct := git("show", "-s", "--format=%cI", "HEAD"); ct != "" {
		// Archive entries carry the commit's time: a rebuild of a commit is byte-identical.
		if t, err := time.Parse(time.RFC3339, ct); err == nil {
			s.Date = t.UTC()
		}
	}
	targets := release.Targets
	if only != "" {
		targets = nil
		for _, t := range release.Targets {
			if strings.Contains(","+only+",", ","+t.String()+",") {
				targets = append(targets, t)
			}
		}
		if len(targets) == 0 {
			return fmt.Errorf("-targets %q names none of the supported platforms", only)
		}
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	npmDir := filepath.Join(out, "npm")
	var sums []string
	for _, t := range targets {
		bin := filepath.Join(out, "build", t.GOOS+"_"+t.GOARCH, t.Exe())
		fmt.Fprintf(os.Stderr, "== %s\n", t)
		if err := release.Build(ctx, ".", t, s, bin); err != nil {
			return err
		}
		files := []release.File{{Name: t.Exe(), Path: bin, Mode: 0o755}, {Name: "README.md", Path: "README.md", Mode: 0o644}}
		if _, err := os.Stat("LICENSE"); err == nil {
			files = append(files, release.File{Name: "LICENSE", Path: "LICENSE", Mode: 0o644})
		}
		archive := release.ArchiveName(s.Version, t)
		if err := release.Archive(filepath.Join(out, archive), files, s.Date); err != nil {
			return err
		}
		sbom, err := release.SBOM(bin, s)
		if err != nil {
			return err
		}
		sbomName := strings.TrimSuffix(strings.TrimSuffix(archive, ".zip"), ".tar.gz") + ".cdx.json"
		if err := os.WriteFile(filepath.Join(out, sbomName), sbom, 0o644); err != nil {
			return err
		}
		sums = append(sums, archive, sbomName)
		if err := release.WriteNPMPlatform(filepath.Join(npmDir, t.NPMPackage()), s.Version, t, bin); err != nil {
			return err
		}
	}
	if err := release.WriteNPMMain(filepath.Join(npmDir, release.NPMName), s.Version); err != nil {
		return err
	}
	if pack {
		entries, _ := os.ReadDir(npmDir)
		for _, e := range entries {
			cmd := exec.CommandContext(ctx, "npm", "pack", "--pack-destination", "..", "--loglevel=error")
			cmd.Dir = filepath.Join(npmDir, e.Name())
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("npm pack %s: %w", e.Name(), err)
			}
		}
	}
	if err := release.Checksums(out, sums); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release %s (%s) in %s\n", s.Version, s.Commit, out)
	return nil
}
