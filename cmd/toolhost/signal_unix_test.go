//go:build unix

package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestNotifyContext: once handled closes, the signal cancels the context; stop right away,
// perhaps before the handlers are in place, returns and cancels it.
func TestNotifyContext(t *testing.T) {
	ctx, stop, handled := notifyContext(context.Background(), syscall.SIGUSR1)
	defer stop()
	<-handled
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGUSR1 did not cancel the context")
	}

	ctx, stop, _ = notifyContext(context.Background(), syscall.SIGUSR2)
	stop()
	if ctx.Err() == nil {
		t.Error("stop left the context running")
	}
}
