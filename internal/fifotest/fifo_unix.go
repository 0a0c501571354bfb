//go:build unix

package fifotest

import "syscall"

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }

const noFIFOs = false
