// Package release builds what a release ships: for each supported platform a static binary
// stamped with its version, commit and date, packed in an archive (tar.gz, zip for Windows);
// SHA256SUMS over the archives; an SBOM of the Go modules in the binary (CycloneDX JSON, read
// from the binary's own build information, so it lists exactly what was linked); and the npm
// packages that let an MCP client configuration say `npx -y toolhost-mcp stdio`: toolhost-mcp
// with a small launcher, and one package per platform carrying its binary, chosen by npm
// through optionalDependencies and the packages' os and cpu fields (esbuild's scheme).
package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A Target is a platform a release ships for.
type Target struct {
	GOOS, GOARCH string
}

// Targets are the supported platforms, in the order releases list them.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "arm64"}, {"darwin", "amd64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// Exe is the binary's file name on the target.
func (t Target) Exe() string {
	if t.GOOS == "windows" {
		return "toolhost.exe"
	}
	return "toolhost"
}

// NPMPlatform and NPMArch are the target in Node's names (process.platform, process.arch).
func (t Target) NPMPlatform() string {
	if t.GOOS == "windows" {
		return "win32"
	}
	return t.GOOS
}

func (t Target) NPMArch() string {
	if t.GOARCH == "amd64" {
		return "x64"
	}
	return t.GOARCH
}

// NPMPackage is the name of the target's npm package: toolhost-mcp-linux-x64 and so on.
func (t Target) NPMPackage() string { return NPMName + "-" + t.NPMPlatform() + "-" + t.NPMArch() }

// Stamp is what a release binary is stamped with.
type Stamp struct {
	Version string    // v1.2.0 (a leading v is added when missing)
	Commit  string    // the full revision
	Date    time.Time // the build date
}

// Ldflags stamps the binary (see package app) and strips the symbol table.
func (s Stamp) Ldflags() string {
	return fmt.Sprintf("-s -w -X toolhost/internal/app.Version=%s -X toolhost/internal/app.Commit=%s -X toolhost/internal/app.BuildDate=%s",
		s.Version, s.Commit, s.Date.UTC().Format(time.RFC3339))
}

// Build compiles ./cmd/toolhost of the module in dir for t into out: static (no cgo),
// reproducible paths (-trimpath).
func Build(ctx context.Context, dir string, t Target, s Stamp, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", s.Ldflags(), "-o", out, "./cmd/toolhost")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+t.GOOS, "GOARCH="+t.GOARCH, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", t, err, b)
	}
	return nil
}

// ArchiveName is the archive of t for version v.
func ArchiveName(v string, t Target) string {
	ext := ".tar.gz"
	if t.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("toolhost_%s_%s_%s%s", strings.TrimPrefix(v, "v"), t.GOOS, t.GOARCH, ext)
}

// A File goes into an archive.
type File struct {
	Name string // path inside the archive
	Path string // file on disk
	Mode os.FileMode
}

// Archive writes files into a tar.gz or, for a .zip name, a zip archive at out, with the given
// modification time on every entry so that a rebuild of the same commit is identical.
func Archive(out string, files []File, mtime time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if strings.HasSuffix(out, ".zip") {
		zw := zip.NewWriter(f)
		for _, file := range files {
			h := &zip.FileHeader{Name: file.Name, Method: zip.Deflate, Modified: mtime}
			h.SetMode(file.Mode)
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			if err := copyFile(w, file.Path); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
		return f.Close()
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	for _, file := range files {
		fi, err := os.Stat(file.Path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: file.Name, Mode: int64(file.Mode.Perm()), Size: fi.Size(), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if err := copyFile(tw, file.Path); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return f.Close()
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Checksums writes SHA256SUMS for the files (sha256sum's format, sorted by name) into dir.
func Checksums(dir string, names []string) error {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var b strings.Builder
	for _, n := range sorted {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}
