//go:build unix

package pgtest

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

type credential = syscall.Credential

// procAttr runs a PostgreSQL program as cred (nil: as this process's user); dieWithParent
// asks the kernel to kill it when the test binary dies, where it can (Linux).
func procAttr(cred *credential, dieWithParent bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Credential: cred}
	if dieWithParent {
		setDeathSignal(a)
	}
	return a
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// serverUser returns the credential to run the server with: none when not root, else the
// postgres system user (the postgresql package creates it).
func serverUser() (*credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, 0, 0, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, fmt.Errorf("pgtest: running as root needs the postgres system user to run the server: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}
