package authz

import (
	"context"
	"testing"
)

func TestTierAllows(t *testing.T) {
	tests := []struct {
		tier Tier
		cat  Category
		want bool
	}{
		{TierViewOnly, CategorySafe, false},
		{TierViewOnly, CategoryDangerous, false},
		{TierExecuteBasic, CategorySafe, true},
		{TierExecuteBasic, CategoryModerate, true},
		{TierExecuteBasic, CategoryDangerous, false},
		{TierExecuteAdvanced, CategoryDangerous, true},
		{TierAdmin, CategoryDangerous, true},
		{Tier("root"), CategorySafe, false},
	}
	for _, tt := range tests {
		if got := tt.tier.Allows(tt.cat); got != tt.want {
			t.Errorf("%s.Allows(%s) = %v, want %v", tt.tier, tt.cat, got, tt.want)
		}
	}
	if got := Least(CategoryDangerous); got != TierExecuteAdvanced {
		t.Errorf("Least(dangerous) = %s, want execute_advanced", got)
	}
	if _, err := ParseTier("superuser"); err == nil {
		t.Error("ParseTier(superuser) accepted an unknown tier")
	}
}

func TestPrincipalContext(t *testing.T) {
	if _, ok := PrincipalFrom(context.Background()); ok {
		t.Fatal("PrincipalFrom(empty context) found a principal")
	}
	ctx := WithPrincipal(context.Background(), Principal{Name: "ci", Tier: TierExecuteBasic})
	if p, ok := PrincipalFrom(ctx); !ok || p.Name != "ci" || p.Tier != TierExecuteBasic {
		t.Errorf("PrincipalFrom = %+v, %v", p, ok)
	}
}
