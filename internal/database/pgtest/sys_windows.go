//go:build windows

package pgtest

import "syscall"

// credential: the server runs as the test's user on Windows.
type credential struct{ Uid, Gid uint32 }

func procAttr(*credential, bool) *syscall.SysProcAttr { return nil }

// alive: a stale directory is never removed on Windows (its server may still hold it).
func alive(int) bool { return true }

func serverUser() (*credential, int, int, error) { return nil, 0, 0, nil }
