//go:build race

package consolidated

// raceEnabled shrinks the tests that run the built-in embedding model, whose forward passes are
// about sixty times slower under the race detector; the full versions run in the plain test run.
const raceEnabled = true
