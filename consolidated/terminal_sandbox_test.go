package consolidated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
)

func TestDeniedFile(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"touch: cannot touch '/etc/x': Permission denied", "/etc/x"},
		{"mkdir: cannot create directory ‘/opt/d’: Permission denied", "/opt/d"},
		{"/bin/sh: 1: cannot create /srv/x: Permission denied", "/srv/x"},
		{"bash: /srv/y: Permission denied", "/srv/y"},
		{"bash: line 1: out/z: Permission denied", "out/z"},
		{"open /var/lib/x: permission denied", "/var/lib/x"},
		{"PermissionError: [Errno 13] Permission denied: '/usr/x'", "/usr/x"},
		{"cp: cannot create regular file 'b/c': Read-only file system", "b/c"},
		{"all fine\nrm: cannot remove '/x/y': Permission denied\n", "/x/y"},
		{"nothing denied here", ""},
	} {
		if got := deniedFile(c.out); got != c.want {
			t.Errorf("deniedFile(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

// TestSandboxUnavailableRefuses: where the configured sandbox cannot be enforced and the user
// has not accepted running unconfined, the gate refuses commands and sessions with the reason
// and what the user can do; nothing runs.
func TestSandboxUnavailableRefuses(t *testing.T) {
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		g, err := gate.New(gate.Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: h.wd,
			Probe: func(mode sandbox.Mode, _ bool) sandbox.Status {
				return sandbox.Status{Mode: mode, Effective: mode, Problem: "the kernel has no Landlock (test)", Refusing: true}
			}})
		if err != nil {
			t.Fatal(err)
		}
		mgr, err := terminal.NewManager(terminal.Config{Store: h.st, CloseGrace: 500 * time.Millisecond, MaxWait: 20 * time.Second, Gate: g})
		if err != nil {
			t.Fatal(err)
		}
		return []*Tool{TerminalTool(TerminalConfig{Manager: mgr, Guard: h.guard, MaxWait: 20 * time.Second, Sandbox: g})}
	}})
	text, isErr, _ := h.call("terminal_operations", map[string]any{"operation": "run_command", "command": "touch ran"})
	if !isErr || !strings.Contains(text, "sandbox_unavailable") || !strings.Contains(text, "the kernel has no Landlock (test)") || !strings.Contains(text, "allow_unsandboxed") {
		t.Errorf("run_command without a usable sandbox: %s", text)
	}
	text, isErr, _ = h.call("terminal_operations", map[string]any{"operation": "create_session", "session_id": "s"})
	if !isErr || !strings.Contains(text, "sandbox_unavailable") {
		t.Errorf("create_session without a usable sandbox: %s", text)
	}
	if _, err := os.Stat(filepath.Join(h.wd, "ran")); err == nil {
		t.Error("a command ran without its sandbox")
	}
}

// TestUnconfinedSaysSo: where the platform has no sandbox and the user accepted running
// unconfined (allow_unsandboxed), commands run, and every result says they ran unconfined.
func TestUnconfinedSaysSo(t *testing.T) {
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		g, err := gate.New(gate.Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: h.wd, AllowUnsandboxed: true,
			Probe: func(mode sandbox.Mode, allow bool) sandbox.Status {
				if !allow {
					t.Error("the gate did not pass allow_unsandboxed to the probe")
				}
				return sandbox.Status{Mode: mode, Effective: sandbox.ModeOff, Problem: "no sandbox on windows (test)"}
			}})
		if err != nil {
			t.Fatal(err)
		}
		mgr, err := terminal.NewManager(terminal.Config{Store: h.st, CloseGrace: 500 * time.Millisecond, MaxWait: 20 * time.Second, Gate: g})
		if err != nil {
			t.Fatal(err)
		}
		return []*Tool{TerminalTool(TerminalConfig{Manager: mgr, Guard: h.guard, MaxWait: 20 * time.Second, Sandbox: g})}
	}})
	for _, cmd := range []string{"touch ran", "echo again"} {
		text, isErr, _ := h.call("terminal_operations", map[string]any{"operation": "run_command", "command": cmd})
		if isErr || !strings.Contains(text, "[unsandboxed: no sandbox on windows (test);") {
			t.Errorf("run_command %q without a sandbox, accepted: %s", cmd, text)
		}
	}
	if _, err := os.Stat(filepath.Join(h.wd, "ran")); err != nil {
		t.Error("the accepted unconfined command did not run")
	}
}
