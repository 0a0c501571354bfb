package app

import (
	"toolhost/consolidated"
	"toolhost/internal/fsread"
)

// fileTool builds file_operations on the app's guard. The read engine's line-index cache lives
// inside the tool, so repeated range reads of a large file seek instead of rescanning.
func (a *App) fileTool() *consolidated.Tool {
	return consolidated.FileTool(consolidated.FileConfig{
		Guard:  a.Guard,
		Reader: fsread.NewReader(fsread.DefaultIndexEntries),
	})
}
