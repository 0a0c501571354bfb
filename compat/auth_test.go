//go:build compat

package compat

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWrongToken gives each agent CLI a wrong bearer token for toolhost serve. toolhost answers
// /mcp with 401 and error="invalid_token", and every other path, the OAuth discovery and
// registration endpoints included, with 404: a client finds no OAuth flow to start, gets nothing
// through, and carries on without the server instead of asking the user to log in.
func TestWrongToken(t *testing.T) {
	s := newSuite(t)
	sem := make(chan struct{}, envInt("COMPAT_PARALLEL", 3))
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			defer s.clientSlot(t, c, sem)()
			r := s.newRun(t, c, "http")
			r.mcp.Token = "wrong-" + r.mcp.Token
			args, env := c.setup(t, r)
			o := r.exec(t, args, env, envDuration("COMPAT_TIMEOUT", defaultRunTimeout))
			r.keepArtifacts(t, c.name+"/wrong-token", o)
			msgs, err := readLog(r.mcpLog)
			if err != nil {
				t.Fatal(err)
			}
			var unauthorized int
			var probed, got, challenges []string
			for _, m := range msgs {
				if m.Dir != "s2c" {
					continue
				}
				switch {
				case m.Path == "/mcp" && m.Status == 401:
					unauthorized++
					if !strings.Contains(m.Challenge, `error="invalid_token"`) {
						challenges = append(challenges, m.Challenge)
					}
				case m.Path != "/mcp":
					probed = append(probed, fmt.Sprintf("%s %s: %d", m.Method, m.Path, m.Status))
				}
				if m.Path != "/mcp" && m.Status != 404 || m.Status < 400 {
					got = append(got, fmt.Sprintf("%s %s: %d", m.Method, m.Path, m.Status))
				}
			}
			slices.Sort(probed)
			probed = slices.Compact(probed)
			said := "does not show the reason"
			if strings.Contains(o.stdout+o.stderr, "invalid_token") {
				said = "shows invalid_token"
			}
			t.Logf("%s: %d answers 401 on /mcp; other paths tried: %s; its output %s; exit %d", c.name, unauthorized, orNone(probed), said, o.exitCode)
			if unauthorized == 0 {
				t.Errorf("the client never reached toolhost's 401 (recorded answers: %d)", len(msgs))
			}
			if len(challenges) > 0 {
				t.Errorf("401 answers on /mcp without error=\"invalid_token\" in WWW-Authenticate: %q", challenges)
			}
			if len(got) > 0 {
				t.Errorf("with a wrong token, answers other than 401 on /mcp and 404 elsewhere: %v", got)
			}
			if o.timedOut {
				t.Errorf("the client hung on the wrong token (timed out after %s)", o.duration.Round(time.Second))
			}
		})
	}
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
