package authz

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// TestCommandApprovals: a command approval allows its one line in its directory for its
// conversation, once when asked once, and nothing else opens a command a rule asks about.
func TestCommandApprovals(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	g := f.g
	const line = "git push --force origin main"
	cmd := func(conv, dir, line string) CommandRequest {
		return CommandRequest{Conversation: conv, Tool: testRunner.Tool, Dir: dir, Command: line}
	}
	asked := cmd("c1", f.wd, line)
	asked.Reason = `rule "force push"`
	ap, err := g.RequestCommand(ctx, asked)
	if err != nil {
		t.Fatal(err)
	}
	if ap.Access != "terminal_operations:command" || ap.Command != line || ap.Path != f.wd {
		t.Fatalf("approval = %+v", ap)
	}
	again, err := g.RequestCommand(ctx, cmd("c1", f.wd, line))
	if err != nil || again.ID != ap.ID {
		t.Errorf("asking again filed %v (%v), want the pending %s", again.ID, err, ap.ID)
	}
	if _, ok, _ := g.CommandGranted(ctx, cmd("c1", f.wd, line)); ok {
		t.Fatal("granted before approval")
	}
	// A grant to run commands in the directory is not an approval of a command.
	if _, err := g.CreateGrant(ctx, GrantSpec{Conversation: "c1", Access: "terminal_operations.run_command", Path: f.wd, Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateGrant(ctx, GrantSpec{Conversation: "c1", Access: "*:command", Path: f.wd, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := g.CommandGranted(ctx, cmd("c1", f.wd, line)); ok {
		t.Fatal("a directory grant or a command grant without a command allowed the line")
	}
	if _, _, err := g.Approve(ctx, ap.ID, 0, true, "cli:test"); err != nil {
		t.Fatal(err)
	}
	otherTool := cmd("c1", f.wd, line)
	otherTool.Tool = "file_operations"
	for _, c := range []struct {
		name string
		r    CommandRequest
	}{
		{"another line", cmd("c1", f.wd, line+" ")},
		{"another directory", cmd("c1", f.out, line)},
		{"another conversation", cmd("c2", f.wd, line)},
		{"another tool", otherTool},
	} {
		if _, ok, _ := g.CommandGranted(ctx, c.r); ok {
			t.Errorf("%s: allowed by the approval of %q", c.name, line)
		}
	}
	if _, ok, err := g.CommandGranted(ctx, cmd("c1", f.wd, line)); !ok || err != nil {
		t.Fatalf("the approved line was not allowed: %v", err)
	}
	if _, ok, _ := g.CommandGranted(ctx, cmd("c1", f.wd, line)); ok {
		t.Error("a once approval allowed the line twice")
	}
}

func TestCommandApprovalInput(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	if _, err := f.g.RequestAuthorization(ctx, AuthorizationRequest{Conversation: "c", Path: f.wd, Access: CommandAccess(testRunner.Tool)}); !errors.Is(err, ErrInvalidAccess) {
		t.Errorf("a model's own command approval request = %v, want ErrInvalidAccess", err)
	}
	for _, bad := range []string{"", "echo \x1b[2Jcleared", "echo \u202egnp.exe"} {
		if _, err := f.g.RequestCommand(ctx, CommandRequest{Conversation: "c", Tool: testRunner.Tool, Dir: f.wd, Command: bad}); !errors.Is(err, ErrInvalidGrant) {
			t.Errorf("RequestCommand(%q) = %v, want ErrInvalidGrant", bad, err)
		}
	}
	if _, err := f.g.RequestCommand(ctx, CommandRequest{Conversation: "c", Tool: testRunner.Tool, Dir: f.wd, Command: "cat <<EOF\n\tx\nEOF"}); err != nil {
		t.Errorf("a multi-line command was refused: %v", err)
	}
	if _, err := f.g.Check(ctx, Request{Conversation: "c", Tool: testRunner.Tool, Operation: "run_command", Class: ClassCommand, Path: f.wd, Command: "ls"}); err == nil {
		t.Error("Check allowed a command request")
	}
}

func TestWritePaths(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	for _, s := range []GrantSpec{
		{Conversation: "c", Access: "terminal_operations:write", Path: f.out + "/a", Recursive: true},
		{Conversation: "c", Access: "*:write", Path: f.out + "/b", Recursive: true},
		{Conversation: "c", Access: "terminal_operations.run_command", Path: f.out + "/c"},
		{Conversation: "c", Access: "file_operations:write", Path: f.out + "/d", Recursive: true},
		{Conversation: "other", Access: "terminal_operations:write", Path: f.out + "/e", Recursive: true},
		{Conversation: "c", Access: "terminal_operations:read", Path: f.out + "/f", Recursive: true},
		// Not an operation that runs commands.
		{Conversation: "c", Access: "terminal_operations.get_output", Path: f.out + "/g"},
	} {
		s.By = "t"
		if _, err := f.g.CreateGrant(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.g.WritePaths(ctx, "c", testRunner)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range got {
		paths = append(paths, p.Path)
	}
	want := []string{f.out + "/a", f.out + "/b", f.out + "/c"}
	if len(paths) != len(want) {
		t.Fatalf("WritePaths = %v, want %v", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Errorf("WritePaths = %v, want %v", paths, want)
		}
	}
	// TerminalPaths answers both lists from one read of the grants, the same as each alone.
	read, err := f.g.ReadPaths(ctx, "c", testRunner)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) == 0 {
		t.Fatal("ReadPaths found no grant; the fixture grants terminal_operations:read")
	}
	w2, r2, err := f.g.TerminalPaths(ctx, "c", testRunner)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w2, got) || !reflect.DeepEqual(r2, read) {
		t.Errorf("TerminalPaths = %v, %v; want %v, %v", w2, r2, got, read)
	}
}
