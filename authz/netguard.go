package authz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Network decision outcomes in the audit log, besides OutcomeDenied and OutcomeNeedsGrant.
const (
	OutcomeAllowedPublic   = "allowed_public"    // an ordinary address on the internet
	OutcomeAllowedByConfig = "allowed_by_config" // [web] allow
)

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer opens connections; *net.Dialer is one. NetGuard hands it only addresses it decided on,
// never names, so nothing below it resolves again.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// NetConfig configures a NetGuard.
type NetConfig struct {
	// Allow lists host patterns (ParseHostPattern) that may be reached although their addresses
	// are refused by default (loopback, private, ...). A metadata address is allowed only by a
	// pattern that names it exactly.
	Allow []string
	// Deny lists host patterns that are never reached, whatever is allowed or granted.
	Deny []string
	// Resolver defaults to net.DefaultResolver; tests inject one (DNS rebinding).
	Resolver Resolver
	// Dialer defaults to a net.Dialer with a 30 s timeout; tests inject one that refuses anything
	// but loopback, so a broken guard cannot send a packet off the machine.
	Dialer Dialer
	// Elsewhere returns the listening address (host:port) of another toolhost process on the
	// same state, such as a `toolhost serve` next to this stdio server, or "" when there is none.
	// It is refused like this process's own listeners; it is asked on every decision and should
	// answer from a cache.
	Elsewhere func() string
	Logger    *slog.Logger
}

// NetCaller says who is connecting: grants are scoped to a conversation and an access.
type NetCaller struct {
	Conversation    string
	Tool, Operation string
}

type netCallerKey struct{}

// WithNetCaller returns a context whose connections are decided for c: its conversation's
// network grants apply. Without one, only [web] allow can open a refused address.
func WithNetCaller(ctx context.Context, c NetCaller) context.Context {
	return context.WithValue(ctx, netCallerKey{}, c)
}

// NetCallerFrom returns the caller of WithNetCaller.
func NetCallerFrom(ctx context.Context) (NetCaller, bool) {
	c, ok := ctx.Value(netCallerKey{}).(NetCaller)
	return c, ok
}

// NetGuard decides every outgoing connection at dial time, after DNS resolution, and dials only
// the addresses it allowed (so a resolver that answers differently the second time cannot get a
// refused address dialed). By default it refuses loopback, private, link-local, CGNAT,
// multicast, unspecified, reserved and cloud-metadata addresses, IPv6 forms that embed such an
// IPv4 address, metadata host names, and toolhost's own listeners; [web] allow and network grants
// (access TOOL:network, Grant.Host) open refused hosts, except own listeners and
// [web] deny, which nothing opens. Safe for concurrent use.
type NetGuard struct {
	guard       *Guard // grants and audit; nil = no grants, no audit
	allow, deny []HostPattern
	resolver    Resolver
	dialer      Dialer
	log         *slog.Logger

	mu        sync.RWMutex
	listeners map[netip.AddrPort]int // own listeners, reference-counted
	elsewhere func() string          // another toolhost process's listener (NetConfig.Elsewhere)

	localMu   sync.Mutex
	local     map[netip.Addr]bool // this machine's interface addresses (for wildcard listeners)
	localTime time.Time
}

// NewNetGuard builds the network guard. g provides grants and the audit log and may be nil.
func NewNetGuard(g *Guard, cfg NetConfig) (*NetGuard, error) {
	allow, err := parsePatterns(cfg.Allow, "allow")
	if err != nil {
		return nil, err
	}
	deny, err := parsePatterns(cfg.Deny, "deny")
	if err != nil {
		return nil, err
	}
	n := &NetGuard{guard: g, allow: allow, deny: deny, resolver: cfg.Resolver, dialer: cfg.Dialer, log: cfg.Logger,
		listeners: map[netip.AddrPort]int{}, elsewhere: cfg.Elsewhere}
	if n.resolver == nil {
		n.resolver = net.DefaultResolver
	}
	if n.dialer == nil {
		n.dialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	}
	if n.log == nil {
		n.log = slog.Default()
	}
	return n, nil
}

// RegisterListener records one of toolhost's own listening addresses (the HTTP server, the
// browser's proxy); connections to it are refused in every configuration, so a page or a
// request cannot drive toolhost itself. A wildcard address (0.0.0.0, [::]) covers the port on
// every local address. The returned function removes it.
func (n *NetGuard) RegisterListener(addr string) (func(), error) {
	ap, err := parseListener(addr)
	if err != nil {
		return nil, fmt.Errorf("register listener: %w", err)
	}
	n.mu.Lock()
	n.listeners[ap]++
	n.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			n.mu.Lock()
			if n.listeners[ap]--; n.listeners[ap] <= 0 {
				delete(n.listeners, ap)
			}
			n.mu.Unlock()
		})
	}, nil
}

// parseListener parses a listening address: ip:port, [ip6]:port, or :port (every address).
func parseListener(addr string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		host, port, err2 := net.SplitHostPort(addr)
		if err2 != nil {
			return netip.AddrPort{}, fmt.Errorf("%q: %w", addr, err)
		}
		p, err3 := strconv.Atoi(port)
		if err3 != nil || p <= 0 || p > 65535 {
			return netip.AddrPort{}, fmt.Errorf("%q: bad port", addr)
		}
		ip := netip.IPv6Unspecified()
		if host != "" {
			if ip, err = netip.ParseAddr(host); err != nil {
				return netip.AddrPort{}, fmt.Errorf("%q: %w", addr, err)
			}
		}
		ap = netip.AddrPortFrom(ip, uint16(p))
	}
	return netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port()), nil
}

// isOwnListener reports whether ip:port reaches one of toolhost's listeners: this process's, or
// the one another toolhost process on the same state announces (Elsewhere).
func (n *NetGuard) isOwnListener(ip netip.Addr, port int) bool {
	ip = ip.Unmap().WithZone("")
	reaches := func(l netip.AddrPort) bool {
		if int(l.Port()) != port {
			return false
		}
		return l.Addr() == ip || l.Addr().IsUnspecified() && (ip.IsLoopback() || ip.IsUnspecified() || n.isLocalAddr(ip))
	}
	if n.elsewhere != nil {
		if l, err := parseListener(n.elsewhere()); err == nil && reaches(l) {
			return true
		}
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	for l := range n.listeners {
		if reaches(l) {
			return true
		}
	}
	return false
}

// isLocalAddr reports whether ip is an address of this machine's interfaces (refreshed every
// few seconds; only needed for listeners on a wildcard address).
func (n *NetGuard) isLocalAddr(ip netip.Addr) bool {
	n.localMu.Lock()
	defer n.localMu.Unlock()
	if n.local == nil || time.Since(n.localTime) > 5*time.Second {
		n.local = map[netip.Addr]bool{}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if p, err := netip.ParsePrefix(a.String()); err == nil {
					n.local[p.Addr().Unmap()] = true
				}
			}
		}
		n.localTime = time.Now()
	}
	return n.local[ip]
}

// target is one connection being decided.
type target struct {
	host   string // canonical name, or the address when the URL named one
	isName bool
	port   int
	caller NetCaller
	known  bool // caller set
}

// DialContext connects like net.Dialer.DialContext after deciding the connection: it resolves
// the host once, decides each address and dials the allowed ones in the resolver's order. A
// refusal is a *Denial. The caller (WithNetCaller) is taken from ctx.
func (n *NetGuard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, &Denial{Code: CodeNetworkDenied, Canonical: shorten(address), Message: "only TCP connections are made", NextStep: "use an http or https URL"}
	}
	t, addrs, err := n.resolve(ctx, address)
	if err != nil {
		return nil, err
	}
	var firstDenial error
	var lastErr error
	for _, ip := range addrs {
		if network == "tcp4" && !ip.Unmap().Is4() || network == "tcp6" && ip.Is4() {
			continue
		}
		if den := n.decide(ctx, t, ip); den != nil {
			if firstDenial == nil {
				firstDenial = den
			}
			continue
		}
		conn, err := n.dialer.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(t.port)).String())
		if err == nil {
			return conn, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	// A refusal explains more than a failed dial to another address of the same name.
	if firstDenial != nil {
		return nil, firstDenial
	}
	if lastErr != nil {
		return nil, lastErr
	}
	return nil, fmt.Errorf("dial %s: no address of the %s family", shorten(address), network)
}

// Check decides a connection to host:port without dialing, for a request handed to a proxy:
// the name policy, then every address the local resolver returns must be allowed (the proxy
// resolves again, which toolhost cannot see; see docs/security.md). It returns the allowed addresses.
func (n *NetGuard) Check(ctx context.Context, host string, port int) ([]netip.Addr, error) {
	t, addrs, err := n.resolve(ctx, net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	var ok []netip.Addr
	for _, ip := range addrs {
		if den := n.decide(ctx, t, ip); den != nil {
			return nil, den
		}
		ok = append(ok, ip)
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("%s has no address", shorten(host))
	}
	return ok, nil
}

// resolve parses address, applies the name policy (deny patterns, metadata names) and returns the
// candidate addresses: the literal, the loopback pair for localhost names, else the resolver's
// answer.
func (n *NetGuard) resolve(ctx context.Context, address string) (target, []netip.Addr, error) {
	var t target
	t.caller, t.known = NetCallerFrom(ctx)
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return t, nil, &Denial{Code: CodeInvalidRequest, Message: fmt.Sprintf("%q is not host:port", shorten(address)), NextStep: "fix the URL"}
	}
	if t.port, err = parsePort(portStr); err != nil {
		return t, nil, &Denial{Code: CodeInvalidRequest, Message: err.Error(), NextStep: "fix the URL"}
	}
	name, ip, err := parseHost(host)
	if err != nil {
		return t, nil, &Denial{Code: CodeInvalidRequest, Message: err.Error(), NextStep: "fix the URL"}
	}
	t.host = name
	if ip.IsValid() {
		return t, []netip.Addr{ip}, nil
	}
	t.isName = true
	for _, p := range n.deny {
		if p.matchesName(name, t.port) {
			den := n.denied(t, netip.Addr{}, CodeNetworkDenied, fmt.Sprintf("%s is on the [web] deny list (%s)", n.display(t, netip.Addr{}), p))
			n.audit(ctx, t, netip.Addr{}, OutcomeDenied, den.Code)
			return t, nil, den
		}
	}
	if isLocalhostName(name) {
		return t, []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}, nil
	}
	if IsMetadataName(name) {
		// Decided by name: a metadata name is never looked up unless it is allowed or granted
		// by that exact name, and then its addresses are decided as usual.
		if !n.allowedExact(ctx, t, netip.Addr{}) {
			den := n.refused(t, netip.Addr{}, AddrMetadata)
			n.audit(ctx, t, netip.Addr{}, outcomeOf(den), den.Code)
			return t, nil, den
		}
	}
	addrs, err := n.resolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return t, nil, fmt.Errorf("look up %s: %w", shorten(name), err)
	}
	if len(addrs) == 0 {
		return t, nil, fmt.Errorf("look up %s: no addresses", shorten(name))
	}
	return t, addrs, nil
}

// decide decides one address of a target and audits the decision; nil means allowed.
func (n *NetGuard) decide(ctx context.Context, t target, ip netip.Addr) *Denial {
	outcome, den := n.decide1(ctx, t, ip)
	code := ""
	if den != nil {
		code = den.Code
	}
	n.audit(ctx, t, ip, outcome, code)
	return den
}

func (n *NetGuard) decide1(ctx context.Context, t target, ip netip.Addr) (string, *Denial) {
	ip = ip.WithZone("")
	if n.isOwnListener(ip, t.port) {
		return OutcomeDenied, n.denied(t, ip, CodeNetworkDenied, fmt.Sprintf("%s is one of toolhost's own listeners, which are never reached from tools or pages", n.display(t, ip)))
	}
	for _, p := range n.deny {
		if p.matches(t.host, ip, t.port, false) {
			return OutcomeDenied, n.denied(t, ip, CodeNetworkDenied, fmt.Sprintf("%s is on the [web] deny list (%s)", n.display(t, ip), p))
		}
	}
	class := ClassifyAddr(ip)
	if t.isName && IsMetadataName(t.host) {
		class = AddrMetadata
	}
	if class == AddrPublic {
		return OutcomeAllowedPublic, nil
	}
	exact := class == AddrMetadata
	for _, p := range n.allow {
		if p.matches(t.host, ip, t.port, exact) {
			return OutcomeAllowedByConfig, nil
		}
	}
	if ok, _ := n.granted(ctx, t, ip, exact); ok {
		return OutcomeAllowedByGrant, nil
	}
	if n.guard != nil && t.known && n.guard.autoGrantHost(ctx, t.caller.Conversation, networkAccess(t), t.host, class) {
		if ok, _ := n.granted(ctx, t, ip, exact); ok {
			return OutcomeAllowedByGrant, nil
		}
	}
	den := n.refused(t, ip, class)
	return outcomeOf(den), den
}

// allowedExact reports whether a pattern or grant names the target exactly (metadata names).
func (n *NetGuard) allowedExact(ctx context.Context, t target, ip netip.Addr) bool {
	for _, p := range n.allow {
		if p.matches(t.host, ip, t.port, true) {
			return true
		}
	}
	ok, _ := n.granted(ctx, t, ip, true)
	return ok
}

// granted looks for a network grant of the caller's conversation that covers the target's name
// or address. exact refuses subdomain (recursive) matches.
func (n *NetGuard) granted(ctx context.Context, t target, ip netip.Addr, exact bool) (bool, string) {
	if n.guard == nil || n.guard.grants == nil || !t.known || !isName(t.caller.Tool) || !isName(t.caller.Operation) {
		return false, ""
	}
	r := &Request{Conversation: t.caller.Conversation, Tool: t.caller.Tool, Operation: t.caller.Operation, Class: ClassNetwork}
	ipStr := ""
	if ip.IsValid() {
		ipStr = ip.Unmap().String()
	}
	gr, ok, err := n.guard.grants.useMatching(ctx, hostKeys(t.host, ipStr, t.isName && !exact), func(g *Grant) bool {
		if g.Host == "" || g.Conversation != "" && g.Conversation != "*" && g.Conversation != r.Conversation || !g.access.covers(r) {
			return false
		}
		if g.Host == t.host || g.Host == ipStr {
			return true
		}
		return !exact && g.Recursive && t.isName && strings.HasSuffix(t.host, "."+g.Host)
	})
	if err != nil {
		n.log.Warn("network grant lookup failed", "err", err)
		return false, ""
	}
	return ok, gr.ID
}

// display renders host:port and, when it differs, the address.
func (n *NetGuard) display(t target, ip netip.Addr) string {
	s := net.JoinHostPort(t.host, strconv.Itoa(t.port))
	if ip.IsValid() && ip.Unmap().String() != t.host {
		s += " (" + ip.Unmap().String() + ")"
	}
	return s
}

func (n *NetGuard) denied(t target, ip netip.Addr, code, msg string) *Denial {
	return &Denial{Code: code, Canonical: n.display(t, ip), Access: networkAccess(t), Message: msg,
		NextStep: "choose another URL; no grant opens this address"}
}

func (n *NetGuard) refused(t target, ip netip.Addr, class AddrClass) *Denial {
	what := "a " + string(class) + " address"
	if class == AddrMetadata {
		what = "a cloud metadata service"
	}
	return &Denial{
		Code:      CodeNetworkRefused,
		Canonical: n.display(t, ip),
		Access:    networkAccess(t),
		Message: fmt.Sprintf("%s is %s; toolhost does not connect there unless [web] allow or the user's grant names the host",
			n.display(t, ip), what),
		NextStep: n.HostAuthorizationCall(t.host, networkAccess(t)),
	}
}

// HostAuthorizationCall renders the exact call that asks the user for a network grant on host
// (canonical) with access (TOOL:network), as the guard's Config.Ask names it.
func (n *NetGuard) HostAuthorizationCall(host, access string) string {
	var ask AskCall
	if n.guard != nil {
		ask = n.guard.ask
	}
	return ask.render(host, access, `"recursive":true for its subdomains too`)
}

// networkAccess is the access a grant for the target's connection needs: the network class of
// the caller's tool, or of any tool when the connection has no caller (in toolhost every
// connection has one; without it no grant applies anyway).
func networkAccess(t target) string {
	tool := t.caller.Tool
	if !isName(tool) {
		tool = "*"
	}
	return Access{Tool: tool, Class: ClassNetwork}.String()
}

func outcomeOf(d *Denial) string {
	if d.Grantable() {
		return OutcomeNeedsGrant
	}
	return OutcomeDenied
}

func (n *NetGuard) audit(ctx context.Context, t target, ip netip.Addr, outcome, code string) {
	if n.guard == nil || n.guard.audit == nil {
		return
	}
	n.guard.audit.add(ctx, AuditRecord{
		Time: n.guard.clock.Now().UTC(), Event: "network", Outcome: outcome, Code: code,
		Conversation: t.caller.Conversation, Tool: t.caller.Tool, Operation: t.caller.Operation,
		Class: ClassNetwork, Host: n.display(t, ip),
	})
}

// IsNetDenial reports whether err is (or wraps) a refusal of the network guard.
func IsNetDenial(err error) (*Denial, bool) {
	var d *Denial
	if errors.As(err, &d) && (d.Code == CodeNetworkRefused || d.Code == CodeNetworkDenied || d.Code == CodeInvalidRequest) {
		return d, true
	}
	return nil, false
}
