package app

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Commit and BuildDate are stamped by the release build:
//
//	-ldflags "-X toolhost/internal/app.Version=v1.2.0 -X toolhost/internal/app.Commit=<sha>
//	          -X toolhost/internal/app.BuildDate=2026-01-02T03:04:05Z"
//
// A plain go build or go install leaves them empty; BuildInfo then reads what the Go toolchain
// recorded (the module version of go install, the VCS revision and time of a build in a clone).
var (
	Commit    string
	BuildDate string
)

// Build describes this binary: `toolhost version` prints it.
type Build struct {
	Version  string // module version or the stamped release version
	Commit   string // VCS revision ("" when unknown)
	Date     string // build date, or the commit's time for an unstamped build ("" when unknown)
	Modified bool   // built from a working tree with uncommitted changes
	Platform string // GOOS/GOARCH
	Go       string // the Go version that built it
}

// BuildInfo reports the stamped values, filled in from the toolchain's build information.
func BuildInfo() Build {
	info, _ := debug.ReadBuildInfo()
	return buildInfo(Version, Commit, BuildDate, info)
}

// buildInfo merges the stamped values with the toolchain's record (nil when unavailable).
func buildInfo(version, commit, date string, info *debug.BuildInfo) Build {
	b := Build{Version: version, Commit: commit, Date: date, Platform: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if info == nil {
		return b
	}
	if v := info.Main.Version; v != "" && v != "(devel)" && version == defaultVersion {
		b.Version = v // go install toolhost/cmd/toolhost@v1.2.0
	}
	if info.GoVersion != "" {
		b.Go = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			if b.Date == "" {
				b.Date = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true" && commit == ""
		case "GOOS", "GOARCH":
		}
	}
	return b
}

// defaultVersion is Version when nothing stamped it.
const defaultVersion = "0.1.0-dev"

// String is the one line `toolhost version` prints.
func (b Build) String() string {
	var parts []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Modified {
			c += "+dirty"
		}
		parts = append(parts, "commit "+c)
	}
	if b.Date != "" {
		parts = append(parts, "built "+b.Date)
	}
	parts = append(parts, b.Platform, b.Go)
	return fmt.Sprintf("toolhost %s (%s)", b.Version, strings.Join(parts, ", "))
}
