package app

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestBuildInfo(t *testing.T) {
	plat := runtime.GOOS + "/" + runtime.GOARCH
	vcs := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "toolhost", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "toolhost", Version: "v1.4.0"}}
	cases := []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  string
	}{
		{"stamped release", "v1.2.0", "abcdef1234567890", "2026-02-03T00:00:00Z", vcs,
			"toolhost v1.2.0 (commit abcdef123456, built 2026-02-03T00:00:00Z, " + plat + ", go1.26.8)"},
		{"build in a clone", defaultVersion, "", "", vcs,
			"toolhost 0.1.0-dev (commit 0123456789ab+dirty, built 2026-01-02T03:04:05Z, " + plat + ", go1.26.8)"},
		{"go install of a tag", defaultVersion, "", "", installed, "toolhost v1.4.0 (" + plat + ", go1.26.8)"},
		{"no build information", defaultVersion, "", "", nil, "toolhost 0.1.0-dev (" + plat + ", " + runtime.Version() + ")"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := buildInfo(tc.version, tc.commit, tc.date, tc.info).String(); got != tc.want {
				t.Errorf("buildInfo().String() = %q\nwant                    %q", got, tc.want)
			}
		})
	}
}
