package engine

import (
	"context"
	"encoding/json"
	"testing"

	"toolhost/authz"
	"toolhost/store"
	"toolhost/store/storetest"
)

// TestCloseFinishesRunning: an execution still running when the engine closes is recorded as
// failed with CodeShutdown, so the history holds none that runs forever.
func TestCloseFinishesRunning(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := storetest.OpenWith(t, dir, store.Options{NoSync: true})
	e, err := Open(ctx, Options{StateDir: dir, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	_, x := e.Begin(ctx, Start{Tool: "t", Operation: "op", Category: authz.CategorySafe, Principal: "stdio", Conversation: "c1",
		Args: json.RawMessage(`{"operation":"op"}`)})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := openEngine(t, dir, Options{Store: st}).Get(ctx, admin, x.ID())
	if err != nil || got.Status != StatusFailed || got.ErrorCode != CodeShutdown {
		t.Errorf("Get(%s) after Close = %+v, %v; want failed with %s", x.ID(), got, err, CodeShutdown)
	}
}
