// Package nettest holds test helpers for code behind the network guard: a dialer that can only
// reach loopback (so a broken guard cannot send a packet off the machine), a scripted resolver
// (DNS rebinding), and a way to run a test inside a network namespace that has only loopback.
// Only tests import it.
package nettest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// LoopbackDialer records every address it is asked to dial and connects only to loopback
// addresses; anything else is refused before a socket is opened.
type LoopbackDialer struct {
	mu    sync.Mutex
	dials []string
}

// DialContext dials address (an IP:port, as the guard passes it) if it is loopback.
func (d *LoopbackDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.dials = append(d.dials, address)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil, fmt.Errorf("nettest: dial %q: the guard must pass an IP:port: %w", address, err)
	}
	if !ap.Addr().Unmap().IsLoopback() {
		return nil, fmt.Errorf("nettest: refused to dial non-loopback %s (the guard let it through)", address)
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

// Dials returns the addresses dialed so far.
func (d *LoopbackDialer) Dials() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dials...)
}

// HopDialer dials a test's proxy hops, whose addresses the guard does not decide: a host name
// through Resolver ("localhost" as 127.0.0.1), then Dialer, which reaches only loopback, so even
// a hop a client wrongly trusted stays on the machine. A nil Dialer is a new LoopbackDialer.
type HopDialer struct {
	Resolver *Resolver
	Dialer   *LoopbackDialer
}

// DialContext resolves address's host if it is a name and dials it on loopback only.
func (h *HopDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if _, err := netip.ParseAddr(host); err != nil {
		if host == "localhost" {
			host = "127.0.0.1"
		} else {
			ips, err := h.Resolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			host = ips[0].String()
		}
	}
	d := h.Dialer
	if d == nil {
		d = &LoopbackDialer{}
	}
	return d.DialContext(ctx, network, net.JoinHostPort(host, port))
}

// Resolver answers from a script: each name has a list of answers, one per lookup, the last
// repeated. Unknown names fail without asking any DNS server.
type Resolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

// NewResolver returns an empty scripted resolver.
func NewResolver() *Resolver {
	return &Resolver{answers: map[string][][]netip.Addr{}, calls: map[string]int{}}
}

// Set scripts the answers for name: the first lookup gets the first list, and so on.
func (r *Resolver) Set(name string, answers ...[]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lists [][]netip.Addr
	for _, a := range answers {
		var l []netip.Addr
		for _, s := range a {
			l = append(l, netip.MustParseAddr(s))
		}
		lists = append(lists, l)
	}
	r.answers[name] = lists
}

// Calls returns how many times name was looked up.
func (r *Resolver) Calls(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[name]
}

// LookupNetIP implements authz.Resolver.
func (r *Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lists, ok := r.answers[host]
	if !ok || len(lists) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.calls[host], len(lists)-1)
	r.calls[host]++
	return lists[i], nil
}

// isolatedEnv marks a test process re-executed inside a network namespace.
const isolatedEnv = "TOOLHOST_TEST_NETNS"

// Isolated reports whether this process runs in the loopback-only namespace made by Reexec.
func Isolated() bool { return os.Getenv(isolatedEnv) == "1" }

// Reexec runs the calling test again in a new network namespace that has only the loopback
// interface (unshare --net, then ip link set lo up), so that nothing the test does can reach
// another machine, whatever it dials. It returns true in the parent after the child has run
// (the caller returns); false in the child, where the test proceeds. Where namespaces cannot be
// made it skips the test, or fails it when CI is set.
func Reexec(t *testing.T) bool {
	t.Helper()
	if Isolated() {
		return false
	}
	unshare, err1 := exec.LookPath("unshare")
	ip, err2 := exec.LookPath("ip")
	if err1 != nil || err2 != nil {
		missing(t, "unshare and ip (util-linux, iproute2) are needed to run this test in a loopback-only network namespace")
		return true
	}
	if out, err := exec.Command(unshare, "--net", "--map-root-user", "true").CombinedOutput(); err != nil {
		if out2, err2 := exec.Command(unshare, "--net", "true").CombinedOutput(); err2 != nil {
			missing(t, fmt.Sprintf("cannot create a network namespace: %v %s %s", err, out, out2))
			return true
		}
	}
	args := []string{"--net"}
	if os.Geteuid() != 0 {
		args = append(args, "--map-root-user")
	}
	script := ip + ` link set lo up && exec "$0" "$@"`
	args = append(args, "sh", "-c", script, os.Args[0], "-test.run", "^"+testPattern(t.Name())+"$", "-test.v", "-test.count=1")
	cmd := exec.Command(unshare, args...)
	cmd.Env = append(os.Environ(), isolatedEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("isolated run (network namespace with only loopback):\n%s", out)
	if err != nil {
		t.Fatalf("isolated run failed: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS") && !strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("isolated run did not report the test")
	}
	return true
}

// testPattern turns a test name into an anchored -test.run pattern (subtests separated by /).
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = regexpQuote(p)
	}
	return strings.Join(parts, "$/^")
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// missing fails the test under CI (a missing part is a defect there) and skips it elsewhere.
func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Missing is missing for other helpers: fail under CI, skip elsewhere, saying why.
func Missing(t *testing.T, why string) { missing(t, why) }
