//go:build toolhostfull

// Built with -tags toolhostfull, the minimal server also keeps the code of toolhost's whole
// binary: the entry points below reach every engine and tool, so the linker keeps what
// toolhost keeps (the binary is within 1% of toolhost's size). Its start is the minimal
// server's work in toolhost's binary: package initialisation and everything that grows with
// the binary (the runtime's tables, the pages a start touches), none of toolhost's own work.
// BenchmarkColdStart reports it as the floor of toolhost's cold start.

package main

import (
	_ "toolhost/authz/cmdrules"
	"toolhost/internal/app"
	"toolhost/internal/console"
	"toolhost/internal/server"
)

// entryPoints are what cmd/toolhost calls; holding them keeps all they reach in the binary.
var entryPoints = []any{
	app.Open, (*app.App).ServerAs, (*app.App).Console, (*app.App).Doctor, (*app.App).Close,
	server.ServeStdio, server.NewHTTPHandler, server.NewHTTPServer, console.ConnContext,
}

func init() {
	if len(entryPoints) == 0 {
		panic("minimal: no toolhost entry points kept")
	}
}
