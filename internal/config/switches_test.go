package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSwitchesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := SwitchesPath(filepath.Join(dir, "config.toml"))
	if got, err := LoadSwitches(path); err != nil || len(got.Disable) != 0 {
		t.Fatalf("missing file: %+v, %v; want nothing switched off", got, err)
	}
	want := Switches{Disable: []string{"file_operations.delete_file", "think", "think"}}
	if err := want.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSwitches(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"file_operations.delete_file", "think"}, got.Disable); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	cases := []struct {
		name, tool, op string
		off            bool
	}{
		{"operation listed", "file_operations", "delete_file", true},
		{"other operation", "file_operations", "read_file", false},
		{"whole tool listed", "think", "think", true},
	}
	for _, tc := range cases {
		if got.Off(tc.tool, tc.op) != tc.off {
			t.Errorf("%s: Off(%s, %s) = %v, want %v", tc.name, tc.tool, tc.op, !tc.off, tc.off)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries after an atomic write, want only the file", len(entries))
	}
}

func TestSwitchesRefuseUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.toml")
	os.WriteFile(path, []byte("disable = []\nenable = [\"x\"]\n"), 0o600)
	if _, err := LoadSwitches(path); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("LoadSwitches with an unknown key = %v, want ErrUnknownKey", err)
	}
}
