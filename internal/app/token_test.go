package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// TestUpdateToken: the change the CLI and the console share parses the tier and rate, keeps
// what it is not given, refuses what it cannot apply with the token unchanged, and tells
// connected clients that the tool list changed (a tier decides what tools/list shows).
func TestUpdateToken(t *testing.T) {
	a := testApp(t)
	ctx := context.Background()
	secret, _, err := a.Tokens.Create(ctx, "ci-bot", authz.TierViewOnly, "60/min")
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 16)
	connect(t, a, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}, "2025-06-18")
	cases := []struct {
		name    string
		token   string
		change  TokenChange
		want    authz.Principal
		wantErr string
	}{
		{name: "tier only keeps the rate", token: "ci-bot", change: TokenChange{Tier: "execute_basic"},
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierExecuteBasic, Rate: "60/min"}},
		{name: "rate in another spelling", token: "ci-bot", change: TokenChange{Rate: "10/second"},
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierExecuteBasic, Rate: "10/s"}},
		{name: "default rate", token: "ci-bot", change: TokenChange{Tier: "admin", Rate: "default"},
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierAdmin}},
		{name: "unknown tier", token: "ci-bot", change: TokenChange{Tier: "root", Rate: "1/s"}, wantErr: "tier",
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierAdmin}},
		{name: "bad rate", token: "ci-bot", change: TokenChange{Tier: "view_only", Rate: "fast"}, wantErr: "rate",
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierAdmin}},
		{name: "nothing to change", token: "ci-bot", wantErr: "nothing to change",
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierAdmin}},
		{name: "unknown token", token: "nobody", change: TokenChange{Tier: "admin"}, wantErr: authz.ErrNoToken.Error(),
			want: authz.Principal{Name: "ci-bot", Tier: authz.TierAdmin}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.UpdateToken(ctx, tc.token, tc.change, "cli (test)")
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("UpdateToken(%q, %+v) = %v, want error %q", tc.token, tc.change, err, tc.wantErr)
			}
			if p, err := a.Tokens.Resolve(ctx, secret); err != nil || p != tc.want {
				t.Errorf("token afterwards = %+v, %v; want %+v", p, err, tc.want)
			}
		})
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Error("no notifications/tools/list_changed after a tier change")
	}
	a.Tokens = nil
	if _, err := a.UpdateToken(ctx, "ci-bot", TokenChange{Tier: "admin"}, "cli"); err == nil || errors.Is(err, authz.ErrNoToken) {
		t.Errorf("UpdateToken without a token table = %v", err)
	}
}
