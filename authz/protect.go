package authz

import (
	"path"
	"slices"
	"strings"
)

// DefaultSecretPaths is the deny list of credential stores used when Config.SecretPaths is nil.
// Reads of these paths (and everything below them) are refused even though other reads outside the
// working directory are allowed; only a grant naming the path (or a directory inside it) opens them.
// "~/" is the user's home directory; "*" matches one path component (path.Match syntax). To extend
// the list, copy it and append: the guard never modifies it, and neither should callers.
// Files whose name starts with ".env" are also secret outside the working directory.
var DefaultSecretPaths = []string{
	"~/.ssh",
	"~/.aws",
	"~/.gnupg",
	"~/.config/gcloud",
	"~/.azure",
	"~/.kube",
	"~/.docker/config.json",
	"~/.netrc",
	"~/.git-credentials",
	"~/.config/gh",
	"~/.config/hub",
	"~/.npmrc",
	"~/.yarnrc.yml",
	"~/.pypirc",
	"~/.cargo/credentials",
	"~/.cargo/credentials.toml",
	"~/.gem/credentials",
	"~/.terraform.d/credentials.tfrc.json",
	"~/.vault-token",
	"~/.pgpass",
	"~/.my.cnf",
	"~/.password-store",
	"~/.local/share/keyrings",
	"~/.config/op",
	"~/.mozilla",
	"~/.config/google-chrome",
	"~/.config/chromium",
	"/etc/shadow",
	"/etc/gshadow",
	"/etc/sudoers",
	"/etc/sudoers.d",
	"/proc/*/environ",
	"/proc/*/mem",
	"/proc/*/task/*/environ",
}

// SecretPaths are the guard's credential stores that are plain paths (not patterns), each as
// configured and symlink-resolved, with every protected path of toolhost's own and every
// announced credential file: what the terminal sandbox keeps unreadable.
func (g *Guard) SecretPaths() []string {
	return slices.Clone(g.rules().literal)
}

// literalPaths are the plain paths of the secret rules, then of the protected ones, each once.
func (rs *pathRules) literalPaths() []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]pathRule{rs.secrets, rs.protected} {
		for _, r := range list {
			if !r.glob && !seen[r.path] {
				seen[r.path] = true
				out = append(out, r.path)
			}
		}
	}
	return out
}

// pathRule is one protected or secret entry, canonicalised when the guard is built.
type pathRule struct {
	path string // clean absolute path or path.Match pattern
	glob bool
}

// match returns the rule's anchor when p is the rule's path or inside it: the part of p a grant
// must name. For globs the anchor is the matching ancestor of p.
func (r pathRule) match(p string) (string, bool) {
	if !r.glob {
		if ruleWithin(p, r.path, foldNames) {
			return r.path, true
		}
		return "", false
	}
	// Match p and each ancestor with the same number of components as the pattern.
	n := strings.Count(r.path, "/")
	if strings.Count(p, "/") < n {
		return "", false
	}
	anc := p
	for strings.Count(anc, "/") > n {
		anc = parentDir(anc)
	}
	if ok, _ := path.Match(r.path, anc); ok {
		return anc, true
	}
	return "", false
}

// below reports whether the rule can match something strictly inside directory dir, and returns
// the rule (or, for a glob, its pattern) to name in a message.
func (r pathRule) below(dir string) (string, bool) {
	if !r.glob {
		return r.path, r.path != dir && ruleWithin(r.path, dir, foldNames)
	}
	// A pattern with more components than dir matches below it when its leading components
	// match dir.
	if dir == "/" {
		return r.path, true
	}
	m := strings.Count(dir, "/")
	if strings.Count(r.path, "/") <= m {
		return "", false
	}
	pre := r.path
	for strings.Count(pre, "/") > m {
		pre = parentDir(pre)
	}
	if ok, _ := path.Match(pre, dir); ok {
		return r.path, true
	}
	return "", false
}

// gitDirRead reports whether reading directory p reads repository internals: p is a .git
// directory or inside one (its config and hooks are then below p). A read of the repository's
// own directory is not refused, since nearly every working directory holds a .git; walkers skip
// hidden entries unless asked.
func gitDirRead(p string) (string, bool) {
	for i := 0; i+5 <= len(p); i++ {
		if p[i] == '/' && strings.EqualFold(p[i+1:i+5], ".git") && (i+5 == len(p) || p[i+5] == '/') {
			return p[:i+5], true
		}
	}
	return "", false
}

// staticPrefix is the part of a rule before its first wildcard, used to skip rules that cannot
// apply inside the working directory.
func (r pathRule) staticPrefix() string {
	if !r.glob {
		return r.path
	}
	i := strings.IndexAny(r.path, "*?[\\")
	return parentDir(r.path[:i] + "x")
}

// overlaps reports whether anything inside dir could match the rule.
func (r pathRule) overlaps(dir string) bool {
	pre := r.staticPrefix()
	return ruleWithin(pre, dir, foldNames) || ruleWithin(dir, pre, foldNames)
}

// makeRule expands ~ and canonicalises a configured entry; relative entries are taken relative to
// home (they name dot files).
func makeRule(entry, home string) (pathRule, bool) {
	entry = strings.TrimSpace(entry)
	if entry == "" {
		return pathRule{}, false
	}
	if entry == "~" || strings.HasPrefix(entry, "~/") {
		if home == "" {
			return pathRule{}, false
		}
		entry = home + entry[1:]
	}
	if g, err := guardPath(entry); err == nil {
		entry = g
	} else if !strings.ContainsAny(entry, "*?[") {
		return pathRule{}, false // a path Windows would not read as spelled names nothing
	}
	if !strings.HasPrefix(entry, "/") {
		if home == "" {
			return pathRule{}, false
		}
		entry = path.Join(home, entry)
	}
	entry = path.Clean(entry)
	if strings.ContainsAny(entry, "*?[\\") {
		return pathRule{path: entry, glob: true}, true
	}
	return pathRule{path: entry}, true
}

// canonicalRules returns the rule as configured plus, when it differs, its symlink-resolved form,
// so a rule keeps working whichever spelling the decision sees.
func canonicalRules(r pathRule) []pathRule {
	out := []pathRule{r}
	if r.glob {
		return out
	}
	if res, err := resolve("", r.path, true); err == nil && res.path != r.path {
		out = append(out, pathRule{path: res.path})
	}
	return out
}

// gitAnchor applies the repository rules to canonical path p: .git/config, .git/commondir and
// .git/hooks/** of any repository (including the config and hooks of submodules and worktrees
// under .git/), and for writes the .git entry itself (replacing it could point the repository at other hooks). Deletes
// and renames anywhere inside .git are protected too: a rename into .git/modules/x could plant a
// hooks directory. It returns the anchor a grant must name. Names match ignoring ASCII case: on a
// case-insensitive file system (macOS) .GIT/Hooks is the hooks directory; on Linux protecting it
// too costs nothing.
func gitAnchor(p string, write, delRename bool) (string, bool) {
	// Find the first component named .git.
	end := -1
	for i := 0; i+5 <= len(p); i++ {
		if p[i] == '/' && strings.EqualFold(p[i+1:i+5], ".git") && (i+5 == len(p) || p[i+5] == '/') {
			end = i + 5
			break
		}
	}
	if end < 0 {
		return "", false
	}
	if end == len(p) {
		if write {
			return p, true
		}
		return "", false
	}
	for off := end + 1; off <= len(p); {
		k := strings.IndexByte(p[off:], '/')
		if k < 0 {
			k = len(p) - off
		}
		comp := p[off : off+k]
		// commondir names the directory git takes config and hooks from, so writing it is as
		// good as writing them (git status then runs a planted core.fsmonitor).
		if strings.EqualFold(comp, "hooks") || strings.EqualFold(comp, "config") || strings.EqualFold(comp, "config.worktree") || strings.EqualFold(comp, "commondir") {
			return p[:off+k], true
		}
		off += k + 1
	}
	if write && delRename {
		return p, true
	}
	return "", false
}

// isEnvFile reports whether the last component of p names a dotenv file.
func isEnvFile(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return len(base) >= 4 && strings.EqualFold(base[:4], ".env")
}
