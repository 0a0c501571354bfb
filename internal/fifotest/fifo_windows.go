//go:build windows

package fifotest

import "errors"

// Never called: Make skips first on Windows.
func mkfifo(string) error { return errors.New("no FIFOs on Windows") }

const noFIFOs = true
