package authz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"toolhost/store"
)

// Config configures a Guard.
type Config struct {
	// WorkDir is the working directory set by the user (never by the model). It may be reached
	// through symlinks; the guard works with its canonical path.
	WorkDir string
	// ConfigFile, StateDir and TokenFile are toolhost's own files. They are protected even when they
	// do not exist yet, and even inside the working directory. The store's directory is added too.
	ConfigFile, StateDir, TokenFile string
	// Protected lists more protected paths ("~/" = HomeDir).
	Protected []string
	// SecretPaths is the deny list for reads; nil means DefaultSecretPaths. Entries apply inside the
	// working directory too (a working directory at ~ must not expose ~/.ssh).
	SecretPaths []string
	// HomeDir expands "~/" in the lists; empty means os.UserHomeDir.
	HomeDir string
	// OutsideReadsNeedGrant makes every read outside the working directory need a grant.
	OutsideReadsNeedGrant bool
	// Store keeps grants and approval requests and receives the audit log. Nil: only StaticGrants
	// exist, nothing can be approved, and nothing is audited unless Audit is set.
	Store *store.Store
	// Audit receives the decision records; nil means Store (when set).
	Audit AuditSink
	// Clock is the time source of grants and approvals; zero value = system clocks.
	Clock Clock
	// GrantTTL and ApprovalTTL default to DefaultGrantTTL and DefaultApprovalTTL.
	GrantTTL, ApprovalTTL time.Duration
	// StaticGrants are grants from configuration: in memory, never expire, never consumed.
	// Paths are absolute or start with "~/"; they are canonicalised when the guard is built.
	StaticGrants []GrantSpec
	// Logger receives warnings (failed audit writes); nil means slog.Default().
	Logger *slog.Logger
	// Ask names the call that asks the user for a grant, which refusals spell out in NextStep
	// (the NetGuard built on this guard's too); zero: NextStep says it in words.
	Ask AskCall
	// AutoApprove grants what would be asked, for disposable environments (CI, containers)
	// where nobody answers: see autoapprove.go for what it grants and what it never does.
	AutoApprove bool
}

// DecisionKind says why an operation was allowed.
type DecisionKind string

// The ways an operation can be allowed.
const (
	AllowedInside      DecisionKind = OutcomeAllowedInside
	AllowedByGrant     DecisionKind = OutcomeAllowedByGrant
	AllowedOutsideRead DecisionKind = OutcomeAllowedOutsideRead
)

// Request is one operation on one path, as the model asked for it.
type Request struct {
	Conversation    string
	Tool, Operation string // e.g. "file_operations", "create_file"
	Class           Class
	// Path as the model gave it: absolute, or relative to the working directory ("" = the working
	// directory); a leading "~/" means the home directory.
	Path string
	// Delete and Rename refine write checks: the final symlink is not followed (the link itself is
	// removed or moved), the working directory itself is refused, and everything inside .git and
	// every ancestor of a protected path is protected. Check a rename twice: source and destination.
	Delete, Rename bool
	// NamesOnly says a read of a directory returns names and metadata below it, never file
	// contents (a listing, a glob). Without it a directory read is taken to read the contents of
	// everything below (a grep), so a directory holding a protected or secret path needs a grant
	// naming it. The caller's operation declares it; the guard knows no operation by name.
	NamesOnly bool
	// Command is the exact command line of a ClassCommand request (see Guard.CommandGranted).
	Command string
	// ReadAccess is the access (tool.operation) that reads one file: the next step names it
	// when a walk below the target opens a file it may not read (one with hard links outside
	// the working directory). The caller's tool declares it; empty means the request's own.
	ReadAccess string
	// OutsideNeedsGrant makes a read outside the working directory need a grant whatever
	// Config.OutsideReadsNeedGrant says. The caller's operation declares it for a file it hands
	// to an interpreter that reads the whole file (a SQLite database opened by path).
	OutsideNeedsGrant bool
}

// Decision is an allowed operation.
type Decision struct {
	Kind      DecisionKind
	Canonical string // the canonical path to operate on
	GrantID   string // the grant used, when Kind is AllowedByGrant

	// id is the identity of the existing file or directory that was decided on; Target.Opened
	// refuses a different file opened under the same name (swapped in after the check).
	id fileKey
}

// Guard decides whether requests may touch paths, and opens os.Root handles for those it allows.
// Safe for concurrent use.
type Guard struct {
	workdir string
	home    string
	root    *os.Root
	rootFD  int // O_PATH descriptor of the working directory for the openat2 fast path
	// staticRules are the configured protected and secret paths, canonicalised on first
	// use: resolving every default secret path's symlinks costs a server's start dozens of
	// lstat calls that tools/list does not need. rules() adds the announced credential files.
	staticRules      func() *pathRules
	store            *store.Store
	creds            credentialCache
	outsideNeedGrant bool
	grants           *Grants
	terminalPaths    terminalPathsCache
	approvals        *Approvals
	links            *linkIndex
	audit            *auditor
	clock            Clock
	log              *slog.Logger
	ask              AskCall
	autoApprove      bool

	closeOnce sync.Once
	closeErr  error
}

// New builds a guard for cfg.WorkDir and opens its root handle. Close it when done.
func New(ctx context.Context, cfg Config) (*Guard, error) {
	if cfg.WorkDir == "" {
		return nil, errors.New("authz: working directory not set")
	}
	abs, err := filepath.Abs(cfg.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("authz: working directory: %w", err)
	}
	if abs, err = guardPath(abs); err != nil {
		return nil, fmt.Errorf("authz: working directory: %w", err)
	}
	res, err := resolve("", abs, true)
	if err != nil {
		return nil, fmt.Errorf("authz: working directory: %w", err)
	}
	if !res.exists || res.st.Mode&sIFMT != sIFDIR {
		return nil, fmt.Errorf("authz: working directory %s is not an existing directory", res.path)
	}
	root, err := openRootAt(res.path)
	if err != nil {
		return nil, fmt.Errorf("authz: open working directory: %w", err)
	}
	rootFD, err := openDirFD(res.path)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("authz: open working directory: %w", err)
	}
	g := &Guard{
		workdir:          res.path,
		root:             root,
		rootFD:           rootFD,
		outsideNeedGrant: cfg.OutsideReadsNeedGrant,
		clock:            cfg.Clock.withDefaults(),
		links:            &linkIndex{dir: res.path},
		log:              cfg.Logger,
		ask:              cfg.Ask,
		autoApprove:      cfg.AutoApprove,
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	home := cfg.HomeDir
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home, err = guardPath(home); err != nil {
		home = ""
	}
	g.home = home
	prot := append([]string{cfg.ConfigFile, cfg.StateDir, cfg.TokenFile}, cfg.Protected...)
	if cfg.Store != nil {
		prot = append(prot, cfg.Store.Dir())
	}
	secrets := cfg.SecretPaths
	if secrets == nil {
		secrets = DefaultSecretPaths
	}
	secrets = slices.Clone(secrets) // the caller's slice may change before the first check
	g.staticRules = sync.OnceValue(func() *pathRules { return newPathRules(prot, secrets, home, g.workdir) })
	g.store = cfg.Store
	static := make([]GrantSpec, len(cfg.StaticGrants))
	for i, s := range cfg.StaticGrants {
		// Configuration may spell paths through symlinks or with ~/; decisions see canonical paths.
		if r, ok := makeRule(s.Path, home); ok && !r.glob {
			if res, err := resolve("", r.path, true); err == nil {
				s.Path = res.path
			}
		}
		static[i] = s
	}
	g.grants, err = NewGrants(cfg.Store, g.clock, cfg.GrantTTL, static)
	if err != nil {
		root.Close()
		if rootFD >= 0 {
			closeFD(rootFD)
		}
		return nil, fmt.Errorf("authz: %w", err)
	}
	g.approvals = NewApprovals(cfg.Store, g.grants, g.clock, cfg.ApprovalTTL)
	sink := cfg.Audit
	if sink == nil && cfg.Store != nil {
		sink = cfg.Store
	}
	if sink != nil {
		g.audit = newAuditor(sink, g.log)
	}
	return g, nil
}

// pathRules are a guard's protected and secret paths, each as configured and symlink-resolved.
type pathRules struct {
	protected       []pathRule // all protected rules
	insideProtected []pathRule // those that can match inside the working directory
	secrets         []pathRule
	insideSecrets   []pathRule
	plainInside     bool     // no protected or secret rule can match inside the working directory
	literal         []string // the plain paths of secrets, then protected (SecretPaths)
}

func newPathRules(prot, secrets []string, home, workdir string) *pathRules {
	rs := &pathRules{}
	for _, e := range prot {
		if r, ok := makeRule(e, home); ok {
			rs.protected = append(rs.protected, canonicalRules(r)...)
		}
	}
	for _, e := range secrets {
		if r, ok := makeRule(e, home); ok {
			rs.secrets = append(rs.secrets, canonicalRules(r)...)
		}
	}
	rs.derive(workdir)
	return rs
}

// derive works out the rules that can match inside the working directory.
func (rs *pathRules) derive(workdir string) {
	rs.insideProtected, rs.insideSecrets = nil, nil
	for _, r := range rs.protected {
		if r.overlaps(workdir) {
			rs.insideProtected = append(rs.insideProtected, r)
		}
	}
	for _, r := range rs.secrets {
		if r.overlaps(workdir) {
			rs.insideSecrets = append(rs.insideSecrets, r)
		}
	}
	// A walk inside the working directory can skip the rules when none can match there.
	rs.plainInside = len(rs.insideProtected) == 0 && len(rs.insideSecrets) == 0 && !hasGitName(strings.TrimPrefix(workdir, "/"))
	rs.literal = rs.literalPaths()
}

// withProtected is a copy of rs with the canonical paths protected too.
func (rs *pathRules) withProtected(paths []string, workdir string) *pathRules {
	if len(paths) == 0 {
		return rs
	}
	out := &pathRules{protected: slices.Clone(rs.protected), secrets: rs.secrets}
	for _, p := range paths {
		out.protected = append(out.protected, pathRule{path: p})
	}
	out.derive(workdir)
	return out
}

// Close flushes the audit queue and closes the working directory's root handle.
func (g *Guard) Close() error {
	// Only once: a second close(2) of rootFD would close whatever file has taken its number
	// since.
	g.closeOnce.Do(func() {
		if g.audit != nil {
			g.audit.close()
		}
		if g.rootFD >= 0 {
			closeFD(g.rootFD)
		}
		g.closeErr = g.root.Close()
	})
	return g.closeErr
}

// WorkDir returns the canonical working directory.
func (g *Guard) WorkDir() string { return g.workdir }

// Root returns the handle on the working directory, shared by every Target inside it. Do not close it.
func (g *Guard) Root() *os.Root { return g.root }

// Grants returns the grant store.
func (g *Guard) Grants() *Grants { return g.grants }

// Approvals returns the approval requests.
func (g *Guard) Approvals() *Approvals { return g.approvals }

// Canonical resolves path (absolute, or relative to the working directory) to its canonical form
// without deciding anything. Unusable input is a *Denial.
func (g *Guard) Canonical(path string) (string, error) {
	res, err := g.resolveInput(path, true)
	if err != nil {
		return "", err
	}
	return res.path, nil
}

func (g *Guard) resolveInput(p string, follow bool) (resolved, error) {
	if err := checkInput(p); err != nil {
		return resolved{}, toDenial(err, "")
	}
	if strings.HasSuffix(p, string(filepath.Separator)) {
		follow = true // POSIX: a trailing slash resolves a final symlink
	}
	if p != "" {
		gp, err := guardPath(p)
		if err != nil {
			return resolved{}, toDenial(err, "")
		}
		p = gp
	}
	if strings.HasSuffix(p, "/") {
		follow = true // POSIX: a trailing slash resolves a final symlink
	}
	if (p == "~" || strings.HasPrefix(p, "~/")) && g.home != "" {
		// Models write ~/ meaning the home directory, as a shell would.
		p = g.home + p[1:]
	}
	var (
		res resolved
		err error
	)
	switch {
	case p == "" || p[0] != '/':
		if r, ok := g.fastInside(p, follow); ok {
			return r, nil
		}
		res, err = resolve(g.workdir, p, follow)
	case within(p, g.workdir):
		// Already spelled from the (symlink-free) working directory: skip re-checking its components.
		rel := strings.TrimLeft(p[len(g.workdir):], "/")
		if r, ok := g.fastInside(rel, follow); ok {
			return r, nil
		}
		res, err = resolve(g.workdir, rel, follow)
	default:
		if r, ok := fastLookup(atCWD, p, false, follow); ok {
			r.path = filepath.Clean(p)
			return r, nil
		}
		res, err = resolve("", p, follow)
	}
	if err != nil {
		return res, toDenial(err, "")
	}
	return res, nil
}

// fastInside is fastLookup below the working directory.
func (g *Guard) fastInside(rel string, follow bool) (resolved, bool) {
	if rel == "" {
		rel = "."
	}
	r, ok := fastLookup(g.rootFD, rel, true, follow)
	if ok {
		r.path = path.Join(g.workdir, rel)
	}
	return r, ok
}

func toDenial(err error, access string) error {
	var pe *pathErr
	if errors.As(err, &pe) {
		return &Denial{Code: pe.code, Access: access, Message: pe.msg, NextStep: "fix the path and retry"}
	}
	return err
}

// Check decides whether r may proceed and audits the decision. It never opens the target, so it
// never blocks on a FIFO. Refusals the model can fix are *Denial; other errors are internal. A
// one-time grant is consumed by the check that uses it; use Open (which checks) for file I/O rather
// than Check followed by Open.
func (g *Guard) Check(ctx context.Context, r Request) (Decision, error) {
	d, _, err := g.decide(ctx, &r)
	return d, err
}

func (g *Guard) decide(ctx context.Context, r *Request) (Decision, *Grant, error) {
	d, gr, err := g.decide1(ctx, r)
	if den, ok := AsDenial(err); ok && g.autoGrantPath(ctx, r, den) {
		d, gr, err = g.decide1(ctx, r)
	}
	if g.audit != nil {
		rec := AuditRecord{
			Time: g.clock.Now().UTC(), Event: "decision", Conversation: r.Conversation,
			Tool: r.Tool, Operation: r.Operation, Class: r.Class, Path: d.Canonical,
		}
		if err == nil {
			rec.Outcome, rec.GrantID = string(d.Kind), d.GrantID
		} else if den, ok := AsDenial(err); ok {
			rec.Outcome, rec.Code, rec.Path = OutcomeDenied, den.Code, den.Canonical
			if den.Grantable() {
				rec.Outcome = OutcomeNeedsGrant
			}
		} else {
			rec.Outcome, rec.Code = OutcomeDenied, "internal_error"
		}
		g.audit.add(ctx, rec)
	}
	return d, gr, err
}

func (g *Guard) decide1(ctx context.Context, r *Request) (Decision, *Grant, error) {
	access := r.Tool + "." + r.Operation
	if !r.Class.valid() || !isName(r.Tool) || !isName(r.Operation) {
		return Decision{}, nil, &Denial{Code: CodeInvalidRequest, Access: shorten(access),
			Message: "request needs a tool, an operation and a class (read, write, execute or network)"}
	}
	if r.Class == ClassCommand {
		// A command is not a path: it is allowed only by its own grant (CommandGranted).
		return Decision{}, nil, &Denial{Code: CodeInvalidRequest, Access: shorten(access),
			Message: "command approvals are checked with CommandGranted, not Check"}
	}
	if err := ctx.Err(); err != nil {
		return Decision{}, nil, err
	}
	write := r.Class == ClassWrite
	delRename := write && (r.Delete || r.Rename)
	res, err := g.resolveInput(r.Path, !delRename)
	if err != nil {
		if d, ok := err.(*Denial); ok {
			d.Access = access
		}
		return Decision{}, nil, err
	}
	c := res.path
	inside := within(c, g.workdir)
	deny := func(code, msg string) (Decision, *Grant, error) {
		d := &Denial{Code: code, Canonical: c, Access: access, Message: msg}
		switch {
		case d.Grantable():
			d.NextStep = g.requestAuthorizationCall(c, access)
		case code == CodeNotRegular:
			d.NextStep = "use a regular file; FIFOs, devices and sockets are never opened"
		case code == CodeIsWorkdir:
			d.NextStep = "delete or rename the entries inside it instead"
		}
		return Decision{Canonical: c}, nil, d
	}
	if delRename && c == g.workdir {
		return deny(CodeIsWorkdir, "the working directory itself cannot be deleted or renamed")
	}
	ft := res.st.Mode & sIFMT
	if res.exists && !delRename {
		switch ft {
		case sIFIFO, sIFCHR, sIFBLK, sIFSOCK:
			return deny(CodeNotRegular, fmt.Sprintf("%s is a %s; only regular files and directories can be used", shorten(c), typeName(uint32(ft))))
		}
	}

	var anchor, code, msg string
	if a, ok := g.protectedAnchor(c, inside, write, delRename); ok {
		anchor, code = a, CodeProtectedPath
		what := "toolhost's own configuration or state"
		if strings.Contains(a, "/.git") {
			what = "repository internals (.git config and hooks)"
		}
		msg = fmt.Sprintf("%s is protected: %s; only a grant naming it allows this", shorten(a), what)
	} else if a, ok := g.secretAnchor(c, inside); ok {
		anchor, code = a, CodeSecretPath
		msg = fmt.Sprintf("%s holds credentials; only a grant naming it allows this", shorten(a))
	} else if a, what, ok := g.containedAnchor(c, r.Class, res.exists && ft == sIFDIR && !delRename && !r.NamesOnly); ok {
		// A search of a directory reads everything below it, so a directory that holds a
		// protected or secret path needs a grant naming the directory.
		anchor, code = c, CodeProtectedPath
		if what == "" {
			code, what = CodeSecretPath, "credentials"
		}
		held := "contains " + shorten(a)
		if a == c {
			held = "is"
		}
		msg = fmt.Sprintf("%s %s (%s), which a search there would read; search a directory that does not hold it, or only a grant naming it allows this", shorten(c), held, what)
	} else if write && res.exists && ft == sIFREG && res.st.Nlink > 1 {
		anchor, code = c, CodeHardLink
		msg = fmt.Sprintf("%s has %d hard links, so changing it changes other files too; only a grant naming it allows this", shorten(c), res.st.Nlink)
	} else if r.Class == ClassRead && !r.NamesOnly && res.exists && ft == sIFREG && res.st.Nlink > 1 && !g.links.onlyInside(ctx, statKey(&res.st), uint64(res.st.Nlink), ctimeOf(&res.st)) {
		// Another name of the same file may be a credential anywhere on the disk: reading it
		// here would read that. Links all found inside the working directory are harmless.
		anchor, code = c, CodeHardLink
		msg = sharedMessage(c, uint64(res.st.Nlink))
	}
	var id fileKey
	if res.exists {
		id = statKey(&res.st)
	}
	if code == "" {
		switch {
		case inside:
			return Decision{Kind: AllowedInside, Canonical: c, id: id}, nil, nil
		case r.Class == ClassRead && !g.outsideNeedGrant && !r.OutsideNeedsGrant:
			return Decision{Kind: AllowedOutsideRead, Canonical: c, id: id}, nil, nil
		case r.Class == ClassRead:
			code, msg = CodeNeedsGrant, fmt.Sprintf("%s is outside the working directory %s; reads there need the user's grant", shorten(c), shorten(g.workdir))
		default:
			verb := map[Class]string{ClassWrite: "writing", ClassExecute: "running commands", ClassNetwork: "network access"}[r.Class]
			code, msg = CodeOutsideWorkdir, fmt.Sprintf("%s is outside the working directory %s; %s there needs the user's grant", shorten(c), shorten(g.workdir), verb)
		}
	}
	gr, ok, err := g.grants.use(ctx, r, c, anchor)
	if err != nil {
		return Decision{Canonical: c}, nil, err
	}
	if ok {
		return Decision{Kind: AllowedByGrant, Canonical: c, GrantID: gr.ID, id: id}, &gr, nil
	}
	return deny(code, msg)
}

func typeName(ft uint32) string {
	switch ft {
	case sIFIFO:
		return "FIFO"
	case sIFCHR:
		return "character device"
	case sIFBLK:
		return "block device"
	case sIFSOCK:
		return "socket"
	}
	return "special file"
}

// protectedAnchor returns the protected path c falls under (the part a grant must name).
func (g *Guard) protectedAnchor(c string, inside, write, delRename bool) (string, bool) {
	if a, ok := gitAnchor(c, write, delRename); ok {
		return a, true
	}
	rs := g.rules()
	rules := rs.protected
	if inside && !delRename {
		rules = rs.insideProtected
	}
	for _, r := range rules {
		if a, ok := r.match(c); ok {
			return a, true
		}
		// Deleting or renaming an ancestor (or renaming something onto it) would remove or replace
		// the protected path.
		if delRename && !r.glob && within(r.path, c) {
			return c, true
		}
	}
	return "", false
}

// containedAnchor returns a protected or secret path strictly inside the directory c when r reads
// the contents below c (dir reports that c is an existing directory and the request reads
// contents, not names): a walk such as grep_search reads every file below its root, so the check
// on the root alone would let it read what a direct read is refused. what describes a protected
// path and is empty for a secret one. Repository internals count when c is a .git directory or
// inside one. Not covered: .env* files below a directory outside the working directory (they can
// be anywhere; the walkers skip hidden files unless asked).
func (g *Guard) containedAnchor(c string, class Class, dir bool) (anchor, what string, ok bool) {
	if class != ClassRead || !dir {
		return "", "", false
	}
	if a, ok := gitDirRead(c); ok {
		return a, "repository internals (.git config and hooks)", true
	}
	rs := g.rules()
	for _, r := range rs.protected {
		if a, ok := r.below(c); ok {
			return a, "toolhost's own configuration or state", true
		}
	}
	for _, r := range rs.secrets {
		if a, ok := r.below(c); ok {
			return a, "", true
		}
	}
	return "", "", false
}

// secretAnchor returns the secret path c falls under.
func (g *Guard) secretAnchor(c string, inside bool) (string, bool) {
	rs := g.rules()
	rules := rs.secrets
	if inside {
		rules = rs.insideSecrets
	} else if isEnvFile(c) {
		return c, true
	}
	for _, r := range rules {
		if a, ok := r.match(c); ok {
			return a, true
		}
	}
	return "", false
}

// Target is an allowed path opened for I/O: a root handle and the path relative to it. Use Root and
// Rel for every file operation, so a symlink swapped in after the check cannot lead outside.
//
// A Target is also the fsread.Screen of the walks and reads below it: see Withhold and Opened.
type Target struct {
	Root      *os.Root
	Rel       string // slash-separated, "." for the root itself
	Canonical string
	Decision  Decision
	owned     bool
	guard     *Guard
	dir       string // the directory Root is opened at
	grant     *Grant // the grant that allowed the target, if any
	// readAccess is the request's ReadAccess (or its own access), for refusals of files below.
	readAccess string
}

// Close closes Root if the target owns it (the working directory's root is shared).
func (t *Target) Close() error {
	if t == nil || !t.owned || t.Root == nil {
		return nil
	}
	return t.Root.Close()
}

// OpenRead opens the target for reading without following a final symlink and without blocking
// on a FIFO, and refuses anything but regular files and directories (checked on the open file, so
// a swap after the check is caught too).
func (t *Target) OpenRead() (*os.File, error) {
	f, err := t.Root.OpenFile(t.Rel, os.O_RDONLY|openReadFlags, 0)
	if err != nil {
		return nil, err
	}
	var st statT
	if err := fstat(f, &st); err != nil {
		f.Close()
		return nil, err
	}
	ft := st.Mode & sIFMT
	if ft != sIFREG && ft != sIFDIR {
		f.Close()
		return nil, &Denial{Code: CodeNotRegular, Canonical: t.Canonical,
			Message: fmt.Sprintf("%s is a %s; only regular files and directories can be used", shorten(t.Canonical), typeName(uint32(ft)))}
	}
	if ft == sIFREG {
		if err := t.vet(t.Rel, statKey(&st), uint64(st.Nlink), st.Ctim.Nano()); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// Open checks r like Check and returns a root handle at the working directory (for paths inside
// it), at the granted directory (recursive grants), or at the parent directory of the path (file
// grants and allowed outside reads), with the path relative to that root.
func (g *Guard) Open(ctx context.Context, r Request) (*Target, error) {
	d, gr, err := g.decide(ctx, &r)
	if err != nil {
		return nil, err
	}
	c := d.Canonical
	t := &Target{Canonical: c, Decision: d, readAccess: r.ReadAccess}
	t.guard, t.grant = g, gr
	if t.readAccess == "" {
		t.readAccess = r.Tool + "." + r.Operation
	}
	if within(c, g.workdir) {
		t.Root, t.Rel, t.dir = g.root, relTo(c, g.workdir), g.workdir
		return t, nil
	}
	scope := parentDir(c)
	if gr != nil && gr.Recursive && c != gr.Path && within(c, gr.Path) {
		scope = gr.Path
	}
	// The scope may not exist yet (a grant on a directory to be created): root at its deepest
	// existing ancestor; Rel is still the canonical path, so it stays where the check said.
	for {
		root, err := openRootAt(scope)
		if err == nil {
			t.Root, t.Rel, t.owned, t.dir = root, relTo(c, scope), true, scope
			return t, nil
		}
		if !errors.Is(err, os.ErrNotExist) || scope == "/" {
			return nil, fmt.Errorf("open root for %s: %w", shorten(c), err)
		}
		scope = parentDir(scope)
	}
}
