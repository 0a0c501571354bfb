package authz

import (
	"context"
	"errors"
	"strings"
	"testing"

	"toolhost/store/storetest"
)

func TestTokens(t *testing.T) {
	ctx := context.Background()
	ts := NewTokens(storetest.Open(t))
	secret, tok, err := ts.Create(ctx, "ci-bot", TierExecuteBasic, "60/min")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "th_") || len(secret) != 51 || tok.Hash != HashToken(secret) || strings.Contains(tok.Hash, secret) {
		t.Errorf("Create = %q, %+v", secret, tok)
	}
	p, err := ts.Resolve(ctx, secret)
	if err != nil || p != (Principal{Name: "ci-bot", Tier: TierExecuteBasic, Rate: "60/min"}) {
		t.Errorf("Resolve = %+v, %v", p, err)
	}
	bad := []struct {
		name, tokName string
		tier          Tier
		want          string
	}{
		{"duplicate", "ci-bot", TierAdmin, "exists"},
		{"reserved stdio", "stdio", TierAdmin, "reserved"},
		{"reserved default", "default", TierAdmin, "reserved"},
		{"empty", "", TierAdmin, "token name"},
		{"slash", "a/b", TierAdmin, "token name"},
		{"leading dot", ".x", TierAdmin, "token name"},
		{"unknown tier", "x", "root", "unknown tier"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := ts.Create(ctx, tt.tokName, tt.tier, ""); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Create(%q, %q) = %v, want an error with %q", tt.tokName, tt.tier, err, tt.want)
			}
		})
	}
	for _, guess := range []string{"", "th_", secret + "x", strings.ToUpper(secret), secret[:len(secret)-1]} {
		if _, err := ts.Resolve(ctx, guess); !errors.Is(err, ErrBadToken) {
			t.Errorf("Resolve(%q) = %v, want ErrBadToken", guess, err)
		}
	}
	list, err := ts.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "ci-bot" {
		t.Errorf("List = %+v, %v", list, err)
	}
	if err := ts.Revoke(ctx, "nobody"); !errors.Is(err, ErrNoToken) {
		t.Errorf("Revoke(nobody) = %v, want ErrNoToken", err)
	}
	if err := ts.Revoke(ctx, "ci-bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Resolve(ctx, secret); !errors.Is(err, ErrBadToken) {
		t.Errorf("Resolve(revoked) = %v, want ErrBadToken", err)
	}
	if _, _, err := ts.Create(ctx, "ci-bot", TierAdmin, ""); err != nil {
		t.Errorf("Create after revoke = %v", err)
	}
}
