package consolidated

import (
	"regexp"
	"strings"
	"testing"

	"toolhost/authz/cmdrules"
	"toolhost/internal/golden"
)

// TestApprovalPlaceTexts pins what the model reads when a call waits for the user: where the
// user answers it, the console's page while `serve` hosts one, else the CLI. The texts are
// relayed to the user as they are, so both variants are goldens (TOOLHOST_GOLDEN=update).
func TestApprovalPlaceTexts(t *testing.T) {
	h := newCollabHarness(t, false)
	out := t.TempDir()
	id := regexp.MustCompile(`\br-[0-9a-z]+\b`)
	var b strings.Builder
	for _, tc := range []struct{ name, console string }{
		{"no console (stdio, or serve without one)", ""},
		{"serve with its console", "http://127.0.0.1:8765"},
	} {
		h.env.Approvals = &ApprovalPlace{}
		h.env.Approvals.SetConsole(tc.console)
		got, isErr, _ := h.call("user_collaboration", map[string]any{"operation": "request_authorization",
			"path": out + "/report.txt", "access": "file_operations:write", "reason": "write the report"})
		if isErr {
			t.Fatalf("%s: request_authorization: %s", tc.name, got)
		}
		rid := id.FindString(got)
		checked, _, _ := h.call("user_collaboration", map[string]any{"operation": "check_request", "request_id": rid})
		if checked != got {
			t.Errorf("%s: check_request of a pending request says\n%s\nwhere request_authorization said\n%s", tc.name, checked, got)
		}
		refusal := refusalError(&cmdrules.Refusal{Verdict: cmdrules.Verdict{Action: cmdrules.Ask, Command: "git push", Rule: "ask git push", Reason: "the rule ask git push"}, Line: "git push", RequestID: rid})
		refusal.place = h.env.Approvals
		if tc.console != "" && (!strings.Contains(got, tc.console+"/#req-"+rid) || !strings.Contains(refusal.Error(), tc.console+"/#req-"+rid)) {
			t.Errorf("%s: the texts do not link the request on the console:\n%s\n%s", tc.name, got, refusal.Error())
		}
		norm := func(s string) string { return strings.ReplaceAll(id.ReplaceAllString(s, "r-ID"), out, "$OUT") }
		b.WriteString("## " + tc.name + "\n### request_authorization, and check_request while pending\n" + norm(got) +
			"\n### terminal_operations, a command rule asks\n" + norm(refusal.Error()) + "\n\n")
	}
	golden.CheckString(t, "testdata/user_collaboration/pending.txt", b.String())
}
