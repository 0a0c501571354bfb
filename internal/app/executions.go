package app

import (
	"context"
	"fmt"

	"toolhost/authz"
	"toolhost/internal/engine"
	"toolhost/store"
)

// openExecutions starts the execution engine on the state directory (replaying what dead
// processes left) and the rate limits of the configuration.
func (a *App) openExecutions(ctx context.Context) error {
	cfg := a.Config
	e, err := engine.Open(ctx, engine.Options{
		StateDir: a.StateDir, Store: a.Store, Logger: a.Logger,
		MaxRecords: cfg.Executions.MaxRecords, MaxAge: cfg.Executions.MaxAge.Duration,
		OnFinish: a.onFinish,
	})
	if err != nil {
		// A read-only or full state directory must not stop file and terminal work: the
		// server runs without history, and the history commands say why.
		a.Logger.Warn("execution history is off: the engine cannot open its state", "err", err)
		a.ExecutionsErr = err
	} else {
		a.Executions = e
		a.closers = append(a.closers, e.Close)
	}
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
	a.StdioPrincipal = authz.StdioPrincipal
	if t := cfg.Stdio.Tier; t != "" {
		tier, err := authz.ParseTier(t)
		if err != nil {
			return fmt.Errorf("stdio.tier: %w", err)
		}
		a.StdioPrincipal.Tier = tier
	}
	return nil
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
