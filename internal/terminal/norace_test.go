//go:build !race

package terminal

// raceEnabled: see race_test.go.
const raceEnabled = false
