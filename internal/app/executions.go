package app

import (
	"context"
	"fmt"

	"toolhost/authz"
	"toolhost/internal/config"
	"toolhost/internal/engine"
	"toolhost/store"
)

// openExecutions starts the execution engine on the state directory (replaying what dead
// processes left) and reads the rate limits of the configuration. The engine opens on another
// goroutine, while Open builds the tools; the returned function waits for it and must be
// called before Open returns.
func (a *App) openExecutions(ctx context.Context) (wait func(), err error) {
	cfg := a.Config
	done := make(chan struct{})
	var e *engine.Engine
	var eerr error
	go func() {
		defer close(done)
		e, eerr = engine.Open(ctx, engine.Options{
			StateDir: a.StateDir, Store: a.Store, Logger: a.Logger,
			MaxRecords: cfg.Executions.MaxRecords, MaxAge: cfg.Executions.MaxAge.Duration,
			OnFinish: a.onFinish,
		})
	}()
	wait = func() {
		<-done
		if eerr != nil {
			// A read-only or full state directory must not stop file and terminal work: the
			// server runs without history, and the history commands say why.
			a.Logger.Warn("execution history is off: the engine cannot open its state", "err", eerr)
			a.ExecutionsErr = eerr
		} else {
			a.Executions = e
			a.onClose(e.Close)
		}
	}
	if err := a.openLimits(); err != nil {
		wait()
		return nil, err
	}
	return wait, nil
}

// openLimits reads the rate limits and the token store.
func (a *App) openLimits() error {
	cfg := a.Config
	lim := &engine.Limits{PerCategory: map[authz.Category]engine.Rate{}}
	for key, v := range map[string]string{"per_principal": cfg.Limits.PerPrincipal, string(authz.CategorySafe): cfg.Limits.Safe,
		string(authz.CategoryModerate): cfg.Limits.Moderate, string(authz.CategoryDangerous): cfg.Limits.Dangerous} {
		r, err := engine.ParseRate(v)
		if err != nil {
			return fmt.Errorf("limits.%s: %w", key, err)
		}
		if key == "per_principal" {
			lim.PerPrincipal = r
		} else {
			lim.PerCategory[authz.Category(key)] = r
		}
	}
	a.Limits = lim
	a.Tokens = authz.NewTokens(a.Store)
	return nil
}

// stdioPrincipal is who calls over stdio: the user, admin unless [stdio] tier lowers it.
func stdioPrincipal(cfg *config.Config) (authz.Principal, error) {
	p := authz.StdioPrincipal
	if t := cfg.Stdio.Tier; t != "" {
		tier, err := authz.ParseTier(t)
		if err != nil {
			return p, fmt.Errorf("stdio.tier: %w", err)
		}
		p.Tier = tier
	}
	return p, nil
}

// onFinish passes each finished execution to whoever listens (metrics, MCP log messages).
func (a *App) onFinish(r engine.Record) {
	for _, f := range a.finishHooks {
		f(r)
	}
}

// OnFinish adds a listener of finished executions. Call it before serving.
func (a *App) OnFinish(f func(engine.Record)) { a.finishHooks = append(a.finishHooks, f) }

// Ready reports whether the server can serve: the state store answers.
func (a *App) Ready(ctx context.Context) error {
	return a.Store.View(ctx, func(*store.Tx) error { return nil })
}
