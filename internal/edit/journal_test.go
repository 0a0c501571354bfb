package edit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/owner"
)

// crashTree is the tree the crash tests edit, and crashPlan the edit: updates, an add in new
// directories, a delete and a move, so every kind of step can be interrupted.
var crashTree = map[string]string{
	"a.txt":     "alpha\n",
	"b/b.txt":   "beta\n",
	"del.txt":   "delete me\n",
	"mv.txt":    "move me\n",
	"keep.txt":  "untouched\n",
	"same.txt":  "same\n",
	"b/c/c.txt": "gamma\n",
}

func crashPlan() *Plan {
	return &Plan{Changes: []Change{
		{Op: OpUpdate, Path: "a.txt", Old: []byte("alpha\n"), New: []byte("ALPHA\n")},
		{Op: OpAdd, Path: "new/dir/n.txt", New: []byte("new\n")},
		{Op: OpUpdate, Path: "b/b.txt", Old: []byte("beta\n"), New: []byte("BETA\n")},
		{Op: OpDelete, Path: "del.txt", Old: []byte("delete me\n")},
		{Op: OpMove, Path: "mv.txt", NewPath: "moved/mv.txt", Old: []byte("move me\n"), New: []byte("moved\n")},
		{Op: OpUpdate, Path: "same.txt", Old: []byte("same\n"), New: []byte("same\n")},
		{Op: OpUpdate, Path: "b/c/c.txt", Old: []byte("gamma\n"), New: []byte("GAMMA\n")},
	}}
}

// crashAfter is the tree once crashPlan is committed.
func crashAfter() map[string]string {
	return map[string]string{
		"a.txt": "ALPHA\n", "b/": "", "b/b.txt": "BETA\n", "b/c/": "", "b/c/c.txt": "GAMMA\n",
		"keep.txt": "untouched\n", "same.txt": "same\n", "new/": "", "new/dir/": "", "new/dir/n.txt": "new\n",
		"moved/": "", "moved/mv.txt": "moved\n",
	}
}

// deadOwner is an owner ID that is certainly not running: this pid with another start time.
func deadOwner(t *testing.T) owner.ID {
	t.Helper()
	self := owner.Self()
	id := owner.ID{PID: self.PID, Start: self.Start + 1, Boot: self.Boot}
	if owner.Alive(id) {
		t.Skip("no /proc: a dead owner cannot be told from a live one here")
	}
	return id
}

// journalRecords lists the transaction records in dir.
func journalRecords(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != recoverLock {
			out = append(out, e.Name())
		}
	}
	return out
}

type crash struct{ step string }

// commitCrashing commits p and reports whether the journal hook crashed it (a panic of type
// crash, standing for the process dying at that step) and otherwise its error.
func commitCrashing(p *Plan, root *os.Root, j *Journal) (crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	return false, p.Commit(context.Background(), root, j)
}

// recoverInto opens jdir as the next process would and checks that dir then holds want and the
// journal no record.
func recoverInto(t *testing.T, jdir, dir string, want map[string]string, what string) Recovery {
	t.Helper()
	next, rep, err := OpenJournal(jdir, nil)
	if err != nil {
		t.Fatalf("recovery: %v", err)
	}
	if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
		t.Errorf("%s, files (-want +got):\n%s", what, diff)
	}
	if left := journalRecords(t, next.Dir()); len(left) > 0 {
		t.Errorf("%s, records left: %q", what, left)
	}
	return rep
}

// TestJournalCrashAtEveryStep interrupts a commit after each of its steps, as a SIGKILL or a
// power loss there would (the process stops; nothing of it runs again), then opens the journal as
// the next process does. Every file must be as before or every file as after, by the commit point,
// with no temporary file and no record left.
func TestJournalCrashAtEveryStep(t *testing.T) {
	dead := deadOwner(t)
	// Learn the steps from a commit that runs to the end.
	var steps []string
	{
		root, _ := openRoot(t, crashTree)
		j := &Journal{dir: t.TempDir(), owner: dead, logger: discard(), hook: func(s string) { steps = append(steps, s) }}
		if err := crashPlan().Commit(context.Background(), root, j); err != nil {
			t.Fatal(err)
		}
	}
	if len(steps) < 10 {
		t.Fatalf("a commit of %d changes has only steps %q", len(crashPlan().Changes), steps)
	}
	committedAt := -1
	for i, s := range steps {
		if s == "commit" {
			committedAt = i
		}
	}
	for i, step := range steps {
		t.Run(fmt.Sprintf("%02d %s", i, step), func(t *testing.T) {
			root, dir := openRoot(t, crashTree)
			before := snapshot(t, dir)
			jdir := t.TempDir()
			n := 0
			j := &Journal{dir: jdir, owner: dead, logger: discard(), hook: func(s string) {
				if n == i {
					panic(crash{s})
				}
				n++
			}}
			if crashed, err := commitCrashing(crashPlan(), root, j); !crashed {
				t.Fatalf("the commit ran past the crash point: %v", err)
			}
			want := before
			if i >= committedAt {
				want = crashAfter()
			}
			recoverInto(t, jdir, dir, want, fmt.Sprintf("after a crash at %q and recovery", step))
		})
	}
}

// TestJournalApplyFailureRollsBack makes a rename fail halfway through the apply step (its
// temporary file vanishes) and checks that the live process undoes the renames already done.
// A crash during that undo is finished by the next process.
func TestJournalApplyFailureRollsBack(t *testing.T) {
	dead := deadOwner(t)
	for _, crashInAbort := range []bool{false, true} {
		t.Run(fmt.Sprintf("crash during rollback %v", crashInAbort), func(t *testing.T) {
			root, dir := openRoot(t, crashTree)
			before := snapshot(t, dir)
			jdir := t.TempDir()
			var sabotaged bool
			j := &Journal{dir: jdir, owner: dead, logger: discard()}
			j.hook = func(s string) {
				if strings.HasPrefix(s, "apply ") && !sabotaged {
					// Remove the temporary file of the third write, so its rename fails.
					sabotaged = true
					entries, _ := os.ReadDir(filepath.Join(dir, "b"))
					for _, e := range entries {
						if strings.HasPrefix(e.Name(), tempPrefix) && !strings.HasSuffix(e.Name(), ".old") {
							os.Remove(filepath.Join(dir, "b", e.Name()))
						}
					}
				}
				if s == "abort" && crashInAbort {
					panic(crash{s})
				}
			}
			crashed, err := commitCrashing(crashPlan(), root, j)
			if crashed != crashInAbort || !crashed && err == nil {
				t.Fatalf("Commit with a vanished temporary file = crashed %v, %v", crashed, err)
			}
			recoverInto(t, jdir, dir, before, "after the failed apply")
		})
	}
}

// TestJournalLeavesLiveOwnersAlone: recovery never touches a transaction whose owner runs, this
// process's own included (another goroutine may be committing it right now).
func TestJournalLeavesLiveOwnersAlone(t *testing.T) {
	root, dir := openRoot(t, crashTree)
	jdir := t.TempDir()
	j := &Journal{dir: jdir, owner: owner.Self(), logger: discard(), hook: func(s string) {
		if s == "commit" {
			panic(crash{s})
		}
	}}
	if crashed, err := commitCrashing(crashPlan(), root, j); !crashed {
		t.Fatalf("the commit ran past the crash point: %v", err)
	}
	mid := snapshot(t, dir)
	if _, rep, err := OpenJournal(jdir, nil); err != nil || rep.RolledForward+rep.RolledBack+rep.Cleaned != 0 {
		t.Fatalf("recovery of a live owner's journal = %+v, %v; want nothing done", rep, err)
	}
	if diff := cmp.Diff(mid, snapshot(t, dir)); diff != "" {
		t.Errorf("recovery touched a live transaction (-before +after):\n%s", diff)
	}
	if left := journalRecords(t, jdir); len(left) != 1 || !strings.HasSuffix(left[0], "."+stateCommit) {
		t.Errorf("records = %q, want the live commit record", left)
	}
}

// TestJournalRefusesForgedRecords: a record written by someone else than toolhost (the state
// directory is the user's) cannot make recovery move arbitrary files: paths leaving the root,
// renames of files that are not toolhost's temporary files, and unknown versions are refused and
// the record dropped, with the tree untouched.
func TestJournalRefusesForgedRecords(t *testing.T) {
	dead := deadOwner(t)
	for _, tt := range []struct {
		name string
		rec  func(root string) txnRecord
	}{
		{"path leaves the root", func(root string) txnRecord {
			return txnRecord{V: txnVersion, Root: root, Ops: []txnOp{{Op: opWrite, Path: "../outside", Temp: tempPrefix + "x"}}}
		}},
		{"temp is a real file", func(root string) txnRecord {
			return txnRecord{V: txnVersion, Root: root, Ops: []txnOp{{Op: opWrite, Path: "a.txt", Temp: "keep.txt"}}}
		}},
		{"backup is a real file", func(root string) txnRecord {
			return txnRecord{V: txnVersion, Root: root, Ops: []txnOp{{Op: opRemove, Path: "keep.txt", Backup: "a.txt"}}}
		}},
		{"relative root", func(string) txnRecord {
			return txnRecord{V: txnVersion, Root: "work", Ops: []txnOp{{Op: opRemove, Path: "keep.txt", Backup: tempPrefix + "k"}}}
		}},
		{"unknown version", func(root string) txnRecord {
			return txnRecord{V: 99, Root: root, Ops: []txnOp{{Op: opRemove, Path: "keep.txt", Backup: tempPrefix + "k"}}}
		}},
		{"unknown op", func(root string) txnRecord {
			return txnRecord{V: txnVersion, Root: root, Ops: []txnOp{{Op: "chmod", Path: "keep.txt", Temp: tempPrefix + "k"}}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, dir := openRoot(t, crashTree)
			before := snapshot(t, dir)
			jdir := t.TempDir()
			j := &Journal{dir: jdir, owner: dead, logger: discard()}
			rec := tt.rec(dir)
			f, err := j.begin(&rec)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.advance(stateCommit); err != nil {
				t.Fatal(err)
			}
			recoverInto(t, jdir, dir, before, "after recovering a forged record")
		})
	}
}

// TestJournalTornIntent: a record cut short while being written (power loss) is dropped.
func TestJournalTornIntent(t *testing.T) {
	dead := deadOwner(t)
	jdir := t.TempDir()
	name := filepath.Join(jdir, dead.String()+"-1."+stateIntent)
	if err := os.WriteFile(name, []byte(`{"v":1,"root":"/x","ops":[{"op":"wri`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenJournal(jdir, nil); err != nil {
		t.Fatalf("recovery: %v", err)
	}
	if left := journalRecords(t, jdir); len(left) > 0 {
		t.Errorf("torn record kept: %q", left)
	}
}

func TestSweepTemps(t *testing.T) {
	dead := deadOwner(t)
	live := owner.Self()
	old := time.Now().Add(-2 * StaleTempAge)
	files := map[string]time.Time{
		"src/" + tempPrefix + dead.String() + "-x-main.go":         old,        // dead owner, old: removed
		"src/" + tempPrefix + dead.String() + "-y-main.go.old":     time.Now(), // dead owner, young: may belong to another state dir's journal
		"src/" + tempPrefix + live.String() + "-z-main.go":         old,        // live owner: kept
		"src/" + tempPrefix + "main.go-legacyname":                 old,        // unknown owner, old: removed
		"src/" + tempPrefix + "util.go-young":                      time.Now(), // unknown owner, young: kept
		".git/" + tempPrefix + dead.String() + "-w-index":          old,        // .git is not walked
		"src/not" + tempPrefix + dead.String() + "-v-ordinary.txt": old,        // not a temporary name
	}
	content := map[string]string{}
	for name := range files {
		content[name] = "x"
	}
	root, dir := openRoot(t, content)
	for name, mt := range files {
		if err := os.Chtimes(filepath.Join(dir, name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if n := SweepTemps(context.Background(), root, 1000); n != 2 {
		t.Errorf("SweepTemps removed %d files, want 2", n)
	}
	for name := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		removed := errors.Is(err, os.ErrNotExist)
		want := strings.Contains(name, "-x-main.go") || strings.Contains(name, "legacyname")
		if removed != want {
			t.Errorf("%s removed = %v, want %v", name, removed, want)
		}
	}
}

// journalChildEnv makes the test binary a second process that commits crashPlan in the
// directory it names and stops (blocked) right after the commit record.
const journalChildEnv = "TOOLHOST_EDIT_TEST_JOURNAL_CHILD"

// runJournalChild is the second process of TestJournalTwoProcesses.
func runJournalChild(spec string) error {
	jdir, dir, _ := strings.Cut(spec, "\n")
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	j, _, err := OpenJournal(jdir, nil)
	if err != nil {
		return err
	}
	j.hook = func(s string) {
		if s == "commit" {
			fmt.Println("committed")
			time.Sleep(time.Hour) // stay alive, mid-transaction, until killed
		}
	}
	return crashPlan().Commit(context.Background(), root, j)
}

// TestJournalTwoProcesses: a second toolhost process opening the same journal while the first is
// mid-commit leaves that transaction alone; once the first is killed, the next open finishes it.
func TestJournalTwoProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: process liveness by start time is not available")
	}
	_, dir := openRoot(t, crashTree)
	jdir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), journalChildEnv+"="+jdir+"\n"+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 64)
	if n, err := out.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "committed") {
		t.Fatalf("child: %q, %v", buf[:n], err)
	}
	mid := snapshot(t, dir)
	if _, rep, err := OpenJournal(jdir, nil); err != nil || rep.RolledForward+rep.RolledBack != 0 {
		t.Fatalf("recovery while the owner runs = %+v, %v; want nothing done", rep, err)
	}
	if diff := cmp.Diff(mid, snapshot(t, dir)); diff != "" {
		t.Fatalf("recovery touched a live process's transaction (-before +after):\n%s", diff)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, rep, err := OpenJournal(jdir, nil); err != nil || rep.RolledForward != 1 {
		t.Fatalf("recovery after the owner died = %+v, %v; want one transaction rolled forward", rep, err)
	}
	if diff := cmp.Diff(crashAfter(), snapshot(t, dir)); diff != "" {
		t.Errorf("files after recovery (-want +got):\n%s", diff)
	}
}
