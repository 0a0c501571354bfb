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

// Proc is a running process and its command line.
type Proc struct {
	PID  int
	Args []string
}

// String is the pid and the command line, for failure messages.
func (p Proc) String() string { return strconv.Itoa(p.PID) + ": " + strings.Join(p.Args, " ") }

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
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, Proc{PID: pid, Args: strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")})
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
