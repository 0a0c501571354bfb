package authz

import (
	"net/netip"
	"strings"
)

// AddrClass names why an address is refused by default; AddrPublic is not refused.
type AddrClass string

// The address classes. Every class but AddrPublic is refused unless [web] allow or a grant
// names the host.
const (
	AddrPublic      AddrClass = "public"
	AddrLoopback    AddrClass = "loopback"
	AddrPrivate     AddrClass = "private"     // RFC 1918, IPv6 unique-local and site-local
	AddrLinkLocal   AddrClass = "link-local"  // 169.254/16, fe80::/10
	AddrCGNAT       AddrClass = "cgnat"       // 100.64/10 (shared address space)
	AddrMulticast   AddrClass = "multicast"   // 224/4, ff00::/8, 255.255.255.255
	AddrUnspecified AddrClass = "unspecified" // 0.0.0.0/8, ::
	AddrMetadata    AddrClass = "metadata"    // cloud instance metadata services
	AddrReserved    AddrClass = "reserved"    // 240/4, benchmarking, IETF protocol space, discard-only
)

// metadataAddrs are cloud instance-metadata endpoints. They hold credentials of the machine's
// role, so reaching one is the classic server-side request forgery; they are refused even where
// their range is allowed, unless a pattern or grant names the address itself.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
	netip.MustParseAddr("169.254.169.253"): true, // AWS VPC DNS
	netip.MustParseAddr("169.254.169.123"): true, // AWS time sync
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud (classic)
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
	netip.MustParseAddr("fd00:ec2::23"):    true, // AWS time sync over IPv6
	netip.MustParseAddr("fd00:ec2::250"):   true, // AWS VPC DNS over IPv6
}

// metadataNames are host names of metadata services. They are refused by name, before any DNS
// lookup, whatever they resolve to.
var metadataNames = map[string]bool{
	"metadata.google.internal":     true,
	"metadata.goog":                true,
	"metadata":                     true,
	"instance-data":                true,
	"instance-data.ec2.internal":   true,
	"metadata.azure.com":           true,
	"metadata.tencentyun.com":      true,
	"metadata.packet.net":          true,
	"metadata.platformequinix.com": true,
}

// IsMetadataName reports whether a canonical host names a cloud metadata service.
func IsMetadataName(host string) bool { return metadataNames[host] }

// isLocalhostName reports names that always mean this machine (RFC 6761), without asking DNS.
func isLocalhostName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || host == "localhost.localdomain" ||
		host == "ip6-localhost" || host == "ip6-loopback"
}

type prefixClass struct {
	p netip.Prefix
	c AddrClass
}

var v4Classes = []prefixClass{
	{netip.MustParsePrefix("0.0.0.0/8"), AddrUnspecified},
	{netip.MustParsePrefix("10.0.0.0/8"), AddrPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), AddrCGNAT},
	{netip.MustParsePrefix("127.0.0.0/8"), AddrLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), AddrLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), AddrPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), AddrReserved},
	{netip.MustParsePrefix("192.168.0.0/16"), AddrPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), AddrReserved},
	{netip.MustParsePrefix("224.0.0.0/4"), AddrMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), AddrMulticast},
	{netip.MustParsePrefix("240.0.0.0/4"), AddrReserved},
}

var v6Classes = []prefixClass{
	{netip.MustParsePrefix("::/128"), AddrUnspecified},
	{netip.MustParsePrefix("::1/128"), AddrLoopback},
	{netip.MustParsePrefix("100::/64"), AddrReserved}, // discard-only
	{netip.MustParsePrefix("fc00::/7"), AddrPrivate},
	{netip.MustParsePrefix("fec0::/10"), AddrPrivate}, // deprecated site-local
	{netip.MustParsePrefix("fe80::/10"), AddrLinkLocal},
	{netip.MustParsePrefix("ff00::/8"), AddrMulticast},
}

// ClassifyAddr returns the class of an address. IPv6 forms that carry an IPv4 address —
// IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96 and
// 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32) — take the class of the IPv4 address
// inside when it is not public, since a translator on the path would deliver them there.
func ClassifyAddr(a netip.Addr) AddrClass {
	a = a.WithZone("")
	if !a.IsValid() {
		return AddrUnspecified
	}
	if metadataAddrs[a] || metadataAddrs[a.Unmap()] {
		return AddrMetadata
	}
	if a.Is4() || a.Is4In6() {
		v4 := a.Unmap()
		for _, pc := range v4Classes {
			if pc.p.Contains(v4) {
				return pc.c
			}
		}
		return AddrPublic
	}
	for _, pc := range v6Classes {
		if pc.p.Contains(a) {
			return pc.c
		}
	}
	if v4, ok := embeddedIPv4(a); ok {
		if c := ClassifyAddr(v4); c != AddrPublic {
			return c
		}
	}
	return AddrPublic
}

var (
	compatPrefix = netip.MustParsePrefix("::/96")
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local   = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour    = netip.MustParsePrefix("2002::/16")
	teredo       = netip.MustParsePrefix("2001::/32")
)

// embeddedIPv4 extracts the IPv4 address an IPv6 transition address carries.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case compatPrefix.Contains(a), nat64Prefix.Contains(a), nat64Local.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case teredo.Contains(a):
		// The client address is stored inverted in the last 32 bits; the server's in bits 32-63.
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		if c := ClassifyAddr(client); c != AddrPublic {
			return client, true
		}
		return netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]}), true
	}
	return netip.Addr{}, false
}
