package main

import (
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// Starting toolhost allocates a few megabytes that nearly all stay live (package tables, the
// configuration, the engines, the tool schemas). With the default target the collector runs
// several times on the way from the first 4 MB to a steady heap, and on a two-core machine that
// costs a server's first answer about a millisecond; the Go compiler raises its starting heap
// for the same reason. raiseStartupGC lets the heap grow to startupGCPercent while toolhost
// starts and restoreGC returns it to the default: a server calls it once it has answered its
// first tools/list, and it runs by itself after startupGCFor. A GOGC in the environment is
// left alone.
const (
	startupGCPercent = 400
	startupGCFor     = 2 * time.Second
)

// restoreGC ends the start-up target; later calls do nothing.
var restoreGC = func() {}

func raiseStartupGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	prev := debug.SetGCPercent(startupGCPercent)
	var once sync.Once
	restoreGC = func() { once.Do(func() { debug.SetGCPercent(prev) }) }
	time.AfterFunc(startupGCFor, restoreGC)
}
