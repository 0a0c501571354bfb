package server

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExposureCheck tries the ways a listener could end up reachable from the network without a
// token the user chose.
func TestExposureCheck(t *testing.T) {
	tests := []struct {
		name    string
		e       Exposure
		want    Listen
		wantErr error // nil: allowed
		badAddr bool
	}{
		{name: "default", e: Exposure{}, want: Listen{Addr: DefaultAddr, Loopback: true}},
		{name: "loopback with generated token", e: Exposure{Addr: "127.0.0.1:0"}, want: Listen{Addr: "127.0.0.1:0", Loopback: true}},
		{name: "other loopback address", e: Exposure{Addr: "127.0.0.2:9000"}, want: Listen{Addr: "127.0.0.2:9000", Loopback: true}},
		{name: "ipv6 loopback", e: Exposure{Addr: "[::1]:8765"}, want: Listen{Addr: "[::1]:8765", Loopback: true}},
		{name: "localhost", e: Exposure{Addr: "localhost:8765"}, want: Listen{Addr: "localhost:8765", Loopback: true}},
		{name: "no-auth on loopback", e: Exposure{Addr: "127.0.0.1:8765", NoAuth: true}, want: Listen{Addr: "127.0.0.1:8765", Loopback: true}},
		{name: "allowed hosts kept", e: Exposure{AllowedHosts: []string{"box.lan"}}, want: Listen{Addr: DefaultAddr, Loopback: true, AllowedHosts: []string{"box.lan"}}},
		{name: "all interfaces without a token", e: Exposure{Addr: "0.0.0.0:8765"}, wantErr: ErrImplicitToken},
		{name: "empty host is all interfaces", e: Exposure{Addr: ":8765"}, wantErr: ErrImplicitToken},
		{name: "ipv6 any without a token", e: Exposure{Addr: "[::]:8765"}, wantErr: ErrImplicitToken},
		{name: "host name without a token", e: Exposure{Addr: "box.lan:8765"}, wantErr: ErrImplicitToken},
		{name: "localhost with a trailing dot is a name", e: Exposure{Addr: "localhost.:8765"}, wantErr: ErrImplicitToken},
		{name: "loopback-looking name", e: Exposure{Addr: "127.0.0.1.nip.io:8765"}, wantErr: ErrImplicitToken},
		{name: "no-auth off loopback", e: Exposure{Addr: "0.0.0.0:8765", NoAuth: true, ExplicitToken: true}, wantErr: ErrNoAuthOffLoopback},
		{name: "no-auth without token off loopback", e: Exposure{Addr: "box.lan:8765", NoAuth: true}, wantErr: ErrNoAuthOffLoopback},
		{name: "all interfaces with a token", e: Exposure{Addr: "0.0.0.0:8765", ExplicitToken: true},
			want: Listen{Addr: "0.0.0.0:8765", AllowedHosts: []string{"0.0.0.0"}}},
		{name: "empty host with a token adds no empty Host", e: Exposure{Addr: ":8765", ExplicitToken: true},
			want: Listen{Addr: ":8765"}},
		{name: "host name with a token is an allowed Host", e: Exposure{Addr: "box.lan:8765", ExplicitToken: true, AllowedHosts: []string{"box"}},
			want: Listen{Addr: "box.lan:8765", AllowedHosts: []string{"box", "box.lan"}}},
		{name: "no port", e: Exposure{Addr: "127.0.0.1"}, badAddr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.e.Check()
			switch {
			case tt.badAddr:
				if err == nil {
					t.Fatalf("Check(%+v) = %+v, want an address error", tt.e, got)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Check(%+v) = %+v, %v, want %v", tt.e, got, err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("Check(%+v): %v", tt.e, err)
			default:
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Check(%+v) (-want +got):\n%s", tt.e, diff)
				}
			}
		})
	}
	// The caller's slice is not appended to.
	hosts := make([]string, 1, 4)
	hosts[0] = "a"
	if _, err := (Exposure{Addr: "box:1", ExplicitToken: true, AllowedHosts: hosts}).Check(); err != nil || len(hosts[:cap(hosts)][1]) != 0 {
		t.Errorf("Check wrote into the caller's AllowedHosts: %q, %v", hosts[:2], err)
	}
}
