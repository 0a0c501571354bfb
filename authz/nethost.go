package authz

import (
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// MaxHostLen bounds a host name (DNS allows 253 bytes).
const MaxHostLen = 253

// CanonicalHost returns the form of a host that policies, grants and audit records use: lower
// case, IDNA (punycode) for international names, no trailing dot, no brackets around IPv6, and
// IPv4 in dotted decimal however it was spelled (0x7f.1, 2130706433 and 127.1 are 127.0.0.1, as
// browsers and resolvers read them). A URL is accepted too (its host is taken), so the model can
// pass what it was refused. Anything else that is not a valid name is an error wrapping
// ErrInvalidGrant.
func CanonicalHost(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", fmt.Errorf("%w: %q is not a host or URL", ErrInvalidGrant, shorten(s))
		}
		s = u.Hostname()
	} else if h, _, err := splitHostPortLoose(s); err == nil {
		s = h
	} else if strings.HasPrefix(s, "[") {
		return "", fmt.Errorf("%w: %v", ErrInvalidGrant, err)
	}
	h, ip, err := parseHost(s)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidGrant, err)
	}
	if ip.IsValid() {
		return ip.String(), nil
	}
	return h, nil
}

// splitHostPortLoose splits "host:port" and "[v6]:port"; a bare IPv6 address is not split.
func splitHostPortLoose(s string) (host string, port int, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("unclosed [ in %q", shorten(s))
		}
		host, rest := s[1:end], s[end+1:]
		if rest == "" {
			return host, 0, nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", 0, fmt.Errorf("junk after ] in %q", shorten(s))
		}
		p, err := parsePort(rest[1:])
		return host, p, err
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 || strings.Count(s, ":") > 1 {
		return s, 0, nil
	}
	p, err := parsePort(s[i+1:])
	return s[:i], p, err
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 || s[0] == '+' || len(s) > 5 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", shorten(s))
	}
	return p, nil
}

// parseHost validates a host (without port or brackets) and returns its canonical name, or the
// address when it is an IP literal in any spelling a browser or resolver accepts.
func parseHost(s string) (string, netip.Addr, error) {
	s = strings.TrimSuffix(strings.Trim(s, "[]"), ".")
	if s == "" {
		return "", netip.Addr{}, fmt.Errorf("empty host")
	}
	if len(s) > MaxHostLen {
		return "", netip.Addr{}, fmt.Errorf("host longer than %d bytes", MaxHostLen)
	}
	if strings.Contains(s, ":") {
		// IPv6, possibly with a zone (fe80::1%eth0): the zone does not change the class.
		addr := s
		if i := strings.IndexByte(addr, '%'); i >= 0 {
			addr = addr[:i]
		}
		ip, err := netip.ParseAddr(addr)
		if err != nil {
			return "", netip.Addr{}, fmt.Errorf("%q is not a valid IPv6 address", shorten(s))
		}
		return ip.String(), ip, nil
	}
	if ip, ok, err := parseLooseIPv4(s); ok || err != nil {
		return ip.String(), ip, err
	}
	name, err := idna.Lookup.ToASCII(strings.ToLower(s))
	if err != nil || name == "" {
		return "", netip.Addr{}, fmt.Errorf("%q is not a valid host name", shorten(s))
	}
	if ip, ok, err := parseLooseIPv4(name); ok || err != nil {
		// IDNA mapping can turn a name into digits ("xn--0-" is "0"): read it as an address.
		return ip.String(), ip, err
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return "", netip.Addr{}, fmt.Errorf("%q is not a valid host name", shorten(s))
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", netip.Addr{}, fmt.Errorf("%q is not a valid host name", shorten(s))
			}
		}
	}
	return name, netip.Addr{}, nil
}

// parseLooseIPv4 reads a host as an IPv4 address the way the URL standard (and inet_aton) does:
// one to four parts, each decimal, 0x hex or 0-prefixed octal, the last filling the remaining
// bytes. ok reports that the host is numeric (its last label is a number), in which case err says
// whether it was a valid address; a name such as "a.1" is numeric and invalid, like in browsers.
func parseLooseIPv4(s string) (ip netip.Addr, ok bool, err error) {
	parts := strings.Split(s, ".")
	if !numericPart(parts[len(parts)-1]) {
		return netip.Addr{}, false, nil
	}
	bad := fmt.Errorf("%q is not a valid IPv4 address", shorten(s))
	if len(parts) > 4 {
		return netip.Addr{}, true, bad
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, true, bad
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, true, bad
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, true, bad
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true, nil
}

func numericPart(p string) bool {
	if p == "" {
		return false
	}
	if len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X") {
		return true
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

func parseIPv4Part(p string) (uint64, bool) {
	if p == "" || len(p) > 12 {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 64)
	return v, err == nil
}

// checkGrantTarget validates what a grant or approval names: a clean absolute path, or for an
// access of the network class, a canonical host.
func checkGrantTarget(a Access, path, host string) error {
	if host != "" {
		if path != "" {
			return fmt.Errorf("%w: a grant names a path or a host, not both", ErrInvalidGrant)
		}
		if a.Class != ClassNetwork {
			return fmt.Errorf("%w: a host needs an access of the network class (TOOL:network)", ErrInvalidGrant)
		}
		if c, err := CanonicalHost(host); err != nil || c != host {
			return fmt.Errorf("%w: host must be canonical (lower case, no port)", ErrInvalidGrant)
		}
		return nil
	}
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || checkInput(path) != nil {
		return fmt.Errorf("%w: path must be a clean absolute path", ErrInvalidGrant)
	}
	return nil
}

// canonicalTarget canonicalises what a model asks a grant for: a host when the access has the
// network class, else a path.
func (g *Guard) canonicalTarget(access, target string) (path, host string, err error) {
	a, err := ParseAccess(access)
	if err != nil {
		return "", "", err
	}
	if a.Class == ClassNetwork {
		h, err := CanonicalHost(target)
		return "", h, err
	}
	c, err := g.Canonical(target)
	return c, "", err
}

// Target is what the grant covers, for people: the path, or "host NAME".
func (g Grant) Target() string { return targetText(g.Path, g.Host) }

// Target is what the request asks for, for people: the path, or "host NAME".
func (a Approval) Target() string { return targetText(a.Path, a.Host) }

func targetText(path, host string) string {
	if host != "" {
		return "host " + host
	}
	return path
}
