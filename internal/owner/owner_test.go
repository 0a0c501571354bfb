package owner

import (
	"os/exec"
	"testing"
	"time"
)

func TestParseRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		id   ID
	}{
		{"full", ID{PID: 4242, Start: 123456, Boot: "0a1b2c3d"}},
		{"no boot id", ID{PID: 7, Start: 99}},
		{"nothing known", ID{PID: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.id.String())
			if !ok || got != tt.id {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.id.String(), got, ok, tt.id)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "12", "12_3", "x_1_0", "0_1_0", "-3_1_0", "12_x_0", "12_1_ZZ", "12_1_0_9", "12_1_../"} {
		if id, ok := Parse(s); ok {
			t.Errorf("Parse(%q) = %+v, true; want false", s, id)
		}
	}
}

func TestAlive(t *testing.T) {
	self := Self()
	if self.Start == 0 || self.Boot == "" {
		t.Skipf("no /proc here (self = %+v); liveness falls back to signal 0", self)
	}
	// A finished child's pid is free (or reused by a process with another start time).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := ID{PID: cmd.Process.Pid, Start: self.Start, Boot: self.Boot}
	tests := []struct {
		name string
		id   ID
		want bool
	}{
		{"this process", self, true},
		{"this pid, other start time (pid reuse)", ID{PID: self.PID, Start: self.Start + 1, Boot: self.Boot}, false},
		{"this pid and start, other boot", ID{PID: self.PID, Start: self.Start, Boot: "ffffffff"}, false},
		{"exited child", dead, false},
		{"pid 1 with its own start time", ID{PID: 1, Start: mustStart(t, 1), Boot: self.Boot}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Alive(tt.id); got != tt.want {
				t.Errorf("Alive(%+v) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

func mustStart(t *testing.T, pid int) uint64 {
	t.Helper()
	s, ok := startTime(pid)
	if !ok {
		t.Skipf("cannot read the start time of pid %d", pid)
	}
	return s
}

// TestAliveZombie: a process that exited and that its parent has not reaped yet (a server
// killed with SIGKILL under a parent that has not waited) is dead, though /proc still lists
// it with its start time.
func TestAliveZombie(t *testing.T) {
	self := Self()
	if self.Start == 0 || self.Boot == "" {
		t.Skipf("no /proc here (self = %+v)", self)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	start, ok := startTime(pid)
	if !ok {
		t.Fatalf("no start time for child %d", pid)
	}
	id := ID{PID: pid, Start: start, Boot: self.Boot}
	if !Alive(id) || Exited(pid) {
		t.Fatalf("running child: Alive = %v, Exited = %v; want true, false", Alive(id), Exited(pid))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if zombie(pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d did not become a zombie", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if Alive(id) {
		t.Errorf("Alive(zombie %+v) = true, want false", id)
	}
	if !Exited(pid) {
		t.Errorf("Exited(zombie %d) = false, want true", pid)
	}
}
