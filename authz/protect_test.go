package authz

import "testing"

func TestGitAnchor(t *testing.T) {
	tests := []struct {
		p                string
		write, delRename bool
		want             string
		ok               bool
	}{
		{"/w/.git/config", false, false, "/w/.git/config", true},
		{"/w/.git/hooks", false, false, "/w/.git/hooks", true},
		{"/w/.git/hooks/pre-commit", true, false, "/w/.git/hooks", true},
		{"/w/.GIT/Hooks/pre-commit", true, false, "/w/.GIT/Hooks", true},
		{"/w/.git/modules/lib/hooks/x", true, false, "/w/.git/modules/lib/hooks", true},
		{"/w/.git/worktrees/b/config.worktree", true, false, "/w/.git/worktrees/b/config.worktree", true},
		{"/w/.git/HEAD", true, false, "", false},
		{"/w/.git/HEAD", true, true, "/w/.git/HEAD", true},
		{"/w/.git", false, false, "", false},
		{"/w/.git", true, false, "/w/.git", true},
		{"/w/.github/workflows/ci.yml", true, false, "", false},
		{"/w/.gitignore", true, true, "", false},
		{"/w/x.git/config", true, false, "", false},
		{"/w/.github/.git/config", false, false, "/w/.github/.git/config", true},
		{"/w/src/config", true, false, "", false},
	}
	for _, tt := range tests {
		got, ok := gitAnchor(tt.p, tt.write, tt.delRename)
		if got != tt.want || ok != tt.ok {
			t.Errorf("gitAnchor(%q, write=%v, delRename=%v) = %q, %v; want %q, %v", tt.p, tt.write, tt.delRename, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPathRuleMatch(t *testing.T) {
	tests := []struct {
		rule, p, want string
		ok            bool
	}{
		{"/h/.ssh", "/h/.ssh", "/h/.ssh", true},
		{"/h/.ssh", "/h/.ssh/id_rsa", "/h/.ssh", true},
		{"/h/.ssh", "/h/.sshx", "", false},
		{"/h/.ssh", "/h", "", false},
		{"/proc/*/environ", "/proc/123/environ", "/proc/123/environ", true},
		{"/proc/*/environ", "/proc/123/environment", "", false},
		{"/proc/*/environ", "/proc/123", "", false},
		{"/proc/*/task/*/environ", "/proc/1/task/2/environ", "/proc/1/task/2/environ", true},
		{"/srv/*/keys", "/srv/app/keys/a/b", "/srv/app/keys", true},
	}
	for _, tt := range tests {
		r, _ := makeRule(tt.rule, "/h")
		got, ok := r.match(tt.p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("rule %q match(%q) = %q, %v; want %q, %v", tt.rule, tt.p, got, ok, tt.want, tt.ok)
		}
	}
}
