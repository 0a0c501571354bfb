//go:build race

package memory

// raceEnabled skips the tests that run the built-in model, whose forward passes are tens of times
// slower under the race detector; they run in the plain test run.
const raceEnabled = true
