package terminal

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"toolhost/internal/owner"
)

// termDirPrefix starts the name of each manager's temporary directory (it holds the shell rc
// file), followed by the owning process's owner ID, so a directory left by a killed toolhost can
// be told from a running one's.
const termDirPrefix = "toolhost-term-"

// PrivateTempPrefix starts the name of the private TMPDIR an app gives sandboxed commands,
// followed by the owner ID and a random part: the sweep removes those of dead owners too.
const PrivateTempPrefix = "toolhost-tmp-"

// makeTermDir creates this manager's temporary directory under tmp ("" means os.TempDir()).
func makeTermDir(tmp string) (string, error) {
	return os.MkdirTemp(tmp, termDirPrefix+owner.Self().String()+"-")
}

// sweepTermDirs removes the temporary directories under tmp ("" means os.TempDir()) whose owner
// is no longer running. Directories of live owners, and those named by older versions (no owner
// in the name, so no way to tell), are left alone. It returns how many it removed.
func sweepTermDirs(tmp string) int {
	if tmp == "" {
		tmp = os.TempDir()
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), termDirPrefix)
		if !ok {
			rest, ok = strings.CutPrefix(e.Name(), PrivateTempPrefix)
		}
		if !ok || !e.IsDir() {
			continue
		}
		idPart, _, _ := strings.Cut(rest, "-")
		id, ok := owner.Parse(idPart)
		if !ok || owner.Alive(id) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(tmp, e.Name())); err != nil {
			slog.Debug("terminal: remove a stale temporary directory", "dir", e.Name(), "err", err)
			continue
		}
		n++
	}
	return n
}
