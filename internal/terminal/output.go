package terminal

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"
	"unicode/utf8"
)

// OutputQuery says which output a get_output call wants and how long it may wait for it.
type OutputQuery struct {
	// Cursor is the offset to read from; nil means the caller's own cursor, which every
	// answer advances, so repeated calls see only new output.
	Cursor *int64
	// MaxBytes bounds the returned text (default 16 KiB, at most 1 MiB).
	MaxBytes int
	// WaitMS is the longest the call waits (0: answer at once; capped by Config.MaxWait).
	WaitMS int
	// WaitFor is a regular expression; the wait ends as soon as it matches new output.
	// Without it the wait ends when the running command finishes or output settles.
	WaitFor string
	// Progress, when set, receives new output while the call waits, for progress
	// notifications. It is called from the waiting goroutine, never with locks held.
	Progress func(chunk string)
}

// Output is a bounded slice of a session's or command's log plus what is known about its state.
type Output struct {
	ID string `json:"id"`
	// Text is the cleaned log from Cursor (ANSI removed, \r and backspace resolved).
	Text string `json:"text"`
	// Cursor is where Text starts; NextCursor is where the next call continues.
	Cursor     int64 `json:"cursor"`
	NextCursor int64 `json:"next_cursor"`
	// HasMore says output beyond MaxBytes is waiting; call again with NextCursor.
	HasMore bool `json:"has_more"`
	// Dropped counts bytes between the requested cursor and the oldest retained byte.
	Dropped int64 `json:"dropped,omitempty"`
	// Matched is true when WaitFor matched; Match is the matched text.
	Matched bool   `json:"matched,omitempty"`
	Match   string `json:"match,omitempty"`
	// Reason says why the call returned: "immediate", "match", "finished", "settled",
	// "timeout", "exited".
	Reason string `json:"reason"`
	// CommandRunning is true while a foreground command runs in a session whose shell
	// reports prompts (bash); Finished is true when the command last sent has completed.
	CommandRunning bool `json:"command_running"`
	Finished       bool `json:"finished"`
	// ExitCode is the exit status of the last completed command, when knowable.
	ExitCode *int `json:"exit_code,omitempty"`
	// Exited is true when the shell (or the one-shot command) is gone.
	Exited bool `json:"exited,omitempty"`
	// Result is the complete result of a one-shot command once it has finished.
	Result   *RunResult `json:"result,omitempty"`
	WaitedMS int64      `json:"waited_ms"`
	// Sandbox is the mode the session or command runs under, and Cwd its directory (a
	// session's start directory), so a refusal in the output can be explained.
	Sandbox string `json:"sandbox,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}

const (
	defaultMaxBytes = 16 << 10
	maxMaxBytes     = 1 << 20
	matchOverlap    = 4 << 10
	progressChunk   = 8 << 10
)

// stream is the state shared by sessions and one-shot commands: a log ring and the means to
// wait for it to change.
type stream struct {
	mu      sync.Mutex
	log     *ring
	notify  chan struct{} // closed and replaced whenever anything changes
	lastOut time.Time
	cursor  int64 // the owning conversation's read cursor
	lastUse time.Time
}

// completeUTF8 is the length of p less a UTF-8 sequence cut at its end, which the next bytes
// complete; invalid bytes count as complete.
func completeUTF8(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}

func newStream(historyBytes int) stream {
	now := time.Now()
	return stream{log: newRing(historyBytes), notify: make(chan struct{}), lastUse: now}
}

// broadcastLocked wakes every waiter; s.mu must be held.
func (s *stream) broadcastLocked() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// waitState is what a waiter needs to know about the owner of a stream, evaluated with the
// stream's mutex held.
type waitState struct {
	finished  bool // the command the caller cares about has completed
	exited    bool // nothing more will come
	baseline  int64
	matchFrom int64     // wait_for ignores output before this offset (the echo of typed input)
	recheck   time.Time // when finished may change without new output (zero: only on output)
}

// readLocked cuts the answer out of the log; s.mu must be held.
func (s *stream) readLocked(from int64, maxBytes int) (text string, start, next int64, dropped int64, more bool) {
	if from < 0 {
		from = 0
	}
	if st := s.log.start(); from < st {
		dropped = st - from
		from = st
	}
	if from > s.log.end() {
		from = s.log.end()
	}
	data, _ := s.log.read(from, maxBytes)
	// Do not cut a UTF-8 sequence in half: leave its start for the next call.
	if from+int64(len(data)) < s.log.end() {
		data = data[:completeUTF8(data)]
	}
	next = from + int64(len(data))
	text = string(data)
	if dropped > 0 {
		text = droppedMarker(dropped) + text
	}
	return text, from, next, dropped, next < s.log.end()
}

// wait blocks until q's condition holds, the wait time is up, or ctx ends. state reports
// the owner's state with s.mu held. It returns the filled Output (state fields are left to
// the caller) with s.mu released.
func (s *stream) wait(ctx context.Context, q OutputQuery, maxWait, settle time.Duration, state func() waitState) (Output, error) {
	re, maxBytes, waitFor, err := waitLimits(q, maxWait)
	if err != nil {
		return Output{}, err
	}
	began := time.Now()
	s.mu.Lock()
	from := s.cursor
	if q.Cursor != nil {
		from = *q.Cursor
	}
	if from < s.log.start() {
		// Matching starts at the oldest retained byte.
		from = max(from, 0)
	}
	scanFrom := max(from, s.log.start())
	// Progress starts where the caller's read starts: output that arrived between typing
	// and this wait (a fast first line) is streamed too.
	w := &waiter{s: s, q: q, re: re, from: from, scanFrom: scanFrom, progressFrom: scanFrom,
		waitFor: waitFor, settle: settle, deadline: began.Add(waitFor)}
	defer w.stop()
	var out Output
	var reason string
	for {
		st := state()
		if reason = w.check(st, &out); reason != "" {
			break
		}
		if err := w.sleep(ctx, st); err != nil {
			return Output{Reason: "canceled", WaitedMS: time.Since(began).Milliseconds()}, err
		}
	}
	text, start, next, dropped, more := s.readLocked(from, maxBytes)
	out.Text, out.Cursor, out.NextCursor, out.Dropped, out.HasMore = text, start, next, dropped, more
	out.Reason = reason
	if next > s.cursor || q.Cursor == nil {
		s.cursor = next
	}
	s.lastUse = time.Now()
	s.mu.Unlock()
	out.WaitedMS = time.Since(began).Milliseconds()
	return out, nil
}

// waitLimits reads q: its wait_for pattern, the page size and how long to wait (at most
// maxWait).
func waitLimits(q OutputQuery, maxWait time.Duration) (re *regexp.Regexp, maxBytes int, waitFor time.Duration, err error) {
	if q.WaitFor != "" {
		re, err = regexp.Compile(q.WaitFor)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: wait_for is not a valid regular expression: %v", ErrInvalid, err)
		}
	}
	maxBytes = q.MaxBytes
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	maxBytes = min(maxBytes, maxMaxBytes)
	waitFor = time.Duration(q.WaitMS) * time.Millisecond
	return re, maxBytes, min(max(waitFor, 0), maxWait), nil
}

// waiter is one call's wait on a stream: where its read starts, how far wait_for has
// scanned, what progress has streamed.
type waiter struct {
	s                            *stream
	q                            OutputQuery
	re                           *regexp.Regexp
	from, scanFrom, progressFrom int64
	waitFor, settle              time.Duration
	deadline                     time.Time
	timer                        *time.Timer
	lastWake                     time.Time
}

func (w *waiter) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// check says, with s.mu held, why the wait is over ("" while it is not): wait_for matched
// (out gets the match), the command finished, the owner exited, no wait was asked for, the
// output settled, or the time is up.
func (w *waiter) check(st waitState, out *Output) string {
	s := w.s
	if w.re != nil && s.log.end() > w.scanFrom {
		lo := max(w.scanFrom-matchOverlap, w.from, s.log.start(), st.matchFrom)
		data, lo := s.log.read(lo, int(max(s.log.end()-lo, 0)))
		if loc := w.re.FindIndex(data); loc != nil && len(data) > 0 {
			out.Matched, out.Match = true, string(data[loc[0]:loc[1]])
			return "match"
		}
		w.scanFrom = lo + int64(len(data))
	}
	if st.finished {
		return "finished"
	}
	if st.exited {
		return "exited"
	}
	now := time.Now()
	if w.waitFor == 0 {
		return "immediate"
	}
	if w.re == nil && s.log.end() > max(w.from, st.baseline, st.matchFrom) && now.Sub(s.lastOut) >= w.settle {
		return "settled"
	}
	if !now.Before(w.deadline) {
		return "timeout"
	}
	return ""
}

// sleep streams progress and waits, with s.mu released, for new output or the time when
// check may answer otherwise; it returns with s.mu held, or with ctx's error and s.mu
// released.
func (w *waiter) sleep(ctx context.Context, st waitState) error {
	s := w.s
	var chunk []byte
	if w.q.Progress != nil && s.log.end() > w.progressFrom {
		lo := max(w.progressFrom, s.log.end()-progressChunk, s.log.start())
		chunk, _ = s.log.read(lo, progressChunk)
		w.progressFrom = s.log.end()
	}
	wake := w.deadline
	if !st.recheck.IsZero() && st.recheck.Before(wake) {
		wake = st.recheck
	}
	if w.re == nil && s.log.end() > max(w.from, st.baseline, st.matchFrom) {
		if t := s.lastOut.Add(w.settle); t.Before(wake) {
			wake = t
		}
	}
	ch := s.notify
	s.mu.Unlock()
	if len(chunk) > 0 {
		w.q.Progress(string(chunk))
	}
	d := max(time.Until(wake), time.Millisecond)
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-ch:
		// Output is streaming: coalesce wakeups so a waiter does not re-evaluate its
		// conditions for every few kilobytes the reader ingests.
		if time.Since(w.lastWake) < 2*time.Millisecond {
			time.Sleep(2 * time.Millisecond)
		}
		w.lastWake = time.Now()
	case <-w.timer.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !w.timer.Stop() {
		select {
		case <-w.timer.C:
		default:
		}
	}
	s.mu.Lock()
	return nil
}
