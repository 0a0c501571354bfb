package terminal

import "testing"

func TestSmoke(t *testing.T) {
	m := newTestManager(t, Config{})
	inf := createSession(t, m, "c1", "main")
	t.Logf("info %+v", inf)
	text, out := runIn(t, m, "c1", "main", "echo hello; false")
	t.Logf("text %q out %+v", text, out)
	scr, _ := m.Screen("c1", "main")
	t.Logf("screen %q", scr)
}
