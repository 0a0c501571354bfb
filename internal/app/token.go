package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"toolhost/authz"
	"toolhost/internal/engine"
)

func randomToken() string {
	var b [24]byte
	rand.Read(b[:])
	return "th_" + hex.EncodeToString(b[:])
}

// TokenChange is an operator's change of a client token: an empty field keeps its value, and
// Rate "default" returns the token to the [limits] per_principal rate.
type TokenChange struct {
	Tier, Rate string
}

// UpdateToken changes a client token's tier or rate; the CLI (`toolhost token update`) and the
// console share it. The change is one store transaction with an audit record naming by, and
// the token's next request resolves to the new tier and rate in every process on the state
// directory. Connected clients are told the tool list changed, so the token's client fetches
// the list its new tier shows. Callers make sure the operator asked: nothing a model can
// call reaches this.
func (a *App) UpdateToken(ctx context.Context, name string, ch TokenChange, by string) (authz.Token, error) {
	if a.Tokens == nil {
		return authz.Token{}, fmt.Errorf("client tokens are unavailable in this state directory: %w", a.ExecutionsErr)
	}
	var u authz.TokenUpdate
	if ch.Tier != "" {
		t, err := authz.ParseTier(ch.Tier)
		if err != nil {
			return authz.Token{}, fmt.Errorf("tier: %w", err)
		}
		u.Tier = &t
	}
	switch ch.Rate {
	case "":
	case "default":
		u.Rate = new(string)
	default:
		r, err := engine.ParseRate(ch.Rate)
		if err != nil {
			return authz.Token{}, fmt.Errorf("rate: %w", err)
		}
		rate := ""
		if !r.Unlimited() {
			rate = r.String()
		}
		u.Rate = &rate
	}
	if u.Tier == nil && u.Rate == nil {
		return authz.Token{}, errors.New("nothing to change: give a tier or a rate")
	}
	_, after, err := a.Tokens.Update(ctx, name, u, by)
	if err != nil {
		return after, err
	}
	a.Logger.Info("client token changed", "token", after.Name, "tier", after.Tier, "rate", after.Rate, "by", by)
	a.switchMu.Lock()
	for _, s := range a.servers {
		a.Registry.Sync(s)
	}
	a.switchMu.Unlock()
	return after, nil
}
