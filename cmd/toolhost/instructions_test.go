package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestStandingInstructionsCLI: the model stores an instruction (through the real binary's call
// command), the next tool result repeats it in a reminder, the user lists it and removes it
// from the CLI, and the removal is told to the model once.
func TestStandingInstructionsCLI(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := cli(t, state, work, args...)
		if err != nil {
			t.Fatalf("toolhost %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
		}
		return out
	}
	out := run("call", "memory_operations", `{"operation":"store_memory","kind":"instruction","content":"Always run the tests before committing.","user_words":"please always run the tests before you commit"}`)
	m := regexp.MustCompile(`Stored standing instruction (\d+) for this project`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("store instruction = %q", out)
	}
	id := m[1]
	out = run("call", "think", `{"thoughts":"next step"}`)
	if !strings.Contains(out, "Standing instructions from the user") || !strings.Contains(out, "Always run the tests before committing. [project]") {
		t.Errorf("the next result lacks the instruction reminder:\n%s", out)
	}
	out = run("memory", "instructions")
	if !strings.Contains(out, id+"\t") || !strings.Contains(out, "Always run the tests before committing.") ||
		!strings.Contains(out, `you said: "please always run the tests before you commit"`) {
		t.Errorf("memory instructions =\n%s", out)
	}
	out, errOut, _ := cli(t, state, work, "call", "memory_operations", `{"operation":"store_memory","kind":"instruction","content":"Never push."}`)
	if !strings.Contains(out+errOut, "user_words") {
		t.Errorf("an instruction without the user's words = %q %q, want an error naming user_words", out, errOut)
	}
	out = run("memory", "forget", id)
	if !strings.Contains(out, "removed standing instruction "+id) {
		t.Errorf("memory forget = %q", out)
	}
	if out = run("memory", "instructions"); !strings.Contains(out, "no standing instructions") {
		t.Errorf("memory instructions after forget = %q", out)
	}
	out = run("call", "think", `{"thoughts":"again"}`)
	if !strings.Contains(out, "removed the standing instructions") {
		t.Errorf("the result after removal does not say so:\n%s", out)
	}
	if _, _, err := cli(t, state, work, "memory", "forget", "abc"); err == nil {
		t.Error("memory forget abc succeeded, want an error")
	}
}
