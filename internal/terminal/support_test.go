package terminal

import (
	"runtime"
	"strings"
	"testing"
)

func TestSupportFor(t *testing.T) {
	tests := []struct {
		goos     string
		conPTY   bool
		mech     string
		sessions bool
		problem  bool
	}{
		{"linux", false, "PTY", true, false},
		{"darwin", false, "PTY", true, false},
		{"windows", true, "ConPTY", true, false},
		{"windows", false, "pipes", false, true},
	}
	for _, tt := range tests {
		got := supportFor(tt.goos, tt.conPTY)
		if got.Mechanism != tt.mech || got.Sessions != tt.sessions || (got.Problem != "") != tt.problem {
			t.Errorf("supportFor(%q, %v) = %+v, want mechanism %q, sessions %v, problem %v", tt.goos, tt.conPTY, got, tt.mech, tt.sessions, tt.problem)
		}
		sum := got.Summary()
		if !strings.HasPrefix(sum, "terminals: "+tt.mech) {
			t.Errorf("supportFor(%q, %v).Summary() = %q, want it to start with the mechanism", tt.goos, tt.conPTY, sum)
		}
		if tt.problem && !strings.Contains(sum, "1809") {
			t.Errorf("supportFor(%q, %v).Summary() = %q, want it to name the Windows version that has ConPTY", tt.goos, tt.conPTY, sum)
		}
	}
}

func TestPlatformSupportHere(t *testing.T) {
	got := PlatformSupport()
	if runtime.GOOS != "windows" && (got.Mechanism != "PTY" || !got.Sessions) {
		t.Errorf("PlatformSupport() on %s = %+v, want PTY sessions", runtime.GOOS, got)
	}
	if runtime.GOOS == "windows" && got.Sessions != hasConPTY() {
		t.Errorf("PlatformSupport() = %+v, but hasConPTY() = %v", got, hasConPTY())
	}
}

func TestIsBashName(t *testing.T) {
	tests := []struct {
		name, goos string
		want       bool
	}{
		{"bash", "linux", true},
		{"bash", "windows", true},
		{"bash.exe", "windows", true},
		{"BASH.EXE", "windows", true},
		{"bash.exe", "linux", false}, // a Unix file of that name is no bash we know
		{"sh.exe", "windows", false},
		{"dash", "linux", false},
		{"bash5", "linux", false},
	}
	for _, tt := range tests {
		if got := isBashName(tt.name, tt.goos); got != tt.want {
			t.Errorf("isBashName(%q, %q) = %v, want %v", tt.name, tt.goos, got, tt.want)
		}
	}
}
