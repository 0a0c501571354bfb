//go:build !linux

package console

// showsKeys cannot read a terminal's mode here: keys are treated as hidden (counted, never
// recorded), the safe side for a password prompt.
func showsKeys(pid int) bool { return false }
