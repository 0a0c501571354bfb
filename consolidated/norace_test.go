//go:build !race

package consolidated

// raceEnabled: see race_test.go.
const raceEnabled = false
