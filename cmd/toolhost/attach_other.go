//go:build !linux

package main

import (
	"errors"
	"os"
)

// rawTerminal is not written for this system yet.
func rawTerminal(*os.File) (func(), error) {
	return nil, errors.New("raw mode is implemented for Linux only")
}
