package authz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestTokensUpdate: a change of tier or rate is seen by the token's next Resolve, keeps what
// it does not name, is audited with who made it, and a refused change leaves the token as it was.
func TestTokensUpdate(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	ts := NewTokens(st)
	secret, _, err := ts.Create(ctx, "ci-bot", TierViewOnly, "60/min")
	if err != nil {
		t.Fatal(err)
	}
	tier := func(t Tier) *Tier { return &t }
	rate := func(s string) *string { return &s }
	cases := []struct {
		name    string
		token   string
		update  TokenUpdate
		want    Principal // what the token resolves to afterwards
		wantErr error
		errText string
	}{
		{name: "tier up", token: "ci-bot", update: TokenUpdate{Tier: tier(TierExecuteAdvanced)},
			want: Principal{Name: "ci-bot", Tier: TierExecuteAdvanced, Rate: "60/min"}},
		{name: "rate only", token: "ci-bot", update: TokenUpdate{Rate: rate("10/s")},
			want: Principal{Name: "ci-bot", Tier: TierExecuteAdvanced, Rate: "10/s"}},
		{name: "both, back to the default rate", token: "ci-bot", update: TokenUpdate{Tier: tier(TierExecuteBasic), Rate: rate("")},
			want: Principal{Name: "ci-bot", Tier: TierExecuteBasic}},
		{name: "nothing named", token: "ci-bot", update: TokenUpdate{},
			want: Principal{Name: "ci-bot", Tier: TierExecuteBasic}},
		{name: "unknown tier", token: "ci-bot", update: TokenUpdate{Tier: tier("root"), Rate: rate("1/s")}, errText: "unknown tier",
			want: Principal{Name: "ci-bot", Tier: TierExecuteBasic}},
		{name: "empty tier", token: "ci-bot", update: TokenUpdate{Tier: tier("")}, errText: "tier",
			want: Principal{Name: "ci-bot", Tier: TierExecuteBasic}},
		{name: "unknown token", token: "nobody", update: TokenUpdate{Tier: tier(TierAdmin)}, wantErr: ErrNoToken,
			want: Principal{Name: "ci-bot", Tier: TierExecuteBasic}},
		{name: "the serve token is not in the table", token: "default", update: TokenUpdate{Tier: tier(TierAdmin)}, wantErr: ErrNoToken,
			want: Principal{Name: "ci-bot", Tier: TierExecuteBasic}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, after, err := ts.Update(ctx, tc.token, tc.update, "console (test)")
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr), tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)):
				t.Fatalf("Update(%q, %+v) = %v, want %v%s", tc.token, tc.update, err, tc.wantErr, tc.errText)
			case tc.wantErr == nil && tc.errText == "" && err != nil:
				t.Fatalf("Update(%q, %+v) = %v", tc.token, tc.update, err)
			case err == nil && after.Principal() != tc.want:
				t.Errorf("Update(%q) returned %+v, want %+v", tc.token, after.Principal(), tc.want)
			}
			if p, err := ts.Resolve(ctx, secret); err != nil || p != tc.want {
				t.Errorf("Resolve after Update = %+v, %v, want %+v", p, err, tc.want)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(st.Dir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec AuditRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if rec.Event == "token_updated" {
			got = append(got, fmt.Sprintf("%s %s %s by %s", rec.Token, rec.Tier, rec.Rate, rec.By))
		}
	}
	want := []string{
		"ci-bot execute_advanced 60/min by console (test)",
		"ci-bot execute_advanced 10/s by console (test)",
		"ci-bot execute_basic  by console (test)",
		"ci-bot execute_basic  by console (test)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit records of token changes:\n%s\nwant (one per change that was made):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
