//go:build race

package embed

// raceEnabled lets the heaviest numeric tests shrink under the race detector, which slows the
// forward pass about sixty-fold; the full versions run in the ordinary test run.
const raceEnabled = true
