package authz

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"toolhost/store"
)

// TestOneTimeGrantAcrossProcesses: toolhost processes sharing one state directory race for a
// one-time grant; exactly one of them gets it.
func TestOneTimeGrantAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	f := newFixture(t, func(c *Config) { c.Clock = Clock{} }) // system clocks, shared with the children
	target := f.out + "/shared-once"
	if _, err := f.g.CreateGrant(context.Background(), GrantSpec{Access: "file_operations.create_file", Path: target, Once: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	const n = 6
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		outs []string
	)
	for range n {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUseGrant$")
			cmd.Env = append(os.Environ(), "AUTHZ_HELPER_STATE="+f.state, "AUTHZ_HELPER_WD="+f.wd, "AUTHZ_HELPER_TARGET="+target)
			out, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("helper: %v\n%s", err, out)
			}
			outs = append(outs, string(out))
		})
	}
	wg.Wait()
	allowed := 0
	for _, o := range outs {
		if strings.Contains(o, "RESULT allowed") {
			allowed++
		} else if !strings.Contains(o, "RESULT outside_workdir") {
			t.Errorf("helper output without a result: %s", o)
		}
	}
	if allowed != 1 {
		t.Errorf("%d processes used a one-time grant, want exactly 1", allowed)
	}
}

// TestHelperUseGrant is the child of TestOneTimeGrantAcrossProcesses.
func TestHelperUseGrant(t *testing.T) {
	state := os.Getenv("AUTHZ_HELPER_STATE")
	if state == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := New(ctx, Config{WorkDir: os.Getenv("AUTHZ_HELPER_WD"), Store: st, HomeDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, err = g.Check(ctx, req(ClassWrite, "create_file", os.Getenv("AUTHZ_HELPER_TARGET")))
	if d, ok := AsDenial(err); ok {
		fmt.Println("RESULT", d.Code)
	} else if err != nil {
		t.Fatal(err)
	} else {
		fmt.Println("RESULT allowed")
	}
}
