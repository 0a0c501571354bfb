package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

var stamp = Stamp{Version: "v0.0.0-test", Commit: "0123456789abcdef0123456789abcdef01234567", Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// hostBinary builds the release binary for this machine once per test binary.
func hostBinary(t *testing.T) (Target, string) {
	t.Helper()
	host := Target{runtime.GOOS, runtime.GOARCH}
	if !slices.Contains(Targets, host) {
		t.Skipf("%s is not a release target", host)
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toolhost-release-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, host.Exe())
		binErr = Build(context.Background(), "../..", host, stamp, binPath)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return host, binPath
}

func TestTargetsNames(t *testing.T) {
	var got []string
	for _, tg := range Targets {
		got = append(got, tg.NPMPackage()+" "+ArchiveName("v1.2.0", tg)+" "+tg.Exe())
	}
	want := []string{
		"toolhost-mcp-linux-x64 toolhost_1.2.0_linux_amd64.tar.gz toolhost",
		"toolhost-mcp-linux-arm64 toolhost_1.2.0_linux_arm64.tar.gz toolhost",
		"toolhost-mcp-darwin-arm64 toolhost_1.2.0_darwin_arm64.tar.gz toolhost",
		"toolhost-mcp-darwin-x64 toolhost_1.2.0_darwin_amd64.tar.gz toolhost",
		"toolhost-mcp-win32-x64 toolhost_1.2.0_windows_amd64.zip toolhost.exe",
		"toolhost-mcp-win32-arm64 toolhost_1.2.0_windows_arm64.zip toolhost.exe",
	}
	if !slices.Equal(got, want) {
		t.Errorf("targets:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The stamped binary says what it is; the archives hold it and are identical when rebuilt;
// the checksums and the SBOM describe them.
func TestStampArchiveChecksumsSBOM(t *testing.T) {
	host, bin := hostBinary(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "toolhost v0.0.0-test (commit 0123456789ab, built 2026-01-02T03:04:05Z, " + host.String() + ", " + runtime.Version() + ")\n"
	if string(out) != want {
		t.Errorf("toolhost version = %q, want %q", out, want)
	}
	dir := t.TempDir()
	files := []File{{Name: host.Exe(), Path: bin, Mode: 0o755}}
	for _, name := range []string{"a.tar.gz", "b.tar.gz", "c.zip"} {
		if err := Archive(filepath.Join(dir, name), files, stamp.Date); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.tar.gz"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.tar.gz"))
	if string(a) != string(b) {
		t.Error("two archives of the same files differ")
	}
	if got := tarNames(t, filepath.Join(dir, "a.tar.gz")); !slices.Equal(got, []string{host.Exe() + " 755"}) {
		t.Errorf("tar.gz holds %v", got)
	}
	zr, err := zip.OpenReader(filepath.Join(dir, "c.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != host.Exe() || zr.File[0].Mode().Perm() != 0o755 {
		t.Errorf("zip holds %v", zr.File)
	}
	zr.Close()
	if err := Checksums(dir, []string{"c.zip", "a.tar.gz"}); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "  a.tar.gz") || !strings.HasSuffix(lines[1], "  c.zip") || len(strings.Fields(lines[0])[0]) != 64 {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}
	if sum, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command(sum, "-c", "SHA256SUMS")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, b)
		}
	}
	doc, err := SBOM(bin, stamp)
	if err != nil {
		t.Fatal(err)
	}
	var bom struct {
		BOMFormat  string `json:"bomFormat"`
		Components []struct {
			Name, Version, PURL string
			Hashes              []struct{ Alg, Content string }
		} `json:"components"`
		Metadata struct {
			Component struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal(doc, &bom); err != nil {
		t.Fatal(err)
	}
	if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Name != "toolhost" || bom.Metadata.Component.Version != "v0.0.0-test" {
		t.Errorf("SBOM header: %s %+v", bom.BOMFormat, bom.Metadata.Component)
	}
	found := false
	for _, c := range bom.Components {
		if c.Name == "github.com/modelcontextprotocol/go-sdk" {
			found = c.Version == "v1.8.0" && c.PURL == "pkg:golang/github.com/modelcontextprotocol/go-sdk@v1.8.0" && len(c.Hashes) == 1
		}
	}
	if !found || len(bom.Components) < 20 {
		t.Errorf("SBOM lists %d components, go-sdk v1.8.0 with its hash found: %v", len(bom.Components), found)
	}
}

func tarNames(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %o", h.Name, h.Mode))
	}
}

// The npm packages as a user gets them: packed with npm pack, installed from the tarballs into
// a scratch prefix without the network, and the launcher started as `toolhost-mcp stdio`
// answers tools/list.
func TestNPMPackageInstallsAndServes(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npm is missing; CI must install it (.ci/run)")
		}
		t.Skip("npm is missing")
	}
	host, bin := hostBinary(t)
	dir := t.TempDir()
	mainDir, platDir := filepath.Join(dir, "src", NPMName), filepath.Join(dir, "src", host.NPMPackage())
	if err := WriteNPMMain(mainDir, stamp.Version); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPMPlatform(platDir, stamp.Version, host, bin); err != nil {
		t.Fatal(err)
	}
	tarballs := filepath.Join(dir, "tarballs")
	os.MkdirAll(tarballs, 0o755)
	cache := filepath.Join(dir, "npm-cache")
	npmEnv := append(os.Environ(), "npm_config_cache="+cache, "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	for _, d := range []string{mainDir, platDir} {
		cmd := exec.Command(npm, "pack", "--pack-destination", tarballs, "--loglevel=error")
		cmd.Dir, cmd.Env = d, npmEnv
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm pack in %s: %v\n%s", d, err, b)
		}
	}
	mainTgz := filepath.Join(tarballs, NPMName+"-0.0.0-test.tgz")
	platTgz := filepath.Join(tarballs, host.NPMPackage()+"-0.0.0-test.tgz")
	prefix := filepath.Join(dir, "prefix")
	os.MkdirAll(prefix, 0o755)
	// --offline: nothing comes from a registry. The other platforms' optional packages are
	// not to be had and are skipped, as npm does on every machine.
	cmd := exec.Command(npm, "install", "--offline", "--no-save", "--loglevel=error", "--prefix", prefix, platTgz, mainTgz)
	cmd.Env = npmEnv
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install from the tarballs: %v\n%s", err, b)
	}
	launcher := filepath.Join(prefix, "node_modules", ".bin", NPMName)
	if runtime.GOOS == "windows" {
		launcher += ".cmd"
	}
	out, err := exec.Command(launcher, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "toolhost v0.0.0-test ") {
		t.Fatalf("toolhost-mcp version = %q, %v", out, err)
	}
	state, work := filepath.Join(dir, "state"), filepath.Join(dir, "work")
	os.MkdirAll(state, 0o700)
	os.MkdirAll(work, 0o755)
	cfg := filepath.Join(state, "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	srv := exec.Command(launcher, "stdio", "--state-dir", state, "--workdir", work, "--config", cfg)
	srv.Env = append(os.Environ(), "XDG_CONFIG_HOME="+state)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "npx-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: srv}, nil)
	if err != nil {
		t.Fatalf("connect to toolhost-mcp stdio: %v", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if len(names) < 8 || names[0] != "think" || !slices.Contains(names, "file_operations") {
		t.Errorf("tools/list through the npm launcher = %v", names)
	}
}
