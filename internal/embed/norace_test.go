//go:build !race

package embed

// raceEnabled: see race_test.go.
const raceEnabled = false
