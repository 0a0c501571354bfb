package edit

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"toolhost/internal/filetest"
)

// openRoot returns a root over a fresh temporary directory holding files.
func openRoot(t testing.TB, files map[string]string) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	filetest.Write(t, dir, files)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

// snapshot returns every file under dir (slash paths) with its content.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.IsDir():
			if rel != "." {
				out[rel+"/"] = ""
			}
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestMain doubles as the second process of TestJournalTwoProcesses.
func TestMain(m *testing.M) {
	if spec := os.Getenv(journalChildEnv); spec != "" {
		if err := runJournalChild(spec); err != nil {
			fmt.Fprintln(os.Stderr, "journal child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
