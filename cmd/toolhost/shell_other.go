//go:build !linux

package main

// fromUserShell cannot check process ancestry here, so no environment is trusted as the user's.
func fromUserShell() bool { return false }
