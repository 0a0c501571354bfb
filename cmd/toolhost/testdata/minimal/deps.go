//go:build toolhostdeps

// Built with -tags toolhostdeps, the minimal server also links every package toolhost links:
// the same package initialisation at start, none of toolhost's own start-up work.
// BenchmarkColdStart measures it next to both, so the part of toolhost's cold start that its
// dependencies alone cost is a number, not a guess.

package main

import (
	_ "toolhost/authz/cmdrules"
	_ "toolhost/internal/app"
	_ "toolhost/internal/console"
)
