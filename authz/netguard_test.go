package authz

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"toolhost/internal/nettest"
)

// netFixture is a NetGuard over a LoopbackDialer (nothing off the machine can be dialed, even if
// the guard is broken) and a scripted resolver (no DNS server is ever asked).
type netFixture struct {
	ng       *NetGuard
	dialer   *nettest.LoopbackDialer
	resolver *nettest.Resolver
}

func newNetFixture(t *testing.T, g *Guard, allow, deny []string) *netFixture {
	t.Helper()
	f := &netFixture{dialer: &nettest.LoopbackDialer{}, resolver: nettest.NewResolver()}
	ng, err := NewNetGuard(g, NetConfig{Allow: allow, Deny: deny, Resolver: f.resolver, Dialer: f.dialer})
	if err != nil {
		t.Fatal(err)
	}
	f.ng = ng
	return f
}

// listen starts a loopback TCP server that accepts and closes connections, and returns its port.
func listen(t *testing.T, network, addr string) (port int, hits func() int) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot listen on %s: %v", addr, err)
		}
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	n := make(chan struct{}, 1000)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n <- struct{}{}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, func() int { return len(n) }
}

func caller(conv string) context.Context {
	return WithNetCaller(context.Background(), NetCaller{Conversation: conv, Tool: "web_operations", Operation: "fetch_page"})
}

func TestClassifyAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want AddrClass
	}{
		{"127.0.0.1", AddrLoopback},
		{"127.255.255.254", AddrLoopback},
		{"10.1.2.3", AddrPrivate},
		{"172.16.0.1", AddrPrivate},
		{"172.31.255.255", AddrPrivate},
		{"172.32.0.1", AddrPublic},
		{"192.168.1.1", AddrPrivate},
		{"169.254.1.1", AddrLinkLocal},
		{"169.254.169.254", AddrMetadata},
		{"169.254.170.2", AddrMetadata},
		{"100.64.0.1", AddrCGNAT},
		{"100.127.255.255", AddrCGNAT},
		{"100.100.100.200", AddrMetadata},
		{"192.0.0.192", AddrMetadata},
		{"224.0.0.1", AddrMulticast},
		{"239.255.255.250", AddrMulticast},
		{"255.255.255.255", AddrMulticast},
		{"0.0.0.0", AddrUnspecified},
		{"0.1.2.3", AddrUnspecified},
		{"240.0.0.1", AddrReserved},
		{"198.18.0.1", AddrReserved},
		{"8.8.8.8", AddrPublic},
		{"203.0.113.7", AddrPublic},
		{"::1", AddrLoopback},
		{"::", AddrUnspecified},
		{"fe80::1", AddrLinkLocal},
		{"fe80::1%eth0", AddrLinkLocal},
		{"fc00::1", AddrPrivate},
		{"fd12:3456::1", AddrPrivate},
		{"fec0::1", AddrPrivate},
		{"fd00:ec2::254", AddrMetadata},
		{"ff02::1", AddrMulticast},
		{"100::1", AddrReserved},
		{"::ffff:127.0.0.1", AddrLoopback},
		{"::ffff:10.0.0.1", AddrPrivate},
		{"::ffff:169.254.169.254", AddrMetadata},
		{"::127.0.0.1", AddrLoopback},
		{"::a9fe:a9fe", AddrMetadata},
		{"64:ff9b::7f00:1", AddrLoopback},
		{"64:ff9b::a9fe:a9fe", AddrMetadata},
		{"64:ff9b:1::a00:1", AddrPrivate},
		{"2002:7f00:1::", AddrLoopback},
		{"2002:a9fe:a9fe::1", AddrMetadata},
		{"2002:808:808::1", AddrPublic},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", AddrLoopback}, // Teredo client 127.0.0.1
		{"2001:db8::1", AddrPublic},
		{"2606:4700::1111", AddrPublic},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			a, err := netip.ParseAddr(tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := ClassifyAddr(a); got != tc.want {
				t.Errorf("ClassifyAddr(%s) = %s, want %s", tc.addr, got, tc.want)
			}
		})
	}
}

func TestCanonicalHost(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{in: "Example.COM.", want: "example.com"},
		{in: "https://Example.com:8443/x?y", want: "example.com"},
		{in: "example.com:8080", want: "example.com"},
		{in: "[::1]:80", want: "::1"},
		{in: "::FFFF:127.0.0.1", want: "::ffff:127.0.0.1"},
		{in: "0x7f.1", want: "127.0.0.1"},
		{in: "2130706433", want: "127.0.0.1"},
		{in: "0177.0.0.1", want: "127.0.0.1"},
		{in: "127.1", want: "127.0.0.1"},
		{in: "0x7f000001", want: "127.0.0.1"},
		{in: "bücher.example", want: "xn--bcher-kva.example"},
		{in: "", bad: true},
		{in: "a.1", bad: true},
		{in: "1.2.3.4.5", bad: true},
		{in: "256.1.1.1", bad: true},
		{in: "exa mple.com", bad: true},
		{in: "evil.com\x00.good", bad: true},
		{in: strings.Repeat("a", 300), bad: true},
		{in: "[::1", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := CanonicalHost(tc.in)
			if tc.bad {
				if err == nil {
					t.Errorf("CanonicalHost(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("CanonicalHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestNetGuardRefusesEveryClass dials one address of every refused class, spelled every way a
// URL can spell it. Nothing may reach the dialer (which could reach only loopback anyway).
func TestNetGuardRefusesEveryClass(t *testing.T) {
	// On a guard that names the call asking for a grant, as toolhost's wiring does.
	f := newNetFixture(t, newFixture(t, nil).g, nil, nil)
	f.resolver.Set("rebind-to-loopback.test", []string{"127.0.0.1"})
	f.resolver.Set("private.test", []string{"10.0.0.7"})
	f.resolver.Set("mapped.test", []string{"::ffff:169.254.169.254"})
	for _, tc := range []struct {
		name, host string
		class      AddrClass
	}{
		{"loopback", "127.0.0.1", AddrLoopback},
		{"loopback other", "127.0.0.2", AddrLoopback},
		{"loopback v6", "[::1]", AddrLoopback},
		{"loopback hex", "0x7f.1", AddrLoopback},
		{"loopback decimal", "2130706433", AddrLoopback},
		{"loopback octal", "0177.0.0.1", AddrLoopback},
		{"loopback short", "127.1", AddrLoopback},
		{"localhost", "localhost", AddrLoopback},
		{"localhost subdomain", "app.localhost", AddrLoopback},
		{"name resolving to loopback", "rebind-to-loopback.test", AddrLoopback},
		{"private 10", "10.0.0.1", AddrPrivate},
		{"private 172", "172.20.1.1", AddrPrivate},
		{"private 192", "192.168.0.1", AddrPrivate},
		{"private name", "private.test", AddrPrivate},
		{"private v6", "[fd00::1]", AddrPrivate},
		{"link-local", "169.254.10.10", AddrLinkLocal},
		{"link-local v6", "[fe80::1]", AddrLinkLocal},
		{"cgnat", "100.64.1.1", AddrCGNAT},
		{"multicast", "224.0.0.251", AddrMulticast},
		{"multicast v6", "[ff02::fb]", AddrMulticast},
		{"broadcast", "255.255.255.255", AddrMulticast},
		{"unspecified", "0.0.0.0", AddrUnspecified},
		{"unspecified v6", "[::]", AddrUnspecified},
		{"reserved", "240.1.2.3", AddrReserved},
		{"metadata", "169.254.169.254", AddrMetadata},
		{"metadata ecs", "169.254.170.2", AddrMetadata},
		{"metadata alibaba", "100.100.100.200", AddrMetadata},
		{"metadata v6", "[fd00:ec2::254]", AddrMetadata},
		{"metadata google name", "metadata.google.internal", AddrMetadata},
		{"metadata name upper dot", "METADATA.Google.Internal.", AddrMetadata},
		{"metadata bare name", "metadata", AddrMetadata},
		{"metadata mapped", "[::ffff:169.254.169.254]", AddrMetadata},
		{"metadata mapped via dns", "mapped.test", AddrMetadata},
		{"metadata nat64", "[64:ff9b::a9fe:a9fe]", AddrMetadata},
		{"metadata 6to4", "[2002:a9fe:a9fe::]", AddrMetadata},
		{"loopback mapped", "[::ffff:7f00:1]", AddrLoopback},
		{"loopback compat", "[::127.0.0.1]", AddrLoopback},
		{"loopback teredo", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", AddrLoopback},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.ng.DialContext(caller("c1"), "tcp", net.JoinHostPort(strings.Trim(tc.host, "[]"), "80"))
			d, ok := IsNetDenial(err)
			if !ok || d.Code != CodeNetworkRefused {
				t.Fatalf("DialContext(%s) = %v, want a %s denial", tc.host, err, CodeNetworkRefused)
			}
			want := string(tc.class)
			if tc.class == AddrMetadata {
				want = "metadata"
			}
			if !strings.Contains(d.Message, want) {
				t.Errorf("denial %q does not name the class %s", d.Message, want)
			}
			if !strings.Contains(d.NextStep, `"access":"web_operations:network"`) {
				t.Errorf("next step %q is not the request_authorization call", d.NextStep)
			}
		})
	}
	if d := f.dialer.Dials(); len(d) != 0 {
		t.Errorf("refused addresses reached the dialer: %v", d)
	}
	if n := f.resolver.Calls("metadata.google.internal"); n != 0 {
		t.Errorf("a metadata name was looked up %d times; it is refused by name", n)
	}
}

// TestNetGuardAllowsPublic shows the dialer stand-in works: a public address passes the guard and
// is then refused by the test dialer (no packet leaves the machine).
func TestNetGuardAllowsPublic(t *testing.T) {
	f := newNetFixture(t, nil, nil, nil)
	f.resolver.Set("public.test", []string{"203.0.113.9"})
	for _, host := range []string{"203.0.113.8", "public.test", "2001:db8::5"} {
		_, err := f.ng.DialContext(caller("c1"), "tcp", net.JoinHostPort(host, "443"))
		if _, denied := IsNetDenial(err); denied || err == nil || !strings.Contains(err.Error(), "nettest: refused") {
			t.Errorf("DialContext(%s) = %v, want the guard to allow it and the test dialer to refuse it", host, err)
		}
	}
	if got := len(f.dialer.Dials()); got != 3 {
		t.Errorf("dials = %v, want 3", f.dialer.Dials())
	}
}

// TestNetGuardDNSRebinding: a resolver that answers a public address first and loopback the
// second time never gets loopback dialed, and a mixed answer dials only the allowed address.
func TestNetGuardDNSRebinding(t *testing.T) {
	f := newNetFixture(t, nil, nil, nil)
	f.resolver.Set("rebind.test", []string{"203.0.113.5"}, []string{"127.0.0.1"})
	f.resolver.Set("mixed.test", []string{"127.0.0.1", "10.0.0.1", "203.0.113.6"})
	ctx := caller("c1")
	if _, err := f.ng.Check(ctx, "rebind.test", 80); err != nil {
		t.Fatalf("first lookup (public) refused: %v", err)
	}
	_, err := f.ng.DialContext(ctx, "tcp", "rebind.test:80")
	if d, ok := IsNetDenial(err); !ok || d.Code != CodeNetworkRefused {
		t.Fatalf("second lookup answered loopback; DialContext = %v, want a refusal", err)
	}
	if _, err := f.ng.DialContext(ctx, "tcp", "mixed.test:80"); err == nil {
		t.Fatalf("mixed answer: connected, want the public address refused by the test dialer")
	}
	if got := f.dialer.Dials(); len(got) != 1 || got[0] != "203.0.113.6:80" {
		t.Errorf("dials = %v, want only 203.0.113.6:80", got)
	}
	// The check of a proxied target refuses a name with any refused address.
	if _, err := f.ng.Check(ctx, "mixed.test", 80); err == nil {
		t.Errorf("Check(mixed.test) allowed a name that also resolves to loopback")
	}
}

func TestNetGuardAllowAndDeny(t *testing.T) {
	port, hits := listen(t, "tcp", "127.0.0.1:0")
	other, otherHits := listen(t, "tcp", "127.0.0.1:0")
	p := strconv.Itoa(port)
	for _, tc := range []struct {
		name        string
		allow, deny []string
		address     string
		wantCode    string // "" = connects (or reaches the test dialer for non-loopback)
	}{
		{"allowed port", []string{"127.0.0.1:" + p}, nil, "127.0.0.1:" + p, ""},
		{"other port still refused", []string{"127.0.0.1:" + p}, nil, "127.0.0.1:" + strconv.Itoa(other), CodeNetworkRefused},
		{"allowed address any port", []string{"127.0.0.1"}, nil, "127.0.0.1:" + p, ""},
		{"allowed prefix", []string{"127.0.0.0/8"}, nil, "127.0.0.1:" + p, ""},
		{"allowed name", []string{"dev.test"}, nil, "dev.test:" + p, ""},
		{"wildcard name", []string{"*.test"}, nil, "dev.test:" + p, ""},
		{"wildcard does not cover apex", []string{"*.dev.test"}, nil, "dev.test:" + p, CodeNetworkRefused},
		{"name pattern does not cover address", []string{"dev.test"}, nil, "127.0.0.1:" + p, CodeNetworkRefused},
		{"star", []string{"*"}, nil, "127.0.0.1:" + p, ""},
		{"star does not open metadata", []string{"*"}, nil, "169.254.169.254:80", CodeNetworkRefused},
		{"link-local prefix does not open metadata", []string{"169.254.0.0/16"}, nil, "169.254.169.254:80", CodeNetworkRefused},
		{"exact metadata address", []string{"169.254.169.254"}, nil, "169.254.169.254:80", ""},
		{"deny beats allow", []string{"*"}, []string{"127.0.0.1"}, "127.0.0.1:" + p, CodeNetworkDenied},
		{"deny public", nil, []string{"203.0.113.0/24"}, "203.0.113.1:80", CodeNetworkDenied},
		{"deny name before dns", []string{"*"}, []string{"*.test"}, "dev.test:" + p, CodeNetworkDenied},
		{"deny mapped form", []string{"*"}, []string{"127.0.0.1"}, "[::ffff:127.0.0.1]:" + p, CodeNetworkDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newNetFixture(t, newFixture(t, nil).g, tc.allow, tc.deny)
			f.resolver.Set("dev.test", []string{"127.0.0.1"})
			conn, err := f.ng.DialContext(caller("c1"), "tcp", tc.address)
			if conn != nil {
				conn.Close()
			}
			if tc.wantCode == "" {
				if _, denied := IsNetDenial(err); denied {
					t.Fatalf("DialContext(%s) refused: %v", tc.address, err)
				}
				return
			}
			d, ok := IsNetDenial(err)
			if !ok || d.Code != tc.wantCode {
				t.Fatalf("DialContext(%s) = %v, want %s", tc.address, err, tc.wantCode)
			}
			if tc.wantCode == CodeNetworkDenied && strings.Contains(d.NextStep, "request_authorization") {
				t.Errorf("a deny-list refusal offers a grant: %s", d.NextStep)
			}
		})
	}
	if otherHits() != 0 {
		t.Errorf("the refused port was connected %d times", otherHits())
	}
	_ = hits
}

func TestNetGuardOwnListeners(t *testing.T) {
	port, hits := listen(t, "tcp", "127.0.0.1:0")
	wport, whits := listen(t, "tcp", "0.0.0.0:0")
	f := newNetFixture(t, nil, []string{"*"}, nil)
	unregister, err := f.ng.RegisterListener(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ng.RegisterListener("0.0.0.0:" + strconv.Itoa(wport)); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{
		"127.0.0.1:" + strconv.Itoa(port),
		"[::ffff:127.0.0.1]:" + strconv.Itoa(port),
		"localhost:" + strconv.Itoa(port),
		"127.0.0.1:" + strconv.Itoa(wport),
		"127.0.0.2:" + strconv.Itoa(wport),
		"[::1]:" + strconv.Itoa(wport),
		"0.0.0.0:" + strconv.Itoa(wport),
	} {
		_, err := f.ng.DialContext(caller("c1"), "tcp", addr)
		if d, ok := IsNetDenial(err); !ok || d.Code != CodeNetworkDenied {
			t.Errorf("DialContext(%s) = %v, want own listener refused even with allow *", addr, err)
		}
	}
	if hits() != 0 || whits() != 0 {
		t.Errorf("own listeners were connected (%d, %d)", hits(), whits())
	}
	unregister()
	conn, err := f.ng.DialContext(caller("c1"), "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("after unregistering: %v", err)
	}
	conn.Close()
}

// TestNetGuardListenerElsewhere: the listener another toolhost process on the same state
// announces (a `serve` beside a stdio server) is refused like this process's own, even with
// every host allowed, by every spelling; what the announcement says is read on each decision,
// so a serve that goes away stops being refused, and a malformed one refuses nothing extra.
func TestNetGuardListenerElsewhere(t *testing.T) {
	port, hits := listen(t, "tcp", "127.0.0.1:0")
	other, _ := listen(t, "tcp", "127.0.0.1:0")
	var announced atomic.Value
	announced.Store("127.0.0.1:" + strconv.Itoa(port))
	f := &netFixture{dialer: &nettest.LoopbackDialer{}, resolver: nettest.NewResolver()}
	ng, err := NewNetGuard(nil, NetConfig{Allow: []string{"*"}, Resolver: f.resolver, Dialer: f.dialer,
		Elsewhere: func() string { return announced.Load().(string) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"127.0.0.1:" + strconv.Itoa(port), "[::ffff:127.0.0.1]:" + strconv.Itoa(port), "localhost:" + strconv.Itoa(port)} {
		if _, err := ng.DialContext(caller("c1"), "tcp", addr); err == nil {
			t.Errorf("DialContext(%s) connected to the serve beside this process", addr)
		} else if d, ok := IsNetDenial(err); !ok || d.Code != CodeNetworkDenied {
			t.Errorf("DialContext(%s) = %v, want a network denial", addr, err)
		}
	}
	if hits() != 0 {
		t.Errorf("the announced listener was connected %d times", hits())
	}
	// Another port of the same host is not toolhost's.
	conn, err := ng.DialContext(caller("c1"), "tcp", "127.0.0.1:"+strconv.Itoa(other))
	if err != nil {
		t.Fatalf("another loopback port: %v", err)
	}
	conn.Close()
	for _, a := range []string{"", "not an address", ":0x1f"} {
		announced.Store(a)
		conn, err := ng.DialContext(caller("c1"), "tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("with %q announced: %v", a, err)
		}
		conn.Close()
	}
	// A wildcard announcement covers the port on every local address.
	announced.Store(":" + strconv.Itoa(port))
	if _, err := ng.DialContext(caller("c1"), "tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		t.Error("a wildcard announcement did not cover loopback")
	}
}

// TestNetworkGrant walks the whole user path: the model asks (request_authorization with the
// access of the denial and a URL), the user approves, the conversation may connect; another
// conversation may not, and host grants never open paths.
func TestNetworkGrant(t *testing.T) {
	fx := newFixture(t, nil)
	f := newNetFixture(t, fx.g, nil, nil)
	port, _ := listen(t, "tcp", "127.0.0.1:0")
	f.resolver.Set("intranet.test", []string{"127.0.0.1"})
	f.resolver.Set("api.intranet.test", []string{"127.0.0.1"})
	f.resolver.Set("metadata.google.internal", []string{"169.254.169.254"})
	addr := "intranet.test:" + strconv.Itoa(port)
	ctx := context.Background()

	_, err := f.ng.DialContext(caller("c1"), "tcp", addr)
	d, ok := IsNetDenial(err)
	if !ok || !d.Grantable() {
		t.Fatalf("before the grant: %v, want a grantable refusal", err)
	}
	ap, err := fx.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "c1", Path: "http://Intranet.test:" + strconv.Itoa(port) + "/x", Access: d.Access, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if ap.Host != "intranet.test" || ap.Path != "" || ap.Target() != "host intranet.test" {
		t.Fatalf("approval = %+v, want host intranet.test", ap)
	}
	if _, _, err := fx.g.Approve(ctx, ap.ID, 0, false, "test"); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{addr, "api.intranet.test:" + strconv.Itoa(port)} {
		conn, err := f.ng.DialContext(caller("c1"), "tcp", a)
		if err != nil {
			t.Fatalf("granted %s: %v", a, err)
		}
		conn.Close()
	}
	if _, err := f.ng.DialContext(caller("c2"), "tcp", addr); err == nil {
		t.Errorf("another conversation used c1's grant")
	}
	if _, err := f.ng.DialContext(context.Background(), "tcp", addr); err == nil {
		t.Errorf("a dial without a caller used a grant")
	}
	if _, err := f.ng.DialContext(caller("c1"), "tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		t.Errorf("a grant on a name opened the address it resolves to")
	}
	// A recursive grant on a parent domain does not open a metadata name; only its exact name does.
	if _, err := fx.g.CreateGrant(ctx, GrantSpec{Conversation: "c1", Access: "web_operations:network", Host: "google.internal", Recursive: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ng.DialContext(caller("c1"), "tcp", "metadata.google.internal:80"); err == nil || !strings.Contains(err.Error(), "metadata") {
		t.Errorf("recursive grant opened a metadata name: %v", err)
	}
	if _, err := fx.g.CreateGrant(ctx, GrantSpec{Conversation: "c1", Access: "web_operations:network", Host: "metadata.google.internal", By: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ng.DialContext(caller("c1"), "tcp", "metadata.google.internal:80"); err == nil || !strings.Contains(err.Error(), "nettest: refused") {
		t.Errorf("exact grant: %v, want the guard to allow it (and the test dialer to refuse)", err)
	}
	// Host grants and path grants never cover each other.
	if _, err := fx.g.Check(ctx, req(ClassWrite, "create_file", "/intranet.test")); err == nil {
		t.Errorf("a host grant opened a path")
	}
	if _, err := fx.g.CreateGrant(ctx, GrantSpec{Conversation: "c1", Access: "web_operations:network", Path: fx.out, By: "test"}); err == nil {
		// The path is read as a host and refused: a network grant names a host.
		t.Errorf("CreateGrant with a network access and a path = nil error")
	}
	if _, err := fx.g.CreateGrant(ctx, GrantSpec{Conversation: "c1", Access: "file_operations:write", Host: "intranet.test", By: "test"}); err == nil {
		t.Errorf("CreateGrant with a write access and a host = nil error")
	}
	fx.g.Close() // the audit queue is written by a goroutine of its own: flush it
	var found bool
	for _, rec := range fx.audit.records() {
		if rec.Event == "network" && rec.Outcome == OutcomeAllowedByGrant && strings.HasPrefix(rec.Host, "intranet.test:") {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit record of the granted connection in %+v", fx.audit.records())
	}
}

func TestNetGuardInput(t *testing.T) {
	f := newNetFixture(t, nil, nil, nil)
	for _, addr := range []string{"", "nohost", "host:0", "host:99999", "host:http", "bad host:80", "[::1:80", "a.1:80"} {
		if _, err := f.ng.DialContext(caller("c1"), "tcp", addr); err == nil {
			t.Errorf("DialContext(%q) = nil error", addr)
		}
	}
	if _, err := f.ng.DialContext(caller("c1"), "udp", "203.0.113.1:53"); err == nil {
		t.Errorf("udp dial allowed")
	}
	if len(f.dialer.Dials()) != 0 {
		t.Errorf("bad input reached the dialer: %v", f.dialer.Dials())
	}
	if _, err := NewNetGuard(nil, NetConfig{Allow: []string{"10.0.0.0/33"}}); err == nil {
		t.Errorf("bad prefix accepted")
	}
	if _, err := NewNetGuard(nil, NetConfig{Deny: []string{"*.1.2.3.4"}}); err == nil {
		t.Errorf("wildcard address accepted")
	}
}

// anyResolver answers every name with a fixed list.
type anyResolver []netip.Addr

func (r anyResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

// FuzzNetPolicy: whatever the host and port, the guard never hands the dialer an address outside
// the public class (no allow list), and canonical hosts are stable.
func FuzzNetPolicy(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "0x7f.1", "::ffff:127.0.0.1", "localhost", "metadata.google.internal",
		"example.com", "2130706433", "[fe80::1%25eth0]", "64:ff9b::a9fe:a9fe", "xn--bcher-kva.example", "a.b.c.d.e", "1.2.3"} {
		f.Add(s, uint16(80))
	}
	dialer := &nettest.LoopbackDialer{}
	ng, err := NewNetGuard(nil, NetConfig{Dialer: dialer, Resolver: anyResolver{
		netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.9.9.9"), netip.MustParseAddr("::ffff:169.254.169.254"),
		netip.MustParseAddr("fd00::1"), netip.MustParseAddr("2002:7f00:1::1"),
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, host string, port uint16) {
		conn, _ := ng.DialContext(context.Background(), "tcp", net.JoinHostPort(host, strconv.Itoa(int(port))))
		if conn != nil {
			conn.Close()
		}
		for _, d := range dialer.Dials() {
			ap, err := netip.ParseAddrPort(d)
			if err != nil {
				t.Fatalf("dialer got %q, not an address", d)
			}
			if c := ClassifyAddr(ap.Addr()); c != AddrPublic {
				t.Fatalf("host %q: guard dialed %s (%s)", host, d, c)
			}
		}
		if c, err := CanonicalHost(host); err == nil {
			if c2, err := CanonicalHost(c); err != nil || c2 != c {
				t.Fatalf("CanonicalHost not idempotent: %q -> %q -> %q (%v)", host, c, c2, err)
			}
		}
	})
}

// TestNetRefusalAccess: a refusal asks for the network class of the caller's tool; a
// connection without a caller names any tool, since the guard knows none by name.
func TestNetRefusalAccess(t *testing.T) {
	f := newNetFixture(t, newFixture(t, nil).g, nil, nil)
	for _, c := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"caller", caller("c1"), "web_operations:network"},
		{"no caller", context.Background(), "*:network"},
	} {
		_, err := f.ng.DialContext(c.ctx, "tcp", "127.0.0.1:80")
		d, ok := IsNetDenial(err)
		if !ok || d.Access != c.want || !strings.Contains(d.NextStep, `"access":"`+c.want+`"`) {
			t.Errorf("%s: DialContext(127.0.0.1:80) = %+v, want a refusal asking for %s", c.name, d, c.want)
		}
	}
}
