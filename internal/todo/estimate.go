package todo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bounds of an estimate: under a minute is not worth planning, over MaxEstimate is a project,
// not a todo (split it into subtasks).
const (
	MinEstimate = time.Minute
	MaxEstimate = 1000 * time.Hour
)

// estimateUnits maps the unit words models write to Go's duration units.
var estimateUnits = map[string]string{
	"m": "m", "min": "m", "mins": "m", "minute": "m", "minutes": "m",
	"h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
}

// ParseEstimate reads a duration as models write it: "45m", "2h", "1h30m", "1.5h", "90 min",
// "2 hours". Days and weeks are refused rather than guessed (a working day or a calendar
// one?), and so is anything under MinEstimate or over MaxEstimate.
func ParseEstimate(s string) (time.Duration, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	if in == "" {
		return 0, fmt.Errorf("is empty; give a duration such as 45m or 2h")
	}
	var total time.Duration
	rest := in
	for rest != "" {
		rest = strings.TrimLeft(rest, " ")
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("%q is not a duration; write it as 45m, 2h or 1h30m", s)
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration; write it as 45m, 2h or 1h30m", s)
		}
		rest = strings.TrimLeft(rest[i:], " ")
		j := 0
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		word := rest[:j]
		rest = rest[j:]
		unit, ok := estimateUnits[word]
		switch {
		case word == "":
			return 0, fmt.Errorf("%q has no unit; write 45m or 2h", s)
		case strings.HasPrefix(word, "d") || strings.HasPrefix(word, "w"):
			return 0, fmt.Errorf("%q: give days or weeks in hours (16h), since a working day is not a calendar day", s)
		case !ok:
			return 0, fmt.Errorf("%q: unknown unit %q; use m or h", s, word)
		}
		per := float64(time.Minute)
		if unit == "h" {
			per = float64(time.Hour)
		}
		if n*per > float64(MaxEstimate) {
			return 0, fmt.Errorf("%q is over %s; split the todo into subtasks and estimate those", s, FormatDuration(MaxEstimate))
		}
		total += time.Duration(n * per)
	}
	total = total.Round(time.Minute)
	switch {
	case total < MinEstimate:
		return 0, fmt.Errorf("%q is under a minute; estimate in minutes or hours", s)
	case total > MaxEstimate:
		return 0, fmt.Errorf("%q is over %s; split the todo into subtasks and estimate those", s, FormatDuration(MaxEstimate))
	}
	return total, nil
}

// FormatDuration renders d to the minute as a model reads it: "<1m", "45m", "2h", "1h30m".
func FormatDuration(d time.Duration) string {
	if d < time.Minute {
		return "<1m"
	}
	m := int64(d / time.Minute)
	h, m := m/60, m%60
	switch {
	case h == 0:
		return strconv.FormatInt(m, 10) + "m"
	case m == 0:
		return strconv.FormatInt(h, 10) + "h"
	}
	return strconv.FormatInt(h, 10) + "h" + strconv.FormatInt(m, 10) + "m"
}

// normalizeEstimate returns the canonical form of an estimate ("" stays ""), or the error
// ParseEstimate gives.
func normalizeEstimate(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	d, err := ParseEstimate(s)
	if err != nil {
		return "", err
	}
	return FormatDuration(d), nil
}

// estimateOf is the duration of a stored estimate; 0 when none (or one an older toolhost wrote
// that no longer parses).
func estimateOf(s string) time.Duration {
	if s == "" {
		return 0
	}
	d, err := ParseEstimate(s)
	if err != nil {
		return 0
	}
	return d
}
