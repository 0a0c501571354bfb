//go:build unix && !linux

package pgtest

import "syscall"

// setDeathSignal: no parent-death signal outside Linux; Stop and the stale-directory sweep end
// servers instead.
func setDeathSignal(*syscall.SysProcAttr) {}
