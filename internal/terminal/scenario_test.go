package terminal

import (
	"context"
	"strings"
	"testing"
)

// TestAgentScenario is the definition of done: start a dev server, wait for it to be
// ready, run the tests in another session, watch both, interrupt one, close everything, and
// leave no process behind.
func TestAgentScenario(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx := context.Background()
	createSession(t, m, "agent", "dev")
	createSession(t, m, "agent", "tests")
	server := `sh -c 'sleep 0.2; echo "Listening on 127.0.0.1:8080"; while :; do sleep 0.1; echo request-served; done' ` + procArg("1005.5")
	out, err := m.Send(ctx, "agent", "dev", Input{Text: server, Wait: OutputQuery{WaitMS: testWait, WaitFor: `Listening on \S+`}})
	if err != nil || !out.Matched {
		t.Fatalf("start dev server: %+v, %v", out, err)
	}
	text, res := runIn(t, m, "agent", "tests", "for i in 1 2 3; do echo test-$i ok; done; echo FAIL test-4; (exit 1)")
	if !strings.Contains(text, "test-3 ok") || *res.ExitCode != 1 {
		t.Errorf("tests session: %q exit %d, want output and exit status 1", text, *res.ExitCode)
	}
	watch := waitFor(t, m, "agent", "dev", "request-served")
	if strings.Contains(watch, "test-1") {
		t.Errorf("dev session shows the tests' output: %q", watch)
	}
	out, err = m.Send(ctx, "agent", "dev", Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "agent", "dev", OutputQuery{WaitMS: testWait})
	}
	if err != nil || !out.Finished || out.ExitCode == nil || *out.ExitCode != 130 {
		t.Fatalf("interrupt dev server: %+v, %v; want exit status 130", out, err)
	}
	infos, err := m.List(ctx, "agent")
	if err != nil || len(infos) != 2 {
		t.Fatalf("List() = %+v, %v", infos, err)
	}
	for _, inf := range infos {
		if err := m.Close(ctx, "agent", inf.ID); err != nil {
			t.Errorf("Close(%s) = %v", inf.ID, err)
		}
	}
	waitNoProcs(t, procArg("1005.5"))
	waitNoProcs(t, m.rcFile()) // the shells themselves
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("zombies left: %v", z)
	}
}
