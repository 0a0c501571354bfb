package authz

import (
	"fmt"
	"net/netip"
	"strings"
)

// HostPattern is one entry of [web] allow or deny:
//
//	example.com        that name (as the URL spells it), whatever it resolves to
//	*.example.com      every name below example.com (not example.com itself)
//	10.1.2.3, [::1]    that address, whatever name led to it
//	10.0.0.0/8         every address in the prefix
//	*                  everything
//
// Any form but a prefix may end in :PORT to match that port only (127.0.0.1:8080).
type HostPattern struct {
	raw    string
	name   string // exact name, or the suffix after "*." when wildcard
	wild   bool   // *.name
	all    bool   // *
	prefix netip.Prefix
	port   int // 0 = any
}

// ParseHostPattern parses one pattern; the error says what is wrong with it.
func ParseHostPattern(s string) (HostPattern, error) {
	p := HostPattern{raw: s}
	s = strings.TrimSpace(s)
	if s == "" {
		return p, fmt.Errorf("empty host pattern")
	}
	if strings.Contains(s, "/") {
		pr, err := netip.ParsePrefix(s)
		if err != nil {
			return p, fmt.Errorf("host pattern %q: not a valid address prefix", s)
		}
		p.prefix = pr.Masked()
		return p, nil
	}
	host, port, err := splitHostPortLoose(s)
	if err != nil {
		return p, fmt.Errorf("host pattern %q: %v", s, err)
	}
	p.port = port
	switch {
	case host == "*":
		p.all = true
		return p, nil
	case strings.HasPrefix(host, "*."):
		p.wild, host = true, host[2:]
	}
	name, ip, err := parseHost(host)
	if err != nil {
		return p, fmt.Errorf("host pattern %q: %v", s, err)
	}
	if ip.IsValid() {
		if p.wild {
			return p, fmt.Errorf("host pattern %q: a wildcard needs a name, not an address", s)
		}
		p.prefix = netip.PrefixFrom(ip, ip.BitLen())
		return p, nil
	}
	p.name = name
	return p, nil
}

// String returns the pattern as written.
func (p HostPattern) String() string { return p.raw }

// matches reports whether the pattern covers a connection to host (canonical name or address as
// the URL gave it) at ip:port. exact limits the match to patterns that name this very host or
// address: no wildcard, no prefix wider than one address, no "*" (metadata addresses need that).
func (p HostPattern) matches(host string, ip netip.Addr, port int, exact bool) bool {
	if p.port != 0 && p.port != port {
		return false
	}
	switch {
	case p.all:
		return !exact
	case p.prefix.IsValid():
		if exact && !p.prefix.IsSingleIP() {
			return false
		}
		return ip.IsValid() && (p.prefix.Contains(ip) || ip.Is4In6() && p.prefix.Contains(ip.Unmap()))
	case p.wild:
		return !exact && strings.HasSuffix(host, "."+p.name)
	default:
		return host == p.name
	}
}

// matchesName reports whether the pattern covers host by name alone, before any address is
// known (the port still counts).
func (p HostPattern) matchesName(host string, port int) bool {
	if p.port != 0 && p.port != port {
		return false
	}
	switch {
	case p.all:
		return true
	case p.prefix.IsValid():
		return false
	case p.wild:
		return strings.HasSuffix(host, "."+p.name)
	default:
		return host == p.name
	}
}

func parsePatterns(list []string, what string) ([]HostPattern, error) {
	out := make([]HostPattern, 0, len(list))
	for _, s := range list {
		p, err := ParseHostPattern(s)
		if err != nil {
			return nil, fmt.Errorf("web.%s: %w", what, err)
		}
		out = append(out, p)
	}
	return out, nil
}
