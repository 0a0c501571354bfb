package suggest

import "testing"

func TestNearest(t *testing.T) {
	cands := []string{"file_operations", "terminal_operations", "think", "todo_operations.read"}
	tests := []struct {
		name, in, want string
	}{
		{"missing letter", "file_operation", "file_operations"},
		{"swapped letters", "todo_operations.raed", "todo_operations.read"},
		{"upper case", "THINK", "think"},
		{"exact", "think", "think"},
		{"nothing close", "zzzzzzzzzz", ""},
		{"short and far", "ab", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Nearest(tt.in, cands); got != tt.want {
				t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
