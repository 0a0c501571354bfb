// Package proctree starts a process as the root of a tree of its own and kills that tree:
// what the browser (Chromium's renderers and helpers) and git (hooks and their children) need
// when they are closed or cancelled. One file per platform: a process group on Unix (and a
// parent-death signal on Linux), a walk of the parent links on Windows.
package proctree
