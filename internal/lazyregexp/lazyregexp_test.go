package lazyregexp

import (
	"sync"
	"testing"
)

// TestCompiledOnFirstUse: New does not compile (an invalid expression is accepted until first
// use, where it panics as regexp.MustCompile would), and concurrent first uses share one
// compiled expression.
func TestCompiledOnFirstUse(t *testing.T) {
	bad := New(`(unclosed`)
	if got := bad.String(); got != `(unclosed` {
		t.Errorf("String() = %q, want the source", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("first use of an invalid expression did not panic")
			}
		}()
		bad.MatchString("x")
	}()

	re := New(`^a(b+)$`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !re.MatchString("abb") || re.MatchString("ac") {
				t.Error("MatchString disagrees with the expression")
			}
		}()
	}
	wg.Wait()
	if re.Regexp() != re.Regexp() {
		t.Error("Regexp() compiled the expression twice")
	}
	if got := re.FindStringSubmatch("abbb"); len(got) != 2 || got[1] != "bbb" {
		t.Errorf("FindStringSubmatch(abbb) = %q, want [abbb bbb]", got)
	}
}
