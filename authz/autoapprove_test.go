package authz

import (
	"context"
	"net"
	"path/filepath"
	"testing"
)

// TestAutoApprove: with Config.AutoApprove what a model would have to ask for is granted at
// once, by "auto_approve (configuration)" and audited; toolhost's own files, and what no grant
// opens, stay refused; without it nothing changes.
func TestAutoApprove(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, func(c *Config) { c.AutoApprove = true })
	f.populate(t)
	req := func(class Class, path string) Request {
		return Request{Conversation: "c1", Tool: "file_operations", Operation: "create_file", Class: class, Path: path}
	}
	tests := []struct {
		name    string
		r       Request
		allowed bool
		code    string
	}{
		{"write outside", req(ClassWrite, filepath.Join(f.out, "new.txt")), true, ""},
		{"read a credential", req(ClassRead, filepath.Join(f.home, ".ssh", "id_ed25519")), true, ""},
		{"write .git internals", req(ClassWrite, filepath.Join(f.wd, ".git", "config")), true, ""},
		{"write toolhost's state", req(ClassWrite, filepath.Join(f.state, "toolhost.db")), false, CodeProtectedPath},
		{"write toolhost's config", req(ClassWrite, filepath.Join(f.wd, ".toolhost.toml")), false, CodeProtectedPath},
		{"delete a parent of the state", Request{Conversation: "c1", Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: f.base, Delete: true}, false, CodeProtectedPath},
		{"a FIFO is never opened", req(ClassRead, "/dev/null"), false, CodeNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := f.g.Check(ctx, tt.r)
			if tt.allowed {
				if err != nil || d.Kind != AllowedByGrant {
					t.Fatalf("Check = %+v, %v; want allowed by an auto grant", d, err)
				}
				gr, err := f.g.Grants().Get(ctx, d.GrantID)
				if err != nil || gr.By != AutoApprovedBy || gr.Conversation != "c1" {
					t.Errorf("grant = %+v, %v; want by %q for c1", gr, err, AutoApprovedBy)
				}
				return
			}
			if den, ok := AsDenial(err); !ok || den.Code != tt.code {
				t.Errorf("Check = %+v, %v; want refused with %s", d, err, tt.code)
			}
		})
	}

	// A command a rule asks about runs once, exactly that line.
	cmd := CommandRequest{Conversation: "c1", Tool: "terminal_operations", Dir: f.wd, Command: "git push origin main", Reason: "push"}
	if _, ok, err := f.g.CommandGranted(ctx, cmd); !ok || err != nil {
		t.Errorf("CommandGranted with auto-approval = %v, %v; want granted", ok, err)
	}
	// The model's own request is approved as it is filed.
	ap, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "c1", Path: f.out, Access: "file_operations:read", Recursive: true})
	if err != nil || ap.Status != StatusApproved || ap.DecidedBy != AutoApprovedBy {
		t.Errorf("RequestAuthorization = %+v, %v; want approved by %q", ap, err, AutoApprovedBy)
	}
	if ap, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "c1", Path: f.state, Access: "file_operations:write"}); err != nil || ap.Status != StatusPending {
		t.Errorf("RequestAuthorization of toolhost's state = %+v, %v; want left pending for a person", ap, err)
	}

	f.g.Close() // flushes the audit queue
	var audited int
	for _, r := range f.audit.records() {
		if r.Event == "auto_approved" && r.By == AutoApprovedBy {
			audited++
		}
	}
	if audited != 4 {
		t.Errorf("auto_approved audit records = %d, want 4 (three paths, one command)", audited)
	}

	// Without the setting the same write is refused.
	off := newFixture(t, nil)
	if _, err := off.g.Check(ctx, req(ClassWrite, filepath.Join(off.out, "new.txt"))); err == nil {
		t.Errorf("a write outside was allowed without auto-approval")
	}
	if _, ok, _ := off.g.CommandGranted(ctx, CommandRequest{Conversation: "c1", Tool: "terminal_operations", Dir: off.wd, Command: "git push"}); ok {
		t.Errorf("a command was granted without auto-approval")
	}
}

// TestAutoApproveNetwork: a private address is granted to the conversation's tool; a cloud
// metadata service never is.
func TestAutoApproveNetwork(t *testing.T) {
	g := newFixture(t, func(c *Config) { c.AutoApprove = true }).g
	f := newNetFixture(t, g, nil, nil)
	if _, err := f.ng.DialContext(caller("c1"), "tcp", "10.0.0.7:80"); err == nil || isDenial(err) {
		t.Errorf("DialContext(10.0.0.7) = %v, want granted (and refused only by the test dialer)", err)
	}
	if got := f.dialer.Dials(); len(got) != 1 || got[0] != "10.0.0.7:80" {
		t.Errorf("dials = %v, want 10.0.0.7:80", got)
	}
	for _, host := range []string{"169.254.169.254", "metadata.google.internal"} {
		_, err := f.ng.DialContext(caller("c1"), "tcp", net.JoinHostPort(host, "80"))
		if d, ok := IsNetDenial(err); !ok || d.Code != CodeNetworkRefused {
			t.Errorf("DialContext(%s) with auto-approval = %v, want refused", host, err)
		}
	}
}

func isDenial(err error) bool {
	_, ok := IsNetDenial(err)
	return ok
}
