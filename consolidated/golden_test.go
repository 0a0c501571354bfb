package consolidated

import (
	"os"
	"path/filepath"
	"testing"
)

// checkGolden compares got with the golden file at path, or rewrites it when update is set;
// flagName is the flag that sets update, for the failure message.
func checkGolden(t *testing.T, path, got string, update bool, flagName string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rerun with %s)", err, flagName)
	}
	if string(want) != got {
		t.Errorf("%s drifted; review and rerun with %s\n--- want\n%s\n--- got\n%s", path, flagName, want, got)
	}
}
