package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel"
)

// DefaultIndexMinFiles is the tree size at which a walking search starts building the index
// in mode auto.
const DefaultIndexMinFiles = 2000

// IndexDir is where the working directory's index lives: one directory per working directory
// under the state directory, named by a hash of its canonical path.
func (a *App) IndexDir() string {
	sum := sha256.Sum256([]byte(a.Workdir))
	return filepath.Join(a.StateDir, "index", hex.EncodeToString(sum[:8]))
}

// openIndex opens the working directory's index from the [index] configuration (nil in mode
// off). Nothing is read until a search or mode on starts it.
func (a *App) openIndex() *codeindex.Index {
	c := a.Config.Index
	if c.Mode == "off" {
		return nil
	}
	ix := codeindex.Open(codeindex.Config{
		Dir: a.IndexDir(), Root: a.Guard.Root(), RootPath: a.Workdir, Screen: a.Guard.WorkDirScreen(),
		MaxFiles: c.MaxFiles, MaxBytes: c.MaxBytes, MaxFileBytes: c.MaxFileBytes, Logger: a.Logger,
		Symbols: codeintel.DefinedNames,
	})
	a.onClose(ix.Close)
	if c.Mode == "on" && a.Config.Serve {
		a.afterSettled(func(context.Context) { ix.StartBuild() })
	}
	return ix
}

// indexMinFiles is the auto mode's threshold (0: never built by a search).
func (a *App) indexMinFiles() int {
	switch {
	case a.Config.Index.Mode == "on" || a.Config.Index.Mode == "off":
		return 0
	case a.Config.Index.MinFiles > 0:
		return a.Config.Index.MinFiles
	}
	return DefaultIndexMinFiles
}
