// Package fifotest makes named pipes (FIFOs) for tests of code that must refuse them. Where
// the platform has none (Windows), the test is skipped: there is nothing there to refuse.
package fifotest

import "testing"

// Make creates a FIFO at path, fails t when it cannot, and skips t where FIFOs do not exist.
func Make(t testing.TB, path string) {
	t.Helper()
	if noFIFOs {
		t.Skip("this platform has no FIFOs")
	}
	if err := mkfifo(path); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}
