package authz

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"toolhost/internal/fifotest"
)

// outcome is a decision or denial reduced to what the table compares.
type outcome struct {
	kind      string // DecisionKind or the denial code
	canonical string
}

func decideOutcome(t *testing.T, g *Guard, r Request) outcome {
	t.Helper()
	d, err := g.Check(context.Background(), r)
	if err != nil {
		den, ok := AsDenial(err)
		if !ok {
			t.Fatalf("Check(%+v) internal error: %v", r, err)
		}
		return outcome{den.Code, den.Canonical}
	}
	return outcome{string(d.Kind), d.Canonical}
}

func TestCheckTable(t *testing.T) {
	f := newFixture(t, nil)
	f.populate(t)
	wd, out := f.wd, f.out
	inside, byRead := string(AllowedInside), string(AllowedOutsideRead)
	tests := []struct {
		name string
		r    Request
		want outcome
	}{
		{"relative file", req(ClassRead, "read_file", "file.txt"), outcome{inside, wd + "/file.txt"}},
		{"empty path is the workdir", namesOnly(req(ClassRead, "list_dir", "")), outcome{inside, wd}},
		{"dot", namesOnly(req(ClassRead, "list_dir", ".")), outcome{inside, wd}},
		{"glob of workdir holding the config file", namesOnly(req(ClassRead, "file_search", ".")), outcome{inside, wd}},
		{"names-only read of another tool", namesOnly(Request{Tool: "memory_operations", Operation: "import_document", Class: ClassRead, Path: "."}), outcome{inside, wd}},
		{"contents read of another tool", Request{Tool: "memory_operations", Operation: "import_document", Class: ClassRead, Path: "."}, outcome{CodeProtectedPath, wd}},
		// The guard knows no operation by name: without the flag a listing reads contents.
		{"list_dir without the names-only flag", req(ClassRead, "list_dir", "."), outcome{CodeProtectedPath, wd}},
		// The fixture's config file is inside the working directory: a walk of it would read it.
		{"walk of workdir holding the config file", req(ClassRead, "grep_search", "."), outcome{CodeProtectedPath, wd}},
		{"walk of a subdirectory", req(ClassRead, "grep_search", "sub"), outcome{inside, wd + "/sub"}},
		{"walk of .git", req(ClassRead, "grep_search", ".git"), outcome{CodeProtectedPath, wd + "/.git"}},
		{"walk inside .git", req(ClassRead, "grep_search", ".git/objects"), outcome{CodeProtectedPath, wd + "/.git/objects"}},
		{"listing of .git", namesOnly(req(ClassRead, "list_dir", ".git")), outcome{inside, wd + "/.git"}},
		{"walk of home holding .ssh and the token", req(ClassRead, "grep_search", f.home), outcome{CodeProtectedPath, f.home}},
		{"walk of an ancestor of the state dir", req(ClassRead, "grep_search", f.base), outcome{CodeProtectedPath, f.base}},
		{"walk of an ancestor through a symlink", req(ClassRead, "grep_search", "link_out_dir/.."), outcome{byRead, out}},
		{"walk of /proc/1 holding environ", req(ClassRead, "grep_search", "/proc/1"), outcome{CodeSecretPath, "/proc/1"}},
		{"walk of a plain outside dir", req(ClassRead, "grep_search", out+"/dir"), outcome{byRead, out + "/dir"}},
		{"absolute inside", req(ClassWrite, "create_file", wd+"/sub/new.txt"), outcome{inside, wd + "/sub/new.txt"}},
		{"absolute inside doubled slashes", req(ClassWrite, "create_file", wd+"//sub///new.txt/"), outcome{inside, wd + "/sub/new.txt"}},
		{"absolute outside read", req(ClassRead, "read_file", out+"/secret.txt"), outcome{byRead, out + "/secret.txt"}},
		{"absolute outside write", req(ClassWrite, "create_file", out+"/secret.txt"), outcome{CodeOutsideWorkdir, out + "/secret.txt"}},
		{"sibling prefix dir read", req(ClassRead, "read_file", f.base+"/w/proj_evil/x.txt"), outcome{byRead, f.base + "/w/proj_evil/x.txt"}},
		{"sibling prefix dir write", req(ClassWrite, "create_file", f.base+"/w/proj_evil/x.txt"), outcome{CodeOutsideWorkdir, f.base + "/w/proj_evil/x.txt"}},
		{"sibling prefix via dotdot", req(ClassWrite, "create_file", "../proj_evil/y.txt"), outcome{CodeOutsideWorkdir, f.base + "/w/proj_evil/y.txt"}},
		{"dotdot chain staying inside", req(ClassWrite, "create_file", "sub/../sub/./../file.txt"), outcome{inside, wd + "/file.txt"}},
		{"dotdot out and back in", req(ClassWrite, "create_file", "../proj/sub/../file.txt"), outcome{inside, wd + "/file.txt"}},
		{"dotdot above root", req(ClassRead, "read_file", "/../../.."+wd+"/file.txt"), outcome{inside, wd + "/file.txt"}},
		{"dotdot through missing dir", req(ClassWrite, "create_file", "nope/../file2.txt"), outcome{inside, wd + "/file2.txt"}},
		{"many dotdots", req(ClassWrite, "create_file", strings.Repeat("../", 40)+"etc/x"), outcome{CodeOutsideWorkdir, "/etc/x"}},
		{"symlink to file outside read", req(ClassRead, "read_file", "link_out_file"), outcome{byRead, out + "/secret.txt"}},
		{"symlink to file outside write", req(ClassWrite, "create_file", "link_out_file"), outcome{CodeOutsideWorkdir, out + "/secret.txt"}},
		{"symlink to dir outside write", req(ClassWrite, "create_file", "link_out_dir/f.txt"), outcome{CodeOutsideWorkdir, out + "/dir/f.txt"}},
		{"mkdir under symlinked parent outside", req(ClassWrite, "create_directory", "link_out_dir/newdir/deeper"), outcome{CodeOutsideWorkdir, out + "/dir/newdir/deeper"}},
		{"dotdot after symlink uses the real parent", req(ClassWrite, "create_file", "link_out_dir/../secret.txt"), outcome{CodeOutsideWorkdir, out + "/secret.txt"}},
		{"symlink inside", req(ClassWrite, "create_file", "link_in_file"), outcome{inside, wd + "/file.txt"}},
		{"three-link chain", req(ClassWrite, "create_file", "chain1"), outcome{CodeOutsideWorkdir, out + "/secret.txt"}},
		{"symlink under symlinked parent", req(ClassWrite, "create_file", "deep/ld/esc"), outcome{CodeOutsideWorkdir, out + "/secret.txt"}},
		{"write under symlinked parent inside", req(ClassWrite, "create_file", "deep/ld/new.txt"), outcome{inside, wd + "/sub/new.txt"}},
		{"dangling symlink write", req(ClassWrite, "create_file", "dangle"), outcome{CodeOutsideWorkdir, out + "/created_by_dangle"}},
		{"delete symlink pointing outside removes the link", Request{Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: "link_out_file", Delete: true}, outcome{inside, wd + "/link_out_file"}},
		{"rename dangling link", Request{Tool: "file_operations", Operation: "rename_file", Class: ClassWrite, Path: "dangle", Rename: true}, outcome{inside, wd + "/dangle"}},
		{"symlink loop", req(ClassRead, "read_file", "loop1/x"), outcome{CodeSymlinkLoop, ""}},
		{"self loop", req(ClassRead, "read_file", "self"), outcome{CodeSymlinkLoop, ""}},
		{"proc self root inside", req(ClassWrite, "create_file", "/proc/self/root"+wd+"/file.txt"), outcome{inside, wd + "/file.txt"}},
		{"proc self root outside", req(ClassWrite, "create_file", "/proc/self/root"+out+"/x"), outcome{CodeOutsideWorkdir, out + "/x"}},
		{"proc thread-self root", req(ClassRead, "read_file", "/proc/thread-self/root"+wd+"/file.txt"), outcome{inside, wd + "/file.txt"}},
		{"delete workdir", Request{Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: ".", Delete: true}, outcome{CodeIsWorkdir, wd}},
		{"rename workdir by absolute path", Request{Tool: "file_operations", Operation: "rename_file", Class: ClassWrite, Path: wd, Rename: true}, outcome{CodeIsWorkdir, wd}},
		{"execute inside", Request{Tool: "terminal_operations", Operation: "run_command", Class: ClassExecute, Path: "sub"}, outcome{inside, wd + "/sub"}},
		{"execute outside", Request{Tool: "terminal_operations", Operation: "run_command", Class: ClassExecute, Path: out}, outcome{CodeOutsideWorkdir, out}},
		{"dotenv inside", req(ClassRead, "read_file", ".env"), outcome{inside, wd + "/.env"}},
		{"dotenv outside", req(ClassRead, "read_file", out+"/.env"), outcome{CodeSecretPath, out + "/.env"}},
		{"dotenv variant outside", req(ClassRead, "read_file", out+"/.env.production"), outcome{CodeSecretPath, out + "/.env.production"}},
		{"ssh key", req(ClassRead, "read_file", f.home+"/.ssh/id_ed25519"), outcome{CodeSecretPath, f.home + "/.ssh/id_ed25519"}},
		{"ssh dir listing", namesOnly(req(ClassRead, "list_dir", f.home+"/.ssh")), outcome{CodeSecretPath, f.home + "/.ssh"}},
		{"aws credentials", req(ClassRead, "read_file", f.home+"/.aws/credentials"), outcome{CodeSecretPath, f.home + "/.aws/credentials"}},
		{"gcloud missing dir", req(ClassRead, "read_file", f.home+"/.config/gcloud/x.json"), outcome{CodeSecretPath, f.home + "/.config/gcloud/x.json"}},
		{"secret sibling prefix", req(ClassRead, "read_file", f.home+"/.sshx/notes"), outcome{byRead, f.home + "/.sshx/notes"}},
		{"tilde is home", req(ClassRead, "read_file", "~/.ssh/id_ed25519"), outcome{CodeSecretPath, f.home + "/.ssh/id_ed25519"}},
		{"tilde write", req(ClassWrite, "create_file", "~/notes.txt"), outcome{CodeOutsideWorkdir, f.home + "/notes.txt"}},
		{"tilde inside a name", req(ClassWrite, "create_file", "a~/b"), outcome{inside, wd + "/a~/b"}},
		{"outside with dotdot, no symlinks", req(ClassRead, "read_file", out+"/dir/../secret.txt"), outcome{byRead, out + "/secret.txt"}},
		{"home listing", namesOnly(req(ClassRead, "list_dir", f.home)), outcome{byRead, f.home}},
		{"proc environ", req(ClassRead, "read_file", "/proc/self/environ"), outcome{CodeSecretPath, ""}}, // canonical checked below
		{"git HEAD write", req(ClassWrite, "create_file", ".git/HEAD"), outcome{inside, wd + "/.git/HEAD"}},
		{"gitignore write", req(ClassWrite, "create_file", ".gitignore"), outcome{inside, wd + "/.gitignore"}},
		{"git config missing", req(ClassWrite, "create_file", ".git/config"), outcome{CodeProtectedPath, wd + "/.git/config"}},
		{"git config read", req(ClassRead, "read_file", ".git/config"), outcome{CodeProtectedPath, wd + "/.git/config"}},
		{"git hook missing", req(ClassWrite, "create_file", ".git/hooks/pre-commit"), outcome{CodeProtectedPath, wd + "/.git/hooks/pre-commit"}},
		{"git hooks dir", req(ClassWrite, "create_directory", ".git/hooks"), outcome{CodeProtectedPath, wd + "/.git/hooks"}},
		{"nested repo hook", req(ClassWrite, "create_file", "vendor/lib/.git/hooks/post-checkout"), outcome{CodeProtectedPath, wd + "/vendor/lib/.git/hooks/post-checkout"}},
		{"git commondir", req(ClassWrite, "create_file", ".git/commondir"), outcome{CodeProtectedPath, wd + "/.git/commondir"}},
		{"worktree commondir", req(ClassWrite, "create_file", ".git/worktrees/wt/commondir"), outcome{CodeProtectedPath, wd + "/.git/worktrees/wt/commondir"}},
		{"submodule config", req(ClassWrite, "create_file", ".git/modules/lib/config"), outcome{CodeProtectedPath, wd + "/.git/modules/lib/config"}},
		{"not a git dir", req(ClassWrite, "create_file", "x.git/config"), outcome{inside, wd + "/x.git/config"}},
		{"write .git file", req(ClassWrite, "create_file", "sub/.git"), outcome{CodeProtectedPath, wd + "/sub/.git"}},
		{"delete .git", Request{Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: ".git", Delete: true}, outcome{CodeProtectedPath, wd + "/.git"}},
		{"rename into .git", Request{Tool: "file_operations", Operation: "rename_file", Class: ClassWrite, Path: ".git/modules/x", Rename: true}, outcome{CodeProtectedPath, wd + "/.git/modules/x"}},
		{"git dir via symlink", req(ClassWrite, "create_file", "deep/../.git/hooks/x"), outcome{CodeProtectedPath, wd + "/.git/hooks/x"}},
		{"config file missing", req(ClassWrite, "create_file", ".toolhost.toml"), outcome{CodeProtectedPath, wd + "/.toolhost.toml"}},
		{"config file read", req(ClassRead, "read_file", wd+"/.toolhost.toml"), outcome{CodeProtectedPath, wd + "/.toolhost.toml"}},
		{"state dir read", req(ClassRead, "read_file", f.state+"/toolhost.db"), outcome{CodeProtectedPath, f.state + "/toolhost.db"}},
		{"token file missing", req(ClassRead, "read_file", f.home+"/.config/toolhost/token"), outcome{CodeProtectedPath, f.home + "/.config/toolhost/token"}},
		{"delete ancestor of state dir", Request{Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: f.base, Delete: true}, outcome{CodeProtectedPath, f.base}},
		{"no class", Request{Tool: "file_operations", Operation: "read_file", Path: "file.txt"}, outcome{CodeInvalidRequest, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decideOutcome(t, f.g, tt.r)
			if tt.name == "proc environ" {
				got.canonical = ""
			}
			if got != tt.want {
				t.Errorf("Check(%q) = %+v, want %+v", tt.r.Path, got, tt.want)
			}
		})
	}
}

func TestCheckInvalidInput(t *testing.T) {
	f := newFixture(t, nil)
	long4k := strings.Repeat("abcdefgh/", 460) // 4140 bytes
	tests := []struct {
		name, path, code string
	}{
		{"NUL byte", "file\x00.txt", CodeInvalidPath},
		{"NUL after huge prefix", strings.Repeat("x", 3000) + "\x00", CodeInvalidPath},
		{"4 KB path", long4k, CodeInvalidPath},
		{"64 KB path", strings.Repeat("a", 64<<10), CodeInvalidPath},
		{"component too long", strings.Repeat("n", 256), CodeInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.g.Check(context.Background(), req(ClassWrite, "create_file", tt.path))
			den, ok := AsDenial(err)
			if !ok {
				t.Fatalf("Check(%.40q) error = %v, want a Denial", tt.path, err)
			}
			if den.Code != tt.code {
				t.Errorf("Check(%.40q).Code = %q, want %q", tt.path, den.Code, tt.code)
			}
			for _, s := range []string{den.Message, den.NextStep, den.Error()} {
				if len(s) > 200 {
					t.Errorf("Check(%.40q) text is %d bytes, want a short text: %.80q", tt.path, len(s), s)
				}
			}
		})
	}
	// A path just under the limit with ordinary components is fine.
	ok := strings.Repeat("abcdefgh/", 400)
	if got := decideOutcome(t, f.g, req(ClassWrite, "create_file", ok)); got.kind != string(AllowedInside) {
		t.Errorf("Check(3600-byte path) = %+v, want allowed inside", got)
	}
}

func TestSymlinkLoopIsFast(t *testing.T) {
	f := newFixture(t, nil)
	// A wide loop: each hop doubles the components, which must not explode.
	symlink(t, "a/a/a/a/a/a/a/a", filepath.Join(f.wd, "a"))
	done := make(chan outcome, 1)
	go func() { done <- decideOutcome(t, f.g, req(ClassRead, "read_file", "a/a/a/a/x")) }()
	select {
	case got := <-done:
		if got.kind != CodeSymlinkLoop && got.kind != CodeInvalidPath {
			t.Errorf("Check(wide loop) = %+v, want symlink_loop or invalid_path", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Check(wide loop) did not return")
	}
}

func TestProcSelfCwd(t *testing.T) {
	f := newFixture(t, nil)
	f.populate(t)
	t.Chdir(f.wd)
	tests := []struct {
		name string
		r    Request
		want outcome
	}{
		{"cwd file", req(ClassWrite, "create_file", "/proc/self/cwd/file.txt"), outcome{string(AllowedInside), f.wd + "/file.txt"}},
		{"cwd escape", req(ClassWrite, "create_file", "/proc/self/cwd/../../out/x"), outcome{CodeOutsideWorkdir, f.out + "/x"}},
		{"cwd link", req(ClassWrite, "create_file", "/proc/self/cwd/link_out_dir/y"), outcome{CodeOutsideWorkdir, f.out + "/dir/y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideOutcome(t, f.g, tt.r); got != tt.want {
				t.Errorf("Check(%q) = %+v, want %+v", tt.r.Path, got, tt.want)
			}
		})
	}
}

func TestWorkdirThroughSymlink(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real", "proj")
	writeFile(t, filepath.Join(real, "f.txt"), "x")
	symlink(t, filepath.Join(base, "real"), filepath.Join(base, "alias"))
	g, err := New(context.Background(), Config{WorkDir: filepath.Join(base, "alias", "proj"), HomeDir: base})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.WorkDir() != real {
		t.Errorf("WorkDir() = %q, want %q", g.WorkDir(), real)
	}
	tests := []struct {
		name string
		path string
		want outcome
	}{
		{"relative", "f.txt", outcome{string(AllowedInside), real + "/f.txt"}},
		{"through the alias", filepath.Join(base, "alias", "proj", "f.txt"), outcome{string(AllowedInside), real + "/f.txt"}},
		{"real path", real + "/f.txt", outcome{string(AllowedInside), real + "/f.txt"}},
		{"alias sibling", filepath.Join(base, "alias", "other"), outcome{CodeOutsideWorkdir, base + "/real/other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideOutcome(t, g, req(ClassWrite, "create_file", tt.path)); got != tt.want {
				t.Errorf("Check(%q) = %+v, want %+v", tt.path, got, tt.want)
			}
		})
	}
}

func TestOutsideReadsNeedGrant(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.OutsideReadsNeedGrant = true })
	f.populate(t)
	got := decideOutcome(t, f.g, req(ClassRead, "read_file", f.out+"/secret.txt"))
	if want := (outcome{CodeNeedsGrant, f.out + "/secret.txt"}); got != want {
		t.Errorf("Check(outside read) = %+v, want %+v", got, want)
	}
	if got := decideOutcome(t, f.g, req(ClassRead, "read_file", "file.txt")); got.kind != string(AllowedInside) {
		t.Errorf("Check(inside read) = %+v, want allowed inside", got)
	}
	// A read grant opens it.
	if _, err := f.g.CreateGrant(context.Background(), GrantSpec{Access: "file_operations:read", Path: f.out, Recursive: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if got := decideOutcome(t, f.g, req(ClassRead, "read_file", f.out+"/secret.txt")); got.kind != string(AllowedByGrant) {
		t.Errorf("Check(outside read with grant) = %+v, want allowed by grant", got)
	}
}

func TestCustomSecretList(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.SecretPaths = append(append([]string(nil), DefaultSecretPaths...), "~/vault", "/srv/*/keys")
	})
	tests := []struct {
		path string
		want string
	}{
		{f.home + "/vault/a", CodeSecretPath},
		{"/srv/app/keys/k", CodeSecretPath},
		{"/srv/app/other", string(AllowedOutsideRead)},
		{f.home + "/.ssh/config", CodeSecretPath},
	}
	for _, tt := range tests {
		if got := decideOutcome(t, f.g, req(ClassRead, "read_file", tt.path)); got.kind != tt.want {
			t.Errorf("Check(%q) = %+v, want %s", tt.path, got, tt.want)
		}
	}
}

func TestSecretsInsideWorkdirAtHome(t *testing.T) {
	// The working directory is the home directory: ~/.ssh is inside it and still secret.
	base, _ := filepath.EvalSymlinks(t.TempDir())
	writeFile(t, filepath.Join(base, ".ssh", "id_rsa"), "k")
	g, err := New(context.Background(), Config{WorkDir: base, HomeDir: base})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := decideOutcome(t, g, req(ClassRead, "read_file", ".ssh/id_rsa")); got.kind != CodeSecretPath {
		t.Errorf("Check(~/.ssh/id_rsa with workdir ~) = %+v, want secret_path", got)
	}
}

func TestFIFORead(t *testing.T) {
	f := newFixture(t, nil)
	fifo := filepath.Join(f.wd, "fifo")
	fifotest.Make(t, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := f.g.Check(context.Background(), req(ClassRead, "read_file", "fifo"))
		done <- err
	}()
	// A blocking open of a FIFO without a writer never returns; any finite deadline detects it.
	select {
	case err := <-done:
		if den, ok := AsDenial(err); !ok || den.Code != CodeNotRegular {
			t.Errorf("Check(fifo) error = %v, want not_regular", err)
		}
	case <-time.After(100 * time.Millisecond):
		t.Fatal("Check(fifo) blocked")
	}

	// A regular file swapped for a FIFO after the check: OpenRead refuses it without blocking.
	writeFile(t, filepath.Join(f.wd, "swap"), "x")
	tg, err := f.g.Open(context.Background(), req(ClassRead, "read_file", "swap"))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	os.Remove(filepath.Join(f.wd, "swap"))
	fifotest.Make(t, filepath.Join(f.wd, "swap"))
	go func() {
		file, err := tg.OpenRead()
		if err == nil {
			file.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if den, ok := AsDenial(err); !ok || den.Code != CodeNotRegular {
			t.Errorf("OpenRead(fifo) error = %v, want not_regular", err)
		}
	case <-time.After(100 * time.Millisecond):
		t.Fatal("OpenRead(fifo) blocked")
	}
}

func TestHardLink(t *testing.T) {
	f := newFixture(t, nil)
	a := filepath.Join(f.wd, "hl1")
	writeFile(t, a, "shared")
	if err := os.Link(a, filepath.Join(f.wd, "hl2")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		r    Request
		want string
	}{
		{"read", req(ClassRead, "read_file", "hl1"), string(AllowedInside)},
		{"write", req(ClassWrite, "create_file", "hl1"), CodeHardLink},
		{"delete", Request{Tool: "file_operations", Operation: "delete_file", Class: ClassWrite, Path: "hl2", Delete: true}, CodeHardLink},
		{"rename", Request{Tool: "file_operations", Operation: "rename_file", Class: ClassWrite, Path: "hl2", Rename: true}, CodeHardLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideOutcome(t, f.g, tt.r); got.kind != tt.want {
				t.Errorf("Check(%+v) = %+v, want %s", tt.r, got, tt.want)
			}
		})
	}
	// A grant on the working directory does not name the file; a grant naming it does.
	if _, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations:write", Path: f.wd, Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := decideOutcome(t, f.g, req(ClassWrite, "create_file", "hl1")); got.kind != CodeHardLink {
		t.Errorf("Check(hardlink, workdir grant) = %+v, want hard_link", got)
	}
	if _, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations.create_file", Path: "hl1", By: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := decideOutcome(t, f.g, req(ClassWrite, "create_file", "hl1")); got.kind != string(AllowedByGrant) {
		t.Errorf("Check(hardlink, named grant) = %+v, want allowed by grant", got)
	}
}

func TestProtectedNeedsNamingGrant(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	hook := req(ClassWrite, "create_file", ".git/hooks/pre-commit")
	if _, err := f.g.CreateGrant(ctx, GrantSpec{Access: "*:write", Path: f.wd, Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := decideOutcome(t, f.g, hook); got.kind != CodeProtectedPath {
		t.Errorf("Check(hook, workdir grant) = %+v, want protected_path", got)
	}
	if _, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations:write", Path: ".git/hooks", Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := decideOutcome(t, f.g, hook); got.kind != string(AllowedByGrant) {
		t.Errorf("Check(hook, hooks grant) = %+v, want allowed by grant", got)
	}
	if got := decideOutcome(t, f.g, req(ClassWrite, "create_file", ".git/config")); got.kind != CodeProtectedPath {
		t.Errorf("Check(.git/config, hooks grant) = %+v, want protected_path", got)
	}
}

func TestDenialNextStep(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.g.Check(context.Background(), req(ClassWrite, "create_file", f.out+"/new <x>.txt"))
	den, ok := AsDenial(err)
	if !ok {
		t.Fatalf("Check(outside) error = %v, want Denial", err)
	}
	want := `the user_collaboration tool with {"operation":"request_authorization","path":"` + f.out + `/new <x>.txt","access":"file_operations.create_file","reason":"<why you need it>"}`
	if !strings.HasPrefix(den.NextStep, want) {
		t.Errorf("NextStep = %q, want prefix %q", den.NextStep, want)
	}
	for _, p := range []string{`"recursive"`, `"once"`, `"minutes"`, `"check_request"`, `"request_id"`} {
		if !strings.Contains(den.NextStep, p) {
			t.Errorf("NextStep = %q, want it to name %s", den.NextStep, p)
		}
	}
	if den.Access != "file_operations.create_file" || !den.Grantable() {
		t.Errorf("Denial = %+v, want access file_operations.create_file, grantable", den)
	}
}

// TestDenialNextStepUnnamed: a guard that was not told the call asking for a grant
// (Config.Ask) says in words what to ask for, and names no tool.
func TestDenialNextStepUnnamed(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Ask = AskCall{} })
	_, err := f.g.Check(context.Background(), req(ClassWrite, "create_file", f.out+"/new.txt"))
	den, ok := AsDenial(err)
	if !ok {
		t.Fatalf("Check(outside) error = %v, want Denial", err)
	}
	if want := "ask the user for a grant of file_operations.create_file on " + f.out + "/new.txt"; den.NextStep != want {
		t.Errorf("NextStep = %q, want %q", den.NextStep, want)
	}
}

func TestOpenInsideAndOutside(t *testing.T) {
	f := newFixture(t, nil)
	f.populate(t)
	ctx := context.Background()

	// Inside, through a symlinked parent: the write lands in the real directory.
	tg, err := f.g.Open(ctx, req(ClassWrite, "create_file", "deep/ld/new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Rel != "sub/new.txt" || tg.Root != f.g.Root() {
		t.Errorf("Open(deep/ld/new.txt) = rel %q, shared root %v; want sub/new.txt on the shared root", tg.Rel, tg.Root == f.g.Root())
	}
	if err := tg.Root.WriteFile(tg.Rel, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	tg.Close()
	if b, err := os.ReadFile(filepath.Join(f.wd, "sub", "new.txt")); err != nil || string(b) != "ok" {
		t.Errorf("ReadFile(sub/new.txt) = %q, %v; want ok", b, err)
	}

	// Dangling symlink: denied, and nothing is created outside.
	if _, err := f.g.Open(ctx, req(ClassWrite, "create_file", "dangle")); err == nil {
		t.Error("Open(dangle) allowed a write through a dangling symlink")
	}
	if _, err := os.Lstat(filepath.Join(f.out, "created_by_dangle")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dangling target exists after denied write: %v", err)
	}
	// mkdir under a symlinked parent pointing outside: denied.
	if _, err := f.g.Open(ctx, req(ClassWrite, "create_directory", "link_out_dir/newdir")); err == nil {
		t.Error("Open(link_out_dir/newdir) allowed")
	}

	// Outside read: root at the parent directory.
	tg, err = f.g.Open(ctx, req(ClassRead, "read_file", "link_out_file"))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Rel != "secret.txt" || tg.Decision.Kind != AllowedOutsideRead {
		t.Errorf("Open(link_out_file) = rel %q kind %s, want secret.txt allowed_outside_read", tg.Rel, tg.Decision.Kind)
	}
	file, err := tg.OpenRead()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	n, _ := file.Read(b)
	file.Close()
	if string(b[:n]) != "outside\n" {
		t.Errorf("OpenRead(link_out_file) read %q, want outside", b[:n])
	}

	// Recursive grant on a directory that does not exist yet: rooted at an existing ancestor.
	if _, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations:write", Path: f.out + "/newtree", Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	tg2, err := f.g.Open(ctx, req(ClassWrite, "create_file", f.out+"/newtree/a/b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer tg2.Close()
	if tg2.Rel != "newtree/a/b.txt" || tg2.Decision.Kind != AllowedByGrant {
		t.Errorf("Open(granted new tree) = rel %q kind %s, want newtree/a/b.txt allowed_by_grant", tg2.Rel, tg2.Decision.Kind)
	}
	if err := tg2.Root.MkdirAll("newtree/a", 0o755); err != nil {
		t.Fatal(err)
	}
	tg3, err := f.g.Open(ctx, req(ClassWrite, "create_file", f.out+"/newtree/a/b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer tg3.Close()
	if tg3.Rel != "a/b.txt" {
		t.Errorf("Open(granted tree) rel = %q, want a/b.txt (rooted at the grant)", tg3.Rel)
	}
}

func TestAuditRecords(t *testing.T) {
	f := newFixture(t, nil)
	f.populate(t)
	ctx := context.Background()
	f.g.Check(ctx, req(ClassRead, "read_file", "file.txt"))
	f.g.Check(ctx, req(ClassRead, "read_file", f.out+"/secret.txt"))
	f.g.Check(ctx, req(ClassWrite, "create_file", f.out+"/x"))
	f.g.Check(ctx, req(ClassRead, "read_file", "a\x00b"))
	gr, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations.create_file", Path: f.out + "/x", By: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f.g.Check(ctx, req(ClassWrite, "create_file", f.out+"/x"))
	f.g.audit.close() // flush
	var got []string
	for _, r := range f.audit.records() {
		got = append(got, r.Event+" "+r.Outcome+" "+r.Code+" "+strings.TrimPrefix(r.Path, f.base)+" "+r.GrantID)
	}
	want := []string{
		"decision allowed_inside  /w/proj/file.txt ",
		"decision allowed_outside_read  /out/secret.txt ",
		"decision needs_grant outside_workdir /out/x ",
		"decision denied invalid_path  ",
		"grant_created   /out/x " + gr.ID,
		"decision allowed_by_grant  /out/x " + gr.ID,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCloseTwice: a guard closed twice (a test's flush and its cleanup) must not close
// descriptors that files opened in between have taken over.
func TestCloseTwice(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.g.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	var files []*os.File
	for i := range 8 {
		fl, err := os.Create(filepath.Join(f.base, "after-close-"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		defer fl.Close()
		files = append(files, fl)
	}
	f.g.Close()
	for _, fl := range files {
		if _, err := fl.Stat(); err != nil {
			t.Errorf("%s after the second Close: %v", filepath.Base(fl.Name()), err)
		}
	}
}

func TestAuditToStore(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Audit = nil })
	f.g.Check(context.Background(), req(ClassRead, "read_file", "x"))
	f.g.Close()
	b, err := os.ReadFile(filepath.Join(f.state, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"outcome":"allowed_inside"`) || !strings.Contains(string(b), f.wd+"/x") {
		t.Errorf("audit.jsonl = %s, want the decision", b)
	}
}

// batchAudit is an AuditBatchSink that records the batch sizes.
type batchAudit struct {
	memAudit
	batches []int
}

func (b *batchAudit) AppendAuditBatch(ctx context.Context, vs []any) error {
	b.mu.Lock()
	b.batches = append(b.batches, len(vs))
	b.mu.Unlock()
	for _, v := range vs {
		b.AppendAudit(ctx, v)
	}
	return nil
}

func TestAuditBatchSink(t *testing.T) {
	sink := &batchAudit{}
	f := newFixture(t, func(c *Config) { c.Audit = sink })
	const n = 1000
	for i := range n {
		f.g.Check(context.Background(), req(ClassRead, "read_file", "f"+strconv.Itoa(i)))
	}
	f.g.audit.close()
	recs := sink.records()
	if len(recs) != n {
		t.Fatalf("%d audit records, want %d", len(recs), n)
	}
	for i, r := range recs {
		if want := f.wd + "/f" + strconv.Itoa(i); r.Path != want || r.PID != os.Getpid() {
			t.Fatalf("record %d = %s pid %d, want %s pid %d (in order)", i, r.Path, r.PID, want, os.Getpid())
		}
	}
	t.Logf("%d records in %d batches", n, len(sink.batches))
}

// TestWalkOfDirectoryHoldingSecrets: a grep or glob of a directory reads everything below it, so
// the check on its root must not let it read a protected or secret path a direct read is refused;
// only a grant naming the directory (which the user sees) opens it.
func TestWalkOfDirectoryHoldingSecrets(t *testing.T) {
	f := newFixture(t, nil)
	f.populate(t)
	walk := req(ClassRead, "grep_search", f.home)
	tests := []struct {
		name  string
		grant *GrantSpec
		want  string
	}{
		{"no grant", nil, CodeProtectedPath},
		{"grant on a directory inside does not cover the root", &GrantSpec{Access: "file_operations:read", Path: f.home + "/.sshx", Recursive: true}, CodeProtectedPath},
		{"read grant naming the directory", &GrantSpec{Access: "file_operations:read", Path: f.home, Recursive: true}, string(AllowedByGrant)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.grant != nil {
				f.grant(t, *tt.grant)
			}
			if got := f.kind(t, walk); got != tt.want {
				t.Errorf("Check(walk %s) = %s, want %s", f.home, got, tt.want)
			}
		})
	}
}

// TestRootsAreNamedByPath: the edit journal records a root's Name for recovery by another
// process after a crash. A root named /proc/self/fd/N (a descriptor closed right after
// opening it) sent that recovery to whatever file N was in the recovering process:
// interrupted edits were dropped, or undone in another directory.
func TestRootsAreNamedByPath(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	if _, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	outside, err := f.g.Open(ctx, req(ClassWrite, "create_file", f.out+"/x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	tests := []struct {
		name string
		root *os.Root
		want string
	}{
		{"working directory", f.g.Root(), f.wd},
		{"granted directory outside", outside.Root, f.out},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.root.Name(); got != tt.want {
				t.Errorf("Root().Name() = %q, want %q", got, tt.want)
			}
			byName, err1 := os.Stat(tt.root.Name())
			held, err2 := tt.root.Stat(".")
			if err := errors.Join(err1, err2); err != nil || !os.SameFile(byName, held) {
				t.Errorf("the directory named %q is not the one the root holds (%v)", tt.root.Name(), err)
			}
		})
	}
}

// TestOpenRootRefusesLinks: a root is opened only at a path without symbolic links (the path
// was checked link-free; a link there now was swapped in since).
func TestOpenRootRefusesLinks(t *testing.T) {
	f := newFixture(t, nil)
	symlink(t, f.out, filepath.Join(f.base, "link-to-out"))
	mkdirs(t, filepath.Join(f.out, "sub"))
	tests := []struct {
		name, dir string
		ok        bool
	}{
		{"plain directory", filepath.Join(f.out, "sub"), true},
		{"link as the last component", filepath.Join(f.base, "link-to-out"), false},
		{"link on the way", filepath.Join(f.base, "link-to-out", "sub"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := openRootAt(tt.dir)
			if err == nil {
				root.Close()
			}
			if (err == nil) != tt.ok {
				t.Errorf("openRootAt(%q) = %v, want ok %v", tt.dir, err, tt.ok)
			}
		})
	}
}
