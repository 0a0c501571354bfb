package authz

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/store"
	"toolhost/store/storetest"
)

func TestParseAccess(t *testing.T) {
	tests := []struct {
		in      string
		want    Access
		wantErr bool
	}{
		{"file_operations.create_file", Access{Tool: "file_operations", Operation: "create_file"}, false},
		{"file_operations:write", Access{Tool: "file_operations", Class: ClassWrite}, false},
		{"*:execute", Access{Tool: "*", Class: ClassExecute}, false},
		{"file_operations:delete", Access{}, true},
		{"file_operations", Access{}, true},
		{"*.create_file", Access{}, true},
		{"File.Op", Access{}, true},
		{"", Access{}, true},
		{"a.b.c", Access{}, true},
	}
	for _, tt := range tests {
		got, err := ParseAccess(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseAccess(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrInvalidAccess) {
			t.Errorf("ParseAccess(%q) error %v does not wrap ErrInvalidAccess", tt.in, err)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("ParseAccess(%q).String() = %q", tt.in, got.String())
		}
	}
}

func (f *fixture) grant(t *testing.T, s GrantSpec) Grant {
	t.Helper()
	if s.By == "" {
		s.By = "test"
	}
	gr, err := f.g.CreateGrant(context.Background(), s)
	if err != nil {
		t.Fatalf("CreateGrant(%+v): %v", s, err)
	}
	return gr
}

func (f *fixture) kind(t *testing.T, r Request) string {
	t.Helper()
	return decideOutcome(t, f.g, r).kind
}

func TestGrantExpiryBoundary(t *testing.T) {
	f := newFixture(t, nil)
	f.grant(t, GrantSpec{Access: "file_operations.create_file", Path: f.out + "/x"})
	w := req(ClassWrite, "create_file", f.out+"/x")
	f.clock.advance(DefaultGrantTTL - time.Nanosecond)
	if got := f.kind(t, w); got != string(AllowedByGrant) {
		t.Errorf("Check 1ns before expiry = %s, want allowed_by_grant", got)
	}
	f.clock.advance(time.Nanosecond)
	if got := f.kind(t, w); got != CodeOutsideWorkdir {
		t.Errorf("Check at expiry = %s, want outside_workdir", got)
	}
}

func TestGrantClockJumps(t *testing.T) {
	tests := []struct {
		name      string
		wallDelta time.Duration
		bootDelta time.Duration
		bootID    string
		want      string
	}{
		{"wall clock set back, time passed", -time.Hour, 6 * time.Minute, "", CodeOutsideWorkdir},
		{"wall clock set back, little time passed", -time.Hour, time.Minute, "", string(AllowedByGrant)},
		{"wall clock jumped forward", 6 * time.Minute, time.Minute, "", CodeOutsideWorkdir},
		{"reboot", 0, -30 * time.Minute, "boot-2", CodeOutsideWorkdir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true})
			f.clock.set(tt.wallDelta, tt.bootDelta, tt.bootID)
			if got := f.kind(t, req(ClassWrite, "create_file", f.out+"/y")); got != tt.want {
				t.Errorf("Check after %s = %s, want %s", tt.name, got, tt.want)
			}
		})
	}
}

func TestOneTimeGrantConcurrent(t *testing.T) {
	f := newFixture(t, nil)
	f.grant(t, GrantSpec{Access: "file_operations.create_file", Path: f.out + "/once", Once: true})
	const n = 50
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		other   []error
	)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			_, err := f.g.Check(context.Background(), req(ClassWrite, "create_file", f.out+"/once"))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				allowed++
			} else if d, ok := AsDenial(err); !ok || d.Code != CodeOutsideWorkdir {
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if allowed != 1 || len(other) != 0 {
		t.Errorf("%d concurrent uses of a one-time grant: %d allowed, unexpected errors %v; want exactly 1 allowed", n, allowed, other)
	}
}

func TestMultiUseGrant(t *testing.T) {
	f := newFixture(t, nil)
	f.grant(t, GrantSpec{Access: "file_operations.create_file", Path: f.out + "/m", Uses: 3})
	var got []string
	for range 4 {
		got = append(got, f.kind(t, req(ClassWrite, "create_file", f.out+"/m")))
	}
	want := []string{"allowed_by_grant", "allowed_by_grant", "allowed_by_grant", CodeOutsideWorkdir}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("four uses of a 3-use grant (-want +got):\n%s", diff)
	}
}

// TestOneTimeGrantOncePerCall: under WithUseBatch (one tool call) a one-time directory grant
// covers every path the call touches; the next call finds it used up.
func TestOneTimeGrantOncePerCall(t *testing.T) {
	f := newFixture(t, nil)
	f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out + "/dir", Recursive: true, Once: true})
	call := WithUseBatch(context.Background())
	for _, p := range []string{"/dir/a.txt", "/dir/b.txt", "/dir/a.txt"} {
		if _, err := f.g.Check(call, req(ClassWrite, "rename_file", f.out+p)); err != nil {
			t.Errorf("Check(%s) within one call = %v, want allowed by the one-time grant", p, err)
		}
	}
	if _, err := f.g.Check(call, req(ClassWrite, "rename_file", f.out+"/other.txt")); err == nil {
		t.Error("the batch allowed a path outside the grant")
	}
	if _, err := f.g.Check(WithUseBatch(context.Background()), req(ClassWrite, "rename_file", f.out+"/dir/a.txt")); err == nil {
		t.Error("a second call used a one-time grant again")
	}
}

func TestGrantScope(t *testing.T) {
	f := newFixture(t, nil)
	f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out + "/dir", Recursive: true})
	f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out + "/single.txt"})
	tests := []struct {
		path, want string
	}{
		{f.out + "/dir", string(AllowedByGrant)},
		{f.out + "/dir/a.txt", string(AllowedByGrant)},
		{f.out + "/dir/deep/er/b.txt", string(AllowedByGrant)},
		{f.out + "/dir2/a.txt", CodeOutsideWorkdir},
		{f.out + "/dirx", CodeOutsideWorkdir},
		{f.out + "/a.txt", CodeOutsideWorkdir},
		{f.out + "/dir/../a.txt", CodeOutsideWorkdir},
		{f.out + "/single.txt", string(AllowedByGrant)},
		{f.out + "/single.txt/x", CodeOutsideWorkdir},
		{f.out + "/single.txt2", CodeOutsideWorkdir},
	}
	for _, tt := range tests {
		if got := f.kind(t, req(ClassWrite, "create_file", tt.path)); got != tt.want {
			t.Errorf("Check(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestGrantAccessEnforced(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.OutsideReadsNeedGrant = true })
	f.grant(t, GrantSpec{Access: "file_operations.create_file", Path: f.out + "/op", Recursive: true})
	f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out + "/class", Recursive: true})
	f.grant(t, GrantSpec{Access: "file_operations:read", Path: f.out + "/read", Recursive: true})
	f.grant(t, GrantSpec{Access: "*:execute", Path: f.out + "/exec", Recursive: true})
	term := func(p string) Request {
		return Request{Conversation: "c1", Tool: "terminal_operations", Operation: "run_command", Class: ClassExecute, Path: p}
	}
	tests := []struct {
		name string
		r    Request
		want string
	}{
		{"operation grant, same operation", req(ClassWrite, "create_file", f.out+"/op/a"), string(AllowedByGrant)},
		{"operation grant, other operation", req(ClassWrite, "delete_file", f.out+"/op/a"), CodeOutsideWorkdir},
		{"operation grant, other tool", Request{Tool: "edit_operations", Operation: "create_file", Class: ClassWrite, Path: f.out + "/op/a"}, CodeOutsideWorkdir},
		{"class grant, write op", req(ClassWrite, "replace_string", f.out+"/class/a"), string(AllowedByGrant)},
		{"class grant covers reads", req(ClassRead, "read_file", f.out+"/class/a"), string(AllowedByGrant)},
		{"class grant, execute", Request{Tool: "file_operations", Operation: "x", Class: ClassExecute, Path: f.out + "/class"}, CodeOutsideWorkdir},
		{"class grant, other tool", term(f.out + "/class"), CodeOutsideWorkdir},
		{"read grant, read", req(ClassRead, "read_file", f.out+"/read/a"), string(AllowedByGrant)},
		{"read grant, write", req(ClassWrite, "create_file", f.out+"/read/a"), CodeOutsideWorkdir},
		{"any-tool execute grant", term(f.out + "/exec"), string(AllowedByGrant)},
		{"no grant read", req(ClassRead, "read_file", f.out+"/none"), CodeNeedsGrant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.kind(t, tt.r); got != tt.want {
				t.Errorf("Check(%+v) = %s, want %s", tt.r, got, tt.want)
			}
		})
	}
}

func TestGrantConversation(t *testing.T) {
	f := newFixture(t, nil)
	f.grant(t, GrantSpec{Conversation: "c1", Access: "file_operations:write", Path: f.out + "/c1", Recursive: true})
	f.grant(t, GrantSpec{Conversation: "*", Access: "file_operations:write", Path: f.out + "/star", Recursive: true})
	f.grant(t, GrantSpec{Conversation: "", Access: "file_operations:write", Path: f.out + "/empty", Recursive: true})
	tests := []struct {
		conv, dir, want string
	}{
		{"c1", "c1", string(AllowedByGrant)},
		{"c2", "c1", CodeOutsideWorkdir},
		{"", "c1", CodeOutsideWorkdir},
		{"c2", "star", string(AllowedByGrant)},
		{"c3", "empty", string(AllowedByGrant)},
	}
	for _, tt := range tests {
		r := req(ClassWrite, "create_file", f.out+"/"+tt.dir+"/f")
		r.Conversation = tt.conv
		if got := f.kind(t, r); got != tt.want {
			t.Errorf("Check(conversation %q, grant %s) = %s, want %s", tt.conv, tt.dir, got, tt.want)
		}
	}
}

func TestGrantPruning(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	for _, p := range []string{"/a", "/b", "/c"} {
		f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out + p, TTL: time.Minute})
	}
	long := f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out + "/long", TTL: time.Hour})
	f.clock.advance(2 * time.Minute)
	n, err := f.g.Grants().Prune(ctx)
	if err != nil || n != 3 {
		t.Errorf("Prune() = %d, %v; want 3", n, err)
	}
	list, err := f.g.Grants().List(ctx, "")
	if err != nil || len(list) != 1 || list[0].ID != long.ID {
		t.Errorf("List() after prune = %+v, %v; want only %s", list, err, long.ID)
	}
	// Lookups prune too.
	f.clock.advance(2 * time.Hour)
	f.kind(t, req(ClassWrite, "create_file", f.out+"/long"))
	n, err = f.g.Grants().Prune(ctx)
	if err != nil || n != 0 {
		t.Errorf("Prune() after a lookup = %d, %v; want 0 (already pruned)", n, err)
	}
	if _, err := f.g.Grants().Get(ctx, long.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(expired) error = %v, want ErrNotFound", err)
	}
}

func TestGrantRevokeAndValidation(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	gr := f.grant(t, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true})
	if err := f.g.Grants().Revoke(ctx, gr.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.kind(t, req(ClassWrite, "create_file", f.out+"/x")); got != CodeOutsideWorkdir {
		t.Errorf("Check after revoke = %s, want outside_workdir", got)
	}
	if err := f.g.Grants().Revoke(ctx, gr.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Revoke twice error = %v, want ErrNotFound", err)
	}
	bad := []GrantSpec{
		{Access: "nope", Path: f.out},
		{Access: "file_operations:write", Path: "relative"},
		{Access: "file_operations:write", Path: f.out + "/../x"},
		{Access: "file_operations:write", Path: f.out, TTL: 365 * 24 * time.Hour},
		{Access: "file_operations:write", Path: f.out, Uses: -1},
	}
	for _, s := range bad {
		if _, err := f.g.Grants().Create(ctx, s); err == nil {
			t.Errorf("Grants.Create(%+v) succeeded, want an error", s)
		}
	}
}

func TestStaticGrants(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		// Spelled through a symlink and with ~/: canonicalised when the guard is built.
		symlink(t, "../out", filepath.Join(c.HomeDir, "outlink"))
		c.StaticGrants = []GrantSpec{{Access: "file_operations:write", Path: "~/outlink", Recursive: true}}
	})
	f.clock.advance(1000 * time.Hour)
	if d, err := f.g.Check(context.Background(), req(ClassWrite, "create_file", f.out+"/z")); err != nil || d.GrantID != "config-0" {
		t.Errorf("Check(static grant) = %+v, %v; want allowed by config-0", d, err)
	}
}

func TestApprovalLifecycle(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	w := req(ClassWrite, "create_file", f.out+"/appr/x.txt")

	ap, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{
		Conversation: "c1", Path: f.out + "/appr", Access: "file_operations:write", Recursive: true, Reason: "build output",
	})
	if err != nil {
		t.Fatal(err)
	}
	if ap.Status != StatusPending || len(ap.ID) < 12 {
		t.Errorf("RequestAuthorization() = %+v, want pending with an unguessable id", ap)
	}
	if got := f.kind(t, w); got != CodeOutsideWorkdir {
		t.Errorf("Check while pending = %s, want outside_workdir (a request grants nothing)", got)
	}
	ap, gr, err := f.g.Approve(ctx, ap.ID, 0, false, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if ap.Status != StatusApproved || ap.GrantID != gr.ID || gr.By != "alice" || gr.RequestID != ap.ID {
		t.Errorf("Approve() = %+v, %+v; want approved with the grant linked", ap, gr)
	}
	if got, _ := f.g.Approvals().Get(ctx, ap.ID); got.Status != StatusApproved {
		t.Errorf("Get(approved) status = %s", got.Status)
	}
	if d, err := f.g.Check(ctx, w); err != nil || d.GrantID != gr.ID {
		t.Errorf("Check after approve = %+v, %v; want allowed by %s", d, err, gr.ID)
	}
	if _, _, err := f.g.Approve(ctx, ap.ID, 0, false, "alice"); !errors.Is(err, ErrNotPending) {
		t.Errorf("Approve twice error = %v, want ErrNotPending", err)
	}
	f.clock.advance(DefaultGrantTTL)
	if got := f.kind(t, w); got != CodeOutsideWorkdir {
		t.Errorf("Check after the grant expired = %s, want outside_workdir", got)
	}

	// Deny.
	ap2, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "c1", Path: "rel/in/workdir", Access: "file_operations.create_file"})
	if err != nil {
		t.Fatal(err)
	}
	if ap2.Path != f.wd+"/rel/in/workdir" {
		t.Errorf("RequestAuthorization(relative).Path = %q, want canonical", ap2.Path)
	}
	if ap2, err = f.g.Deny(ctx, ap2.ID, "bob"); err != nil || ap2.Status != StatusDenied {
		t.Errorf("Deny() = %+v, %v; want denied", ap2, err)
	}
	if _, _, err := f.g.Approve(ctx, ap2.ID, 0, true, "bob"); !errors.Is(err, ErrNotPending) {
		t.Errorf("Approve(denied) error = %v, want ErrNotPending", err)
	}

	// A request nobody answers expires.
	ap3, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Path: f.out, Access: "*:read"})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.advance(DefaultApprovalTTL)
	if got, _ := f.g.Approvals().Get(ctx, ap3.ID); got.Status != StatusExpired {
		t.Errorf("Get(unanswered after 10m) status = %s, want expired", got.Status)
	}
	if _, _, err := f.g.Approve(ctx, ap3.ID, 0, true, "bob"); !errors.Is(err, ErrNotPending) {
		t.Errorf("Approve(expired) error = %v, want ErrNotPending", err)
	}
	list, err := f.g.Approvals().List(ctx, "c1", "")
	if err != nil || len(list) != 2 {
		t.Errorf("List(c1) = %d requests, %v; want 2", len(list), err)
	}
	if _, err := f.g.Approvals().Get(ctx, "r-nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(unknown) error = %v, want ErrNotFound", err)
	}
	if _, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Path: f.out, Access: "bogus"}); !errors.Is(err, ErrInvalidAccess) {
		t.Errorf("RequestAuthorization(bad access) error = %v, want ErrInvalidAccess", err)
	}
	f.clock.advance(48 * time.Hour)
	if n, err := f.g.Approvals().Prune(ctx); err != nil || n != 3 {
		t.Errorf("Approvals.Prune() = %d, %v; want 3", n, err)
	}
}

func TestApproveOnce(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	ap, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Path: f.out + "/o", Access: "file_operations.create_file"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.g.Approve(ctx, ap.ID, time.Minute, true, "alice"); err != nil {
		t.Fatal(err)
	}
	w := req(ClassWrite, "create_file", f.out+"/o")
	if a, b := f.kind(t, w), f.kind(t, w); a != string(AllowedByGrant) || b != CodeOutsideWorkdir {
		t.Errorf("two uses of a once-approved grant = %s, %s; want allowed then outside_workdir", a, b)
	}
}

func TestPendingApprovalsBounded(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	for i := range MaxPendingApprovals {
		if _, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "spam", Path: f.out, Access: "*:read", Reason: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "spam", Path: f.out, Access: "*:read"}); !errors.Is(err, ErrTooManyPending) {
		t.Errorf("request %d error = %v, want ErrTooManyPending", MaxPendingApprovals+1, err)
	}
	if _, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "other", Path: f.out, Access: "*:read"}); err != nil {
		t.Errorf("another conversation's request error = %v, want nil", err)
	}
	f.clock.advance(DefaultApprovalTTL)
	if _, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "spam", Path: f.out, Access: "*:read"}); err != nil {
		t.Errorf("request after the others expired error = %v, want nil", err)
	}
}

// TestGrantIndexFollowsOtherProcesses checks the cached grants index against changes made through
// another store handle (as another toolhost process would make them), including a sequence number
// reached again after a rolled-back write of this process.
func TestGrantIndexFollowsOtherProcesses(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	other, err := NewGrants(storetest.OpenDir(t, f.state), f.clock.clock(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	write := req(ClassWrite, "create_file", f.out+"/x")
	if got := f.kind(t, write); got != CodeOutsideWorkdir {
		t.Fatalf("Check before any grant = %s", got)
	}
	gr, err := other.Create(ctx, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true, By: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.kind(t, write); got != string(AllowedByGrant) {
		t.Errorf("Check after another process granted = %s, want allowed by grant", got)
	}
	if err := other.Revoke(ctx, gr.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.kind(t, write); got != CodeOutsideWorkdir {
		t.Errorf("Check after another process revoked = %s, want outside_workdir", got)
	}

	// A write of this process that advances the sequence and rolls back must not leave an index
	// that a later change by the other process (reaching the same sequence) would seem to match.
	g := f.g.Grants()
	errRollback := errors.New("rollback")
	err = f.st.Update(ctx, func(tx *store.Tx) error {
		if err := deleteGrant(tx, "nothing"); err != nil {
			return err
		}
		if _, err := g.index(tx); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	if _, err := other.Create(ctx, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if got := f.kind(t, write); got != string(AllowedByGrant) {
		t.Errorf("Check after a rolled-back write and another process's grant = %s, want allowed by grant", got)
	}
}
