// Package filetest writes the small trees of files tests work on: a map from a slash-separated
// path to its content, written under a directory with the parent directories made. Only tests
// import it.
package filetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (slash-separated path → content) under dir: directories 0755, files 0644.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	write(t, dir, files, 0o755, 0o644)
}

// WritePrivate is Write with the owner's permissions only (directories 0700, files 0600), for
// files that stand for a user's keys and secrets.
func WritePrivate(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	write(t, dir, files, 0o700, 0o600)
}

func write(t testing.TB, dir string, files map[string]string, dirPerm, filePerm os.FileMode) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), dirPerm); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), filePerm); err != nil {
			t.Fatal(err)
		}
	}
}
