package consolidated

import (
	"fmt"
	"strings"
	"testing"
)

// TestRecentThinking: repeats count per conversation, among the last recentThoughts only, and
// the conversations kept are bounded.
func TestRecentThinking(t *testing.T) {
	var r recentThinking
	r.note("a", "x")
	r.note("a", "X ")
	if n := r.note("b", "x"); n != 1 {
		t.Errorf("another conversation's first x counts %d, want 1", n)
	}
	for i := range recentThoughts - 1 {
		r.note("a", fmt.Sprint("other ", i))
	}
	if n := r.note("a", "x"); n != 1 {
		t.Errorf("x after %d other thoughts counts %d, want 1 (the old ones left the window)", recentThoughts-1, n)
	}
	for i := range maxThinkers + 10 {
		r.note(fmt.Sprint("c", i), "y")
	}
	if len(r.last) > maxThinkers {
		t.Errorf("%d conversations kept, at most %d", len(r.last), maxThinkers)
	}
}

// TestThinkSizeBothSides: think records a thought up to MaxThoughtBytes and refuses a longer one,
// naming the limit.
func TestThinkSizeBothSides(t *testing.T) {
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool { return []*Tool{ThinkTool()} }})
	for _, tt := range []struct {
		name string
		size int
		ok   bool
	}{
		{"just under", MaxThoughtBytes - 1, true},
		{"at", MaxThoughtBytes, true},
		{"just over", MaxThoughtBytes + 1, false},
		{"far over", 10 * MaxThoughtBytes, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr, _ := h.call("think", map[string]any{"thoughts": strings.Repeat("x", tt.size)})
			if tt.ok && (isErr || !strings.HasPrefix(text, "Thought recorded")) {
				t.Errorf("a thought of %d bytes = %s, want it recorded", tt.size, text)
			}
			if !tt.ok && (!isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, "over 64 KB")) {
				t.Errorf("a thought of %d bytes = %.200s, want too_large naming the limit", tt.size, text)
			}
		})
	}
}
