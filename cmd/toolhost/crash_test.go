package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/owner"
)

// crashFiles is how many files the crash test's patch touches: most are updated, a few added in
// new directories and a few deleted.
const (
	crashFiles   = 300
	crashAdds    = 5
	crashDeletes = 5
)

func crashOld(i int) string { return fmt.Sprintf("first line\nvalue %d\nlast line\n", i) }
func crashNew(i int) string { return fmt.Sprintf("first line\nVALUE %d\nlast line\n", i) }

// crashPatch is one envelope that touches crashFiles files.
func crashPatch() string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	updates := crashFiles - crashAdds - crashDeletes
	for i := range updates {
		fmt.Fprintf(&b, "*** Update File: f%03d.txt\n first line\n-value %d\n+VALUE %d\n", i, i, i)
	}
	for i := range crashDeletes {
		fmt.Fprintf(&b, "*** Delete File: f%03d.txt\n", updates+i)
	}
	for i := range crashAdds {
		fmt.Fprintf(&b, "*** Add File: new/d%d/added.txt\n+added %d\n", i, i)
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// crashState reads the working directory and says whether it is entirely before the patch,
// entirely after it, or a mix (with what differs), and lists leftover temporary files.
func crashState(t *testing.T, work string) (state string, temps []string) {
	t.Helper()
	updates := crashFiles - crashAdds - crashDeletes
	old, applied := 0, 0
	var odd []string
	read := func(name string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(work, name))
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	for i := range updates + crashDeletes {
		name := fmt.Sprintf("f%03d.txt", i)
		got, ok := read(name)
		switch {
		case i < updates && ok && got == crashOld(i), i >= updates && ok && got == crashOld(i):
			old++
		case i < updates && ok && got == crashNew(i), i >= updates && !ok:
			applied++
		default:
			odd = append(odd, fmt.Sprintf("%s=%q", name, got))
		}
	}
	for i := range crashAdds {
		name := fmt.Sprintf("new/d%d/added.txt", i)
		got, ok := read(name)
		switch {
		case !ok:
			old++
		case got == fmt.Sprintf("added %d\n", i):
			applied++
		default:
			odd = append(odd, fmt.Sprintf("%s=%q", name, got))
		}
	}
	filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".toolhost-tmp-") {
			temps = append(temps, p)
		}
		return nil
	})
	switch {
	case len(odd) > 0:
		return fmt.Sprintf("corrupt: %v", odd), temps
	case applied == 0:
		return "none", temps
	case old == 0:
		return "all", temps
	}
	return fmt.Sprintf("mixed: %d applied, %d not", applied, old), temps
}

// TestApplyPatchSurvivesSIGKILL kills the real binary with SIGKILL at random points of a
// 300-file apply_patch, many times, and restarts it on the same state directory: every time,
// either the whole patch is on disk or none of it, and no temporary file or journal record is
// left. The kill point is random: a delay after the call is sent, or a delay after the journal
// logs that the transaction's intent or commit record is written (debug log on stderr), so
// kills land before, during the writing of temporary files, and during the renames.
func TestApplyPatchSurvivesSIGKILL(t *testing.T) {
	runs := 60
	if testing.Short() {
		runs = 10
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	patch := crashPatch()
	outcomes := map[string]int{}
	for run := range runs {
		state, work := t.TempDir(), t.TempDir()
		for i := range crashFiles - crashAdds {
			if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("f%03d.txt", i)), []byte(crashOld(i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		trigger := []string{"sent", "state=intent", "state=commit"}[rng.IntN(3)]
		delay := time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
		if trigger == "sent" {
			delay = time.Duration(rng.Int64N(int64(150 * time.Millisecond)))
		}
		answered := killDuringPatch(t, state, work, patch, trigger, delay)
		// What the kill interrupted, for the log: the files' state and the journal record's.
		pre, _ := crashState(t, work)
		if strings.HasPrefix(pre, "mixed") {
			pre = "mixed"
		}
		left := "no record"
		if entries, _ := os.ReadDir(filepath.Join(state, "journal")); len(entries) > 0 {
			for _, e := range entries {
				if e.Name() != "recover.lock" {
					left = "record " + filepath.Ext(e.Name())[1:]
				}
			}
		}

		// Restart on the same state: opening the app recovers the journal.
		out, err := commandIn(t, state, work, "call", "file_operations", `{"operation":"list_dir","path":"."}`).CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: restart after SIGKILL: %v\n%s", run, err, out)
		}
		got, temps := crashState(t, work)
		if got != "none" && got != "all" {
			t.Fatalf("run %d (kill %v after %s): files are %s; journal at the kill: %s; the restart said:\n%s", run, delay, trigger, got, left, out)
		}
		if answered && got != "all" {
			t.Fatalf("run %d: the patch was reported applied, but after the restart the files are %s", run, got)
		}
		if len(temps) > 0 {
			t.Fatalf("run %d (kill %v after %s; files %s, %s at the kill): %d temporary files left after the restart, %q first\nthe restart's output:\n%s", run, delay, trigger, pre, left, len(temps), temps[0], out)
		}
		entries, _ := os.ReadDir(filepath.Join(state, "journal"))
		for _, e := range entries {
			if e.Name() != "recover.lock" {
				t.Fatalf("run %d: journal record left after the restart: %s", run, e.Name())
			}
		}
		outcomes[fmt.Sprintf("%s: %s, %s -> %s", trigger, pre, left, got)]++
	}
	t.Logf("over %d kills (trigger: files and journal at the kill -> files after the restart):", runs)
	for k, n := range outcomes {
		t.Logf("  %3d  %s", n, k)
	}
}

// killDuringPatch starts `toolhost stdio`, sends the patch as an apply_patch call and kills the
// process with SIGKILL delay after trigger. It reports whether the call was answered (as applied)
// before the kill.
func killDuringPatch(t *testing.T, state, work, patch, trigger string, delay time.Duration) bool {
	t.Helper()
	cmd := commandIn(t, state, work, "stdio", "--log-level", "debug")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	logs := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default:
			}
		}
		close(logs)
	}()
	answers := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	send := func(v any) {
		b, _ := json.Marshal(v)
		io.WriteString(stdin, string(b)+"\n")
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "crash", "version": "1"}}})
	select {
	case <-answers:
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to initialize")
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "file_operations", "arguments": map[string]any{"operation": "apply_patch", "patch": patch}}})
	answered := false
	deadline := time.After(time.Minute)
	if trigger != "sent" {
	wait:
		for {
			select {
			case l, ok := <-logs:
				if !ok {
					break wait
				}
				if strings.Contains(l, "edit journal") && strings.Contains(l, trigger) {
					break wait
				}
			case a := <-answers:
				// Finished before the trigger was seen (the log line was dropped, say).
				answered = strings.Contains(a, `"id":2`) && strings.Contains(a, "applied patch")
				break wait
			case <-deadline:
				t.Fatalf("no %q in the log within a minute", trigger)
			}
		}
	}
	time.Sleep(delay)
	cmd.Process.Kill()
	for a := range answers {
		if strings.Contains(a, `"id":2`) && strings.Contains(a, "applied patch") {
			answered = true
		}
	}
	return answered
}

// TestJournalRecoveredBeforeFirstCall: a server holds its edit journal recovery back until it
// has answered tools/list (internal/app/startup.go), yet a call that comes first must still find
// the journal recovered. A process that died after committing a write left it half done (the
// new content in its temporary file, the record in state "commit"); the fresh server's first
// request, before any tools/list, reads the file and must see the write finished.
func TestJournalRecoveredBeforeFirstCall(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	work, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	const temp = ".toolhost-tmp-dead-1"
	for name, content := range map[string]string{"a.txt": "old content\n", temp: "new content\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	self := owner.Self()
	dead := owner.ID{PID: self.PID, Start: self.Start + 1, Boot: self.Boot} // this pid, another start
	if owner.Alive(dead) {
		t.Fatal("no /proc: a dead owner cannot be told from a live one here")
	}
	rec, _ := json.Marshal(map[string]any{"v": 1, "root": work, "ops": []map[string]any{{"op": "write", "path": "a.txt", "temp": temp}}})
	journal := filepath.Join(state, "journal")
	if err := os.MkdirAll(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(journal, dead.String()+"-1.commit"), rec, 0o600); err != nil {
		t.Fatal(err)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "file_operations",
		Arguments: map[string]any{"operation": "read_file", "path": "a.txt"}})
	if err != nil || res.IsError {
		t.Fatalf("read_file: %v %v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "new content") {
		t.Errorf("first call read %q, want the recovered write (new content)", got)
	}
	if _, err := os.Stat(filepath.Join(journal, dead.String()+"-1.commit")); !os.IsNotExist(err) {
		t.Errorf("journal record left after the first call: %v", err)
	}
}
