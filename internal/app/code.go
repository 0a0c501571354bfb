package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel"
	"toolhost/internal/gate"
	"toolhost/internal/lsp"
	"toolhost/internal/sandbox"
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
				Root: a.Workdir, Start: a.startLanguageServer, Env: a.Gate.Environ(),
				Timeout: ls.Timeout.Duration, StartTimeout: ls.StartTimeout.Duration, IdleTimeout: ls.IdleTimeout.Duration,
				Logger: a.Logger,
			}, specs)
			a.onClose(cfg.Pool.Close)
		}
	}
	e := codeintel.NewEngine(cfg)
	if ix != nil {
		ix.OnChange(func(rels []string) { e.Changed(context.Background(), rels) })
	}
	return e
}

// startLanguageServer starts a language server through the gate, like every process toolhost
// starts: under the working directory's policy without any conversation's grants (servers are
// shared), which may also write the servers' own caches.
func (a *App) startLanguageServer(cmd *exec.Cmd) error {
	if err := a.Prepared(context.Background()); err != nil {
		return err
	}
	st, err := a.Gate.Start(context.Background(), gate.Request{Dir: a.Workdir, Writable: languageServerCaches()})
	if err != nil {
		return err
	}
	return sandbox.Start(cmd, st.Policy)
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
