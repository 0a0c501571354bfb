//go:build unix && !linux

package proctree

import "syscall"

// setDeathSignal: macOS has no parent-death signal; a tree outlives a killed toolhost (a
// clean shutdown still kills it).
func setDeathSignal(*syscall.SysProcAttr) {}
