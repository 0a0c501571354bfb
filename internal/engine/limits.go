package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"toolhost/authz"
)

// Rate is a number of calls per period, written "60/min", "10/s", "1000/h" or "0" (no limit).
type Rate struct {
	N   int
	Per time.Duration
}

// ParseRate reads a rate. An empty string or "0" is no limit.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" || s == "none" {
		return Rate{}, nil
	}
	num, unit, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if !ok || err != nil || n < 0 {
		return Rate{}, fmt.Errorf("rate %q: want N/s, N/min or N/h, e.g. 60/min", s)
	}
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		per = time.Second
	case "m", "min", "minute":
		per = time.Minute
	case "h", "hour":
		per = time.Hour
	default:
		return Rate{}, fmt.Errorf("rate %q: unit must be s, min or h", s)
	}
	return Rate{N: n, Per: per}, nil
}

// Unlimited reports whether r sets no limit.
func (r Rate) Unlimited() bool { return r.N == 0 }

func (r Rate) String() string {
	if r.Unlimited() {
		return "unlimited"
	}
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "min", time.Hour: "h"}[r.Per]
	return fmt.Sprintf("%d/%s", r.N, unit)
}

// limiter is the token-bucket form of r: the average rate, with a burst of the whole period's
// allowance so a client may spend it at once and then waits.
func (r Rate) limiter() *rate.Limiter {
	return rate.NewLimiter(rate.Limit(float64(r.N)/r.Per.Seconds()), r.N)
}

// Limits rate-limits calls per principal and per risk category of that principal. A principal's
// own rate (its token's --rate) replaces PerPrincipal for it. Safe for concurrent use.
type Limits struct {
	// PerPrincipal bounds every call of one principal; unlimited when zero.
	PerPrincipal Rate
	// PerCategory bounds one principal's calls of one category.
	PerCategory map[authz.Category]Rate
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	limiters map[string]*rate.Limiter
}

// LimitError reports a call refused by a rate limit: which limit and how long to wait.
type LimitError struct {
	Limit string // "principal alice: 60/min" or "dangerous calls of alice: 10/min"
	Wait  time.Duration
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("rate limit %s reached; retry in %s", e.Limit, e.Wait.Round(time.Millisecond))
}

// Allow takes one call of principal p in category c from the buckets, or returns a LimitError
// with the wait until the call would pass. own is p's own rate (zero: PerPrincipal applies).
// A refused call takes nothing from any bucket.
func (l *Limits) Allow(p authz.Principal, own Rate, c authz.Category) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	if l.Now != nil {
		now = l.Now()
	}
	principal := own
	if principal.Unlimited() {
		principal = l.PerPrincipal
	}
	return l.take(now, []check{
		{"p\x00" + p.Name + "\x00" + principal.String(), "principal " + p.Name + ": " + principal.String(), principal},
		{"c\x00" + p.Name + "\x00" + string(c), string(c) + " calls of " + p.Name + ": " + l.PerCategory[c].String(), l.PerCategory[c]},
	})
}

// AllowRequest takes one operator API request of p (history, stats, metrics) from a bucket of
// its own, at the principal's rate, so a console that polls does not use up the tool calls. It
// returns where p stands after the request (a zero Quota when no limit applies), refused or
// not, for the answer's rate-limit headers.
func (l *Limits) AllowRequest(p authz.Principal, own Rate) (Quota, error) {
	if l == nil {
		return Quota{}, nil
	}
	now := time.Now()
	if l.Now != nil {
		now = l.Now()
	}
	r := own
	if r.Unlimited() {
		r = l.PerPrincipal
	}
	if r.Unlimited() {
		return Quota{}, nil
	}
	key := "r\x00" + p.Name + "\x00" + r.String()
	err := l.take(now, []check{{key, "requests of " + p.Name + ": " + r.String(), r}})
	return l.quota(key, r, now), err
}

// Quota is where a principal stands against a rate: the policy (Limit requests per Window),
// the requests it may make now, and how long until its whole quota is back. Limit 0 means no
// limit applies.
type Quota struct {
	Limit     int
	Window    time.Duration
	Remaining int
	Reset     time.Duration
}

// quota reads the bucket of key at now.
func (l *Limits) quota(key string, r Rate, now time.Time) Quota {
	l.mu.Lock()
	lim := l.limiters[key]
	l.mu.Unlock()
	q := Quota{Limit: r.N, Window: r.Per, Remaining: r.N}
	if lim == nil {
		return q
	}
	tokens := lim.TokensAt(now)
	q.Remaining = max(int(math.Floor(tokens)), 0)
	if missing := float64(r.N) - tokens; missing > 0 {
		q.Reset = time.Duration(missing / float64(lim.Limit()) * float64(time.Second))
	}
	return q
}

// check is one bucket a call must pass.
type check struct {
	key, name string
	r         Rate
}

// take passes all checks or none: a refused call takes nothing from any bucket.
func (l *Limits) take(now time.Time, checks []check) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limiters == nil {
		l.limiters = map[string]*rate.Limiter{}
	}
	var taken []*rate.Reservation
	for _, ch := range checks {
		if ch.r.Unlimited() {
			continue
		}
		lim := l.limiters[ch.key]
		if lim == nil {
			lim = ch.r.limiter()
			l.limiters[ch.key] = lim
		}
		res := lim.ReserveN(now, 1)
		if d := res.DelayFrom(now); !res.OK() || d > 0 {
			res.CancelAt(now)
			for _, t := range taken {
				t.CancelAt(now)
			}
			return &LimitError{Limit: ch.name, Wait: d}
		}
		taken = append(taken, res)
	}
	return nil
}
