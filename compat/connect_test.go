//go:build compat

package compat

import (
	"fmt"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// connectScript is what the model does with a client `toolhost connect` connected: read a file
// and run a command.
func connectScript(m string) []Step {
	return script(m)[:2]
}

// TestConnectedClients runs each agent CLI of the suite that `toolhost connect` knows on the
// entry connect wrote into the client's own config, where the client reads it (under the run's
// HOME): connect edits the client's config as the setup left it (replacing the suite's own
// entry where the setup writes one), and the model must get the file's contents and the
// command's output from the toolhost connect named. Clients connect does not know say so.
func TestConnectedClients(t *testing.T) {
	s := newSuite(t)
	known := knownFailures(t)
	sem := make(chan struct{}, envInt("COMPAT_PARALLEL", 3))
	timeout := envDuration("COMPAT_TIMEOUT", defaultRunTimeout)
	names := map[string]string{"claude-code": "claude-code", "codex": "codex", "opencode": "opencode", "qwen-code": "qwen-code",
		"cline": "cline", "kilo": "kilo", "continue": "continue", "copilot": "copilot"}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			target, ok := names[c.name]
			if !ok {
				t.Skipf("toolhost connect does not write %s's config (%s is retired)", c.name, c.name)
			}
			t.Parallel()
			defer s.clientSlot(t, c, sem)()
			r := &run{fixture: s.newToolhost(t, "stdio"), suite: s, client: c, connected: true}
			r.model = &Model{Script: connectScript(r.marker), Final: "compat-done " + r.marker}
			ms := httptest.NewServer(r.model)
			t.Cleanup(ms.Close)
			r.modelURL = ms.URL
			r.prompt = "Run the toolhost compatibility script " + r.marker + "."
			args, env := c.setup(t, r)

			// toolhost connect, in the client's environment, with the fixture's toolhost flags.
			cmd := exec.Command(s.toolhost, "--workdir", r.work, "--state-dir", filepath.Join(r.dir, "state"), "--config", r.config, "connect", target)
			cmd.Env = append(s.baseEnv(r.home, r.network), env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("toolhost connect %s: %v\n%s", target, err, out)
			}
			t.Logf("toolhost connect %s: %s", target, strings.TrimSpace(string(out)))

			o := r.exec(t, args, env, timeout)
			r.keepArtifacts(t, "connect/"+c.name, o)
			var last *Request
			for _, q := range o.requests {
				if q.main() {
					last = q
				}
			}
			var got []string
			if last != nil {
				for _, res := range last.Results {
					got = append(got, res.Text())
				}
			}
			all := strings.Join(got, "\n")
			// The suite's own entry (through the recorder) must not be what served the calls.
			viaSetup := len(o.session.Calls)
			ok = last != nil && strings.Contains(all, "file-marker-"+r.marker) && strings.Contains(all, "echo-marker-42-"+r.marker) && viaSetup == 0
			judge(t, known, c.name+"/connect reached", ok, fmt.Sprintf("on the entry toolhost connect wrote (%s), the model did not get the file and the command's output (calls through the suite's own entry: %d): exit %d, %d requests, results %s; stderr %s",
				strings.TrimSpace(string(out)), viaSetup, o.exitCode, len(o.requests), excerpt(all, 300), tail(o.stderr, 500)))
		})
	}
}
