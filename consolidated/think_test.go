package consolidated

import (
	"fmt"
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
