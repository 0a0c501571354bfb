//go:build !linux && !darwin && !windows

package owner

// startTime cannot be read here: liveness falls back to signal 0.
func startTime(int) (uint64, bool) { return 0, false }

func processTableReadable() bool { return false }

func bootID() string { return "" }

// zombie: no process state is read here; a killed process counts as running until it is reaped.
func zombie(int) bool { return false }
