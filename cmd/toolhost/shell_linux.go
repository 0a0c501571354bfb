package main

import (
	"os"

	"golang.org/x/sys/unix"

	"toolhost/authz"
)

// fromUserShell reports whether this process runs in the user's own shell: a terminal on
// stdin, and no toolhost server among its ancestors (a model types into toolhost's terminals).
// Only such a process may note its environment for others (config.RememberXDGDirs).
func fromUserShell() bool {
	if os.Getenv("TOOLHOST_TERMINAL_ID") != "" {
		return false
	}
	if _, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS); err != nil {
		return false
	}
	return authz.CheckOperator("") == nil
}
