package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel"
	"toolhost/internal/lsp"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
)

// codeEngine builds the engine of the code operations: the language servers of the
// [language_servers] configuration (found on PATH by default), started lazily through the
// terminal sandbox with the terminals' scrubbed environment, and the working directory's
// index.
func (a *App) codeEngine(ix *codeindex.Index) *codeintel.Engine {
	cfg := codeintel.Config{Root: a.Guard.Root(), RootPath: a.Workdir, Screen: a.Guard.WorkDirScreen(), Index: ix}
	if a.Memory != nil {
		cfg.Embedder = a.Memory.Embedder()
	}
	ls := a.Config.LanguageServers
	if !ls.Off {
		specs := lsp.DefaultSpecs(map[string][]string{"go": ls.Go, "python": ls.Python, "typescript": ls.TypeScript, "rust": ls.Rust, "c": ls.C})
		if len(specs) > 0 {
			cfg.Pool = lsp.NewPool(lsp.Options{
				Root: a.Workdir, Start: a.startLanguageServer, Env: a.languageServerEnv(),
				Timeout: ls.Timeout.Duration, StartTimeout: ls.StartTimeout.Duration, IdleTimeout: ls.IdleTimeout.Duration,
				Logger: a.Logger,
			}, specs)
			a.closers = append(a.closers, cfg.Pool.Close)
		}
	}
	e := codeintel.NewEngine(cfg)
	if ix != nil {
		ix.OnChange(func(rels []string) { e.Changed(context.Background(), rels) })
	}
	return e
}

// startLanguageServer starts a language server like a terminal command: under the sandbox
// policy of the working directory (no conversation's grants: servers are shared), which may
// also write the servers' own caches.
func (a *App) startLanguageServer(cmd *exec.Cmd) error {
	var policy *sandbox.Policy
	if tg := a.termGuard; tg != nil {
		st := tg.prepare()
		if st.err != nil {
			return st.err
		}
		if st.status.Refusing {
			return sandbox.ErrUnavailable
		}
		if policy = st.status.Policy(tg.base); policy != nil && policy.Mode == sandbox.ModeWorkspaceWrite {
			policy = policy.WithWritable(languageServerCaches()...)
		}
	}
	if err := a.Prepared(context.Background()); err != nil {
		return err
	}
	return sandbox.Start(cmd, policy)
}

// languageServerCaches are the directories language servers write besides the build caches.
func languageServerCaches() []string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range []string{"gopls", "typescript", "pyright", "basedpyright", "clangd"} {
		p := filepath.Join(cache, d)
		if os.MkdirAll(p, 0o755) == nil {
			out = append(out, p)
		}
	}
	return out
}

// languageServerEnv is the terminals' environment: secrets scrubbed, the private TMPDIR set.
func (a *App) languageServerEnv() []string {
	scrub := a.scrubEnv()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := cut(kv, '=')
		if !terminal.Scrubbed(name, scrub) {
			env = append(env, kv)
		}
	}
	if tg := a.termGuard; tg != nil {
		for k, v := range tg.env {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
