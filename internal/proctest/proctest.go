// Package proctest finds the processes a test started, by their command lines, so that it can
// wait for them or check that none outlived what should have ended them. It reads /proc: off
// Linux it finds nothing. Only tests import it.
package proctest

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Proc is a running process: its command line, the name of the program it runs (which a
// fork keeps until it execs another) and its state (R running, S sleeping, ...).
type Proc struct {
	PID   int
	Args  []string
	Comm  string
	State byte
}

// String is the pid, the program and its state where /proc told them, and the command line,
// for failure messages.
func (p Proc) String() string {
	s := strconv.Itoa(p.PID)
	if p.Comm != "" {
		s += " (" + p.Comm + " " + string(p.State) + ")"
	}
	return s + ": " + strings.Join(p.Args, " ")
}

// Live lists the running processes but this one, with their command lines. A zombie (ended,
// not yet reaped by its parent) is left out: it is gone but for its exit status.
func Live() []Proc {
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue // gone, a kernel thread, or a zombie (its cmdline is empty)
		}
		p := Proc{PID: pid, Args: strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat") // pid (comm) state ...
		if i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')'); i >= 0 && j > i && j+2 < len(stat) {
			p.Comm, p.State = string(stat[i+1:j]), stat[j+2]
		}
		if p.State == 'Z' {
			continue
		}
		out = append(out, p)
	}
	return out
}

// Matching lists the running processes whose command line (its arguments joined by spaces)
// contains s.
func Matching(s string) []Proc {
	var out []Proc
	for _, p := range Live() {
		if strings.Contains(strings.Join(p.Args, " "), s) {
			out = append(out, p)
		}
	}
	return out
}

// Exactly lists the running processes whose arguments are args.
func Exactly(args ...string) []Proc {
	var out []Proc
	for _, p := range Live() {
		if slices.Equal(p.Args, args) {
			out = append(out, p)
		}
	}
	return out
}
