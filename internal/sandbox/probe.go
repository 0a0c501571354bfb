package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// A ProbeResult is one thing a confined command tried that the policy must refuse.
type ProbeResult struct {
	Name     string // what was tried
	Enforced bool   // the attempt failed, as the policy says it must
	Detail   string // what happened
}

// Probe runs three commands under p, each of which the policy must stop, and reports whether
// it did: a write in dir outside (not writable under p), a read of the file hidden (below a
// hidden path of p), and a signal to this process (the server). It proves on the machine at
// hand what Status only claims; `toolhost doctor` prints it. Nil or off policies are not
// probed. Every command is bounded by ctx.
func Probe(ctx context.Context, p *Policy, outside, hidden string) []ProbeResult {
	if p == nil || p.Mode == ModeOff {
		return nil
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	var out []ProbeResult
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	target := filepath.Join(outside, "toolhost-sandbox-probe-"+hex.EncodeToString(b))
	err := probeRun(ctx, p, `printf x > "$1"`, target)
	_, statErr := os.Lstat(target)
	created := statErr == nil
	if created {
		os.Remove(target)
	}
	out = append(out, ProbeResult{Name: "write outside the allowed trees (" + outside + ")", Enforced: err != nil && !created, Detail: describe(err, created)})

	err = probeRun(ctx, p, `cat "$1" > /dev/null`, hidden)
	out = append(out, ProbeResult{Name: "read a hidden file (" + hidden + ")", Enforced: err != nil, Detail: describe(err, false)})

	err = probeRun(ctx, p, `kill -0 "$1"`, strconv.Itoa(os.Getpid()))
	out = append(out, ProbeResult{Name: "signal the server (pid " + strconv.Itoa(os.Getpid()) + ")", Enforced: err != nil, Detail: describe(err, false)})
	return out
}

func probeRun(ctx context.Context, p *Policy, script, arg string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script, "probe", arg)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := Start(cmd, p); err != nil {
		return fmt.Errorf("not started: %w", err)
	}
	return cmd.Wait()
}

func describe(err error, created bool) string {
	var ee *exec.ExitError
	switch {
	case created:
		return "the file was written"
	case err == nil:
		return "it succeeded"
	case errors.As(err, &ee):
		return fmt.Sprintf("refused (exit status %d)", ee.ExitCode())
	}
	return err.Error()
}
