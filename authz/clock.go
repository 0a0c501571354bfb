package authz

import (
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Clock is the time source of grants and approvals. Expiries are recorded against both clocks and
// a grant is expired as soon as either says so: a wall clock set back cannot extend a grant, and a
// reboot (new boot id) ends every grant. Tests inject both functions, so no test sleeps.
type Clock struct {
	// Now is the wall clock. Default time.Now.
	Now func() time.Time
	// Boot returns the time since boot (CLOCK_BOOTTIME, which keeps counting during suspend and is
	// never set) and the boot id it belongs to. Default SystemBootClock.
	Boot func() (since time.Duration, bootID string)
}

// SystemBootClock reads CLOCK_BOOTTIME and /proc/sys/kernel/random/boot_id.
func SystemBootClock() (time.Duration, string) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	}
	return time.Duration(ts.Nano()), bootID()
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func (c Clock) withDefaults() Clock {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Boot == nil {
		id := bootID() // constant for the life of the process
		c.Boot = func() (time.Duration, string) {
			var ts unix.Timespec
			if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
				_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
			}
			return time.Duration(ts.Nano()), id
		}
	}
	return c
}

// Deadline is an expiry on both clocks.
type Deadline struct {
	Wall   time.Time     `json:"wall"`
	Boot   time.Duration `json:"boot_ns"`
	BootID string        `json:"boot_id"`
}

// after returns the deadline d from now.
func (c Clock) after(d time.Duration) Deadline {
	boot, id := c.Boot()
	return Deadline{Wall: c.Now().Add(d).UTC(), Boot: boot + d, BootID: id}
}

// passed reports whether the deadline has passed on either clock, or was set in another boot.
func (c Clock) passed(d Deadline) bool {
	if !c.Now().Before(d.Wall) {
		return true
	}
	boot, id := c.Boot()
	return id != d.BootID || boot >= d.Boot
}
