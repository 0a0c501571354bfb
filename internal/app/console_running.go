package app

// RunningConsole is the console URL (http://HOST:PORT/) that a running `toolhost serve`
// announced in stateDir, or "" when none is running there: where `toolhost attach` finds the
// server whose terminals it types into.
func RunningConsole(stateDir string) string { return consoleElsewhere(stateDir)() }
