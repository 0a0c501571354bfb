package authz

import "time"

// Clock is the time source of grants and approvals. Expiries are recorded against both clocks and
// a grant is expired as soon as either says so: a wall clock set back cannot extend a grant, and a
// reboot (new boot id) ends every grant. Tests inject both functions, so no test sleeps.
type Clock struct {
	// Now is the wall clock. Default time.Now.
	Now func() time.Time
	// Boot returns the time since boot (on Linux CLOCK_BOOTTIME, which keeps counting during suspend
	// and is never set) and the boot id it belongs to. Default SystemBootClock.
	Boot func() (since time.Duration, bootID string)
}

func (c Clock) withDefaults() Clock {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Boot == nil {
		id := bootID() // constant for the life of the process
		c.Boot = func() (time.Duration, string) { return bootTime(), id }
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
