//go:build race

package terminal

// raceEnabled shrinks TestRecorderGigabyte, which the race detector slows tenfold.
const raceEnabled = true
