package server

import (
	"errors"
	"fmt"
	"net"
)

// DefaultAddr is where `serve` listens when no address is configured: loopback only.
const DefaultAddr = "127.0.0.1:8765"

// Exposure is what `serve` is asked to expose: where it listens and how clients prove who they
// are. Check decides whether that is allowed.
type Exposure struct {
	// Addr is host:port; "" means DefaultAddr.
	Addr string
	// NoAuth serves without a bearer token.
	NoAuth bool
	// ExplicitToken says the user chose the token (configuration, environment, flag) rather than
	// leaving toolhost to generate one into the state directory.
	ExplicitToken bool
	// AllowedHosts are extra Host header values the user allows.
	AllowedHosts []string
}

// Listen is what the policy allows: the address to listen on, whether it is loopback only, and
// the Host header values to accept besides loopback names (HTTPOptions.AllowedHosts).
type Listen struct {
	Addr         string
	Loopback     bool
	AllowedHosts []string
}

// Errors of Exposure.Check.
var (
	// ErrNoAuthOffLoopback: serving without a token is for test clients on this machine only.
	ErrNoAuthOffLoopback = errors.New("--no-auth is allowed only on a loopback address")
	// ErrImplicitToken: a generated token was never chosen for a network; off loopback the user
	// must set one.
	ErrImplicitToken = errors.New("a non-loopback address without an explicit token")
)

// Check applies the exposure policy. Loopback addresses ("127.0.0.1", "::1", "localhost") are
// served as asked. Any other address, including an empty host (every interface), needs a token
// the user chose, never --no-auth, and its host is added to the accepted Host headers so that
// clients addressing it by that name get through the rebinding check.
func (e Exposure) Check() (Listen, error) {
	addr := e.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return Listen{}, fmt.Errorf("--addr %q: %w", addr, err)
	}
	l := Listen{Addr: addr, Loopback: IsLoopbackHost(host), AllowedHosts: append([]string(nil), e.AllowedHosts...)}
	if l.Loopback {
		return l, nil
	}
	if e.NoAuth {
		return Listen{}, ErrNoAuthOffLoopback
	}
	if !e.ExplicitToken {
		return Listen{}, fmt.Errorf("refusing to listen on %s, %w (set --token, http.token or TOOLHOST_TOKEN)", addr, ErrImplicitToken)
	}
	if host != "" { // an empty host is every interface, which no Host header names
		l.AllowedHosts = append(l.AllowedHosts, host)
	}
	return l, nil
}
