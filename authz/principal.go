package authz

import (
	"context"
	"fmt"
	"slices"
)

// A Principal is who is calling: the user who started a stdio server, or a named HTTP client
// token. It is chosen by the transport from the credential the request carried, never from
// anything a model can put into arguments. Conversations, executions and rate limits are kept per
// principal.
type Principal struct {
	// Name is "stdio" for the local process's user, or the token's name.
	Name string `json:"name"`
	// Tier decides which risk categories the principal may call.
	Tier Tier `json:"tier"`
	// Rate is the principal's own rate limit ("60/min"; empty: the configured default).
	Rate string `json:"rate,omitempty"`
}

// StdioPrincipal is the principal of a stdio server: the user who started it, with full power
// unless configuration lowers its tier.
var StdioPrincipal = Principal{Name: "stdio", Tier: TierAdmin}

// Tier is a permission level over the risk categories of operations.
type Tier string

const (
	// TierViewOnly may read execution history and metrics and call no tool.
	TierViewOnly Tier = "view_only"
	// TierExecuteBasic may call safe and moderate operations.
	TierExecuteBasic Tier = "execute_basic"
	// TierExecuteAdvanced may call every operation.
	TierExecuteAdvanced Tier = "execute_advanced"
	// TierAdmin may call every operation and see and cancel every principal's executions.
	TierAdmin Tier = "admin"
)

// Tiers lists the tiers from least to most power.
var Tiers = []Tier{TierViewOnly, TierExecuteBasic, TierExecuteAdvanced, TierAdmin}

// ParseTier accepts a tier's name.
func ParseTier(s string) (Tier, error) {
	t := Tier(s)
	if !slices.Contains(Tiers, t) {
		return "", fmt.Errorf("unknown tier %q: want view_only, execute_basic, execute_advanced or admin", s)
	}
	return t, nil
}

// Category is the risk category an operation declares: what calling it can cost the user.
type Category string

const (
	// CategorySafe operations only read.
	CategorySafe Category = "safe"
	// CategoryModerate operations change toolhost's own state or talk to the network.
	CategoryModerate Category = "moderate"
	// CategoryDangerous operations write the user's files, run programs or prompt the user.
	CategoryDangerous Category = "dangerous"
)

// Allows reports whether a principal of tier t may call an operation of category c.
func (t Tier) Allows(c Category) bool {
	switch t {
	case TierAdmin, TierExecuteAdvanced:
		return true
	case TierExecuteBasic:
		return c == CategorySafe || c == CategoryModerate
	}
	return false
}

// Least returns the lowest tier that may call an operation of category c, for "needs tier X"
// messages.
func Least(c Category) Tier {
	for _, t := range Tiers {
		if t.Allows(c) {
			return t
		}
	}
	return TierAdmin
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p. Only transports call it.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
