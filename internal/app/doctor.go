package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"toolhost/internal/memory"
	"toolhost/internal/sandbox"
	"toolhost/internal/server"
	"toolhost/internal/sysfile"
	"toolhost/store"
)

// DoctorCheck is one finding of `toolhost doctor`: what was checked, what was found and, when
// something is wrong, the fix to print.
type DoctorCheck struct {
	// Name is the area: state, memory, sandbox, embedder, recall, token or port.
	Name string
	// OK is false when the user has something to fix.
	OK bool
	// Detail says what was found, with paths.
	Detail string
	// Fix is the command or change that fixes it; empty when OK.
	Fix string
}

// lowSpace is the free space under which the state check warns: a full state directory stops
// todos, memories and grants.
const lowSpace = 64 << 20

// Doctor checks everything a user needs to know before pointing a client at toolhost: the state
// directory (writable, space, the file's integrity), memories against their indexes, the
// terminal sandbox, what terminals run on, the embedder, the HTTP token and the HTTP port. It changes nothing;
// RepairState and RepairMemory do. The state check comes first.
func (a *App) Doctor(ctx context.Context) []DoctorCheck {
	st := a.checkState(ctx)
	checks := []DoctorCheck{st, a.checkMemory(ctx, st.OK), a.checkSandbox(), a.checkTerminals()}
	if probe, ok := a.probeSandbox(ctx); ok {
		checks = append(checks, probe)
	}
	return append(checks, a.checkEmbedder(ctx), a.checkRecall(), a.checkToken(), a.checkPort())
}

// checkRecall says which of the word sources memory search ranks with are there. The OS
// packages (GPL dictionaries, WordNet) are read at run time, never compiled in; without them
// search keeps its other signals, so a missing one is reported with its install command, not
// as a failure.
func (a *App) checkRecall() DoctorCheck {
	c := DoctorCheck{Name: "recall", OK: true}
	if a.Memory == nil {
		c.Detail = "memory is not configured"
		return c
	}
	var found, missing, pkgs []string
	for _, src := range a.Memory.Lexicon().Sources() {
		switch {
		case src.Found && src.Package == "":
			found = append(found, src.Use+" (compiled in)")
		case src.Found:
			found = append(found, fmt.Sprintf("%s (%s, %s)", src.Use, src.Package, src.Path))
		default:
			missing = append(missing, src.Use)
			pkgs = append(pkgs, src.Package)
		}
	}
	c.Detail = "memory search uses " + strings.Join(found, ", ")
	switch {
	case len(missing) > 0 && runtime.GOOS == "linux":
		c.Detail += fmt.Sprintf("; not installed: %s (apt-get install %s)", strings.Join(missing, ", "), strings.Join(pkgs, " "))
	case len(missing) > 0:
		// The sources are read from Debian's paths: elsewhere they are not to be had, and
		// search ranks without them.
		c.Detail += fmt.Sprintf("; not available on %s: %s (the Debian packages %s)", runtime.GOOS, strings.Join(missing, ", "), strings.Join(pkgs, " "))
	}
	return c
}

// checkMemory compares the memories with everything derived from them (vectors, the duplicate
// and scope indexes, recent notes, document chunk lists, version links), as RepairMemory would.
func (a *App) checkMemory(ctx context.Context, stateOK bool) DoctorCheck {
	c := DoctorCheck{Name: "memory"}
	if !stateOK || a.Memory == nil {
		c.OK, c.Detail = stateOK, "not checked: the state file comes first"
		return c
	}
	rep, err := a.Memory.Reconcile(ctx, true)
	switch {
	case err != nil:
		c.Detail, c.Fix = err.Error(), stateFix(err)
	case !rep.Clean():
		c.Detail, c.Fix = "out of step: "+rep.String(), "toolhost doctor --repair (rebuilds the indexes from the memories and embeds missing vectors again)"
	default:
		c.OK, c.Detail = true, rep.String()
	}
	return c
}

// RepairMemory brings the memory indexes back in step with the memories (see
// memory.Service.Reconcile).
func (a *App) RepairMemory(ctx context.Context) (memory.ReconcileReport, error) {
	return a.Memory.Reconcile(ctx, false)
}

func (a *App) checkState(ctx context.Context) DoctorCheck {
	c := DoctorCheck{Name: "state"}
	path := filepath.Join(a.StateDir, "toolhost.db")
	if err := a.StateErr(); err != nil {
		c.Detail = fmt.Sprintf("%s cannot be opened: %v", path, err)
		c.Fix = stateFix(err)
		return c
	}
	if err := probeWrite(a.StateDir); err != nil {
		c.Detail = fmt.Sprintf("%s cannot be written: %v (todos, memories and grants can be read, not changed)", a.StateDir, err)
		c.Fix = stateFix(err)
		return c
	}
	if err := a.Store.Check(ctx); err != nil {
		c.Detail = fmt.Sprintf("%s: %v", path, err)
		c.Fix = stateFix(err)
		return c
	}
	if free, err := sysfile.FreeSpace(a.StateDir); err == nil {
		if free < lowSpace {
			c.Detail = fmt.Sprintf("%s has %d MiB free", a.StateDir, free>>20)
			c.Fix = "free space on that disk, or start toolhost with --state-dir on another one"
			return c
		}
	}
	size := int64(0)
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	c.OK, c.Detail = true, fmt.Sprintf("%s readable and writable, %d KiB, every bucket reads", path, size>>10)
	return c
}

// stateFix names the fix for a state failure, by cause: the file system's answer first, then a
// file that opens but is damaged, or does not open at all.
func stateFix(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "free space on that disk, or start toolhost with --state-dir on another one"
	case errors.Is(err, syscall.EROFS):
		return "start toolhost with a --state-dir on a writable file system"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "give your user write access to the state directory, or start toolhost with another --state-dir"
	case errors.Is(err, store.ErrNewerSchema):
		return "upgrade toolhost"
	case errors.Is(err, store.ErrBusy):
		return "another process holds the state file; try again, or stop the toolhost servers using it"
	}
	return "toolhost doctor --repair (keeps a copy of the file and rebuilds what can be read)"
}

// probeWrite creates, syncs and removes a small file in dir: the cheapest proof that writes work.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(make([]byte, 4096)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (a *App) checkSandbox() DoctorCheck {
	st := a.SandboxStatus()
	c := DoctorCheck{Name: "sandbox", Detail: st.Summary(), OK: true}
	if st.Refusing || st.Mode != sandbox.ModeOff && st.Effective == sandbox.ModeOff {
		c.OK = false
		switch runtime.GOOS {
		case "linux":
			c.Fix = "run on a kernel with Landlock (5.13 or later, lsm=landlock), or set [terminal] sandbox = \"off\" to accept unconfined commands"
		case "darwin":
			c.Fix = "restore /usr/bin/sandbox-exec (part of macOS), or set [terminal] allow_unsandboxed = true to accept unconfined commands"
		default:
			c.Fix = "toolhost has no sandbox on " + runtime.GOOS + ": set [terminal] allow_unsandboxed = true (or sandbox = \"off\") to accept that commands run with your full authority"
		}
	}
	return c
}

// probeSandbox runs the sandbox's self-test where commands are confined: a confined command
// tries to write in the home directory (outside the working directory), to read a file in the
// state directory (hidden) and to signal this process, and each must fail. ok is false when
// nothing is confined (the sandbox check says why).
func (a *App) probeSandbox(ctx context.Context) (DoctorCheck, bool) {
	c := DoctorCheck{Name: "sandbox self-test", OK: true}
	p, err := a.Gate.Policy(ctx, "")
	if err != nil || p == nil || a.StateDir == "" {
		return c, false
	}
	outside, _ := os.UserHomeDir()
	if ok, _ := p.CanWrite(outside); ok || outside == "" {
		outside = "/" // the working directory is the home directory: try the root instead
	}
	hidden := filepath.Join(a.StateDir, "doctor-sandbox-probe")
	if err := os.WriteFile(hidden, []byte("toolhost doctor\n"), 0o600); err != nil {
		c.OK, c.Detail, c.Fix = false, fmt.Sprintf("cannot write the probe file %s: %v", hidden, err), "make the state directory writable"
		return c, true
	}
	defer os.Remove(hidden)
	var parts []string
	for _, r := range sandbox.Probe(ctx, p, outside, hidden) {
		mark := "refused"
		if !r.Enforced {
			mark = "NOT refused: " + r.Detail
			c.OK = false
		}
		parts = append(parts, r.Name+": "+mark)
	}
	c.Detail = strings.Join(parts, "; ")
	if !c.OK {
		c.Fix = "the sandbox does not enforce what it should here: run terminals with [terminal] sandbox = \"read-only\" or report it with this output"
	}
	return c, true
}

func (a *App) checkEmbedder(ctx context.Context) DoctorCheck {
	c := DoctorCheck{Name: "embedder"}
	if a.Memory == nil {
		c.Detail = "memory is not configured"
		c.OK = true
		return c
	}
	emb := a.Memory.Embedder()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	v, err := emb.Embed(ctx, []string{"toolhost doctor checks the embedder"})
	if err != nil || len(v) != 1 || len(v[0]) == 0 {
		c.Detail = fmt.Sprintf("%s does not embed: %v", emb.ID(), err)
		c.Fix = "check [memory] embedder in the config (the built-in embedder needs no network)"
		return c
	}
	c.OK, c.Detail = true, fmt.Sprintf("%s, %d dimensions, one text in %s", emb.ID(), len(v[0]), time.Since(start).Round(time.Millisecond))
	return c
}

func (a *App) checkToken() DoctorCheck {
	c := DoctorCheck{Name: "token", OK: true}
	if a.ExplicitToken() {
		c.Detail = "HTTP bearer token set in the config or TOOLHOST_TOKEN"
		return c
	}
	path := a.TokenFile()
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Detail = path + " not created yet (toolhost serve creates it; stdio needs none)"
	case err != nil:
		c.OK, c.Detail, c.Fix = false, fmt.Sprintf("%s: %v", path, err), "remove it; toolhost serve writes a new one"
	case fi.Mode().Perm()&0o077 != 0:
		c.OK, c.Detail, c.Fix = false, fmt.Sprintf("%s is readable by others (mode %04o)", path, fi.Mode().Perm()), "chmod 600 "+path
	default:
		c.Detail = path + " (mode 0600)"
	}
	return c
}

func (a *App) checkPort() DoctorCheck {
	addr := a.Config.HTTP.Addr
	if addr == "" {
		addr = server.DefaultAddr
	}
	c := DoctorCheck{Name: "port", OK: true}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		c.OK = false
		c.Detail = fmt.Sprintf("%s is not free for toolhost serve: %v", addr, err)
		c.Fix = "stop what listens there (another toolhost serve?), or use toolhost serve --addr HOST:PORT"
		return c
	}
	ln.Close()
	c.Detail = addr + " is free for toolhost serve"
	return c
}

// RepairState rebuilds a damaged or unreadable state file (see store.Repair): it closes this
// app's handle first, since the repair needs the file to itself. Other toolhost processes using
// the state directory must be stopped.
func (a *App) RepairState(ctx context.Context) (store.RepairReport, error) {
	a.Store.Close()
	return store.Repair(ctx, a.StateDir)
}
