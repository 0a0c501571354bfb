//go:build !linux

package terminal

import (
	"errors"
	"net"
	"syscall"
)

// hostSupported: the terminal host needs peer credentials and /proc to decide who may connect;
// elsewhere a server keeps its sessions in its own process ([terminal] keep_sessions has no
// effect).
const hostSupported = false

// ErrHostUnsupported: no terminal host on this platform.
var ErrHostUnsupported = errors.New("the terminal host is not supported on this platform; sessions live in the server")

func hostID() (string, error) { return "", ErrHostUnsupported }

func lockHost(string) (func(), error) { return nil, ErrHostUnsupported }

func listenHost(string) (net.Listener, error) { return nil, ErrHostUnsupported }

func dialHost(string) (net.Conn, error) { return nil, ErrHostUnsupported }

func checkPeer(net.Conn) error { return ErrHostUnsupported }

func hostSysProcAttr() *syscall.SysProcAttr { return nil }
