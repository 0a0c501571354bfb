package terminal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
)

// envBlock builds the environment block Windows' CreateProcess takes with
// CREATE_UNICODE_ENVIRONMENT, from NAME=value entries: UTF-16, each entry ended by a NUL, the
// block by one more. Names are compared without regard to case, as Windows does: the last of
// entries that differ only in case wins. SYSTEMROOT is added from systemRoot when missing
// (many programs, and Winsock, fail without it), and the entries are sorted by name ignoring
// case, as Windows documents the block. Drive-directory entries ("=C:=C:\dir") keep their
// leading "=". Pure Go, so that it is tested on every platform.
func envBlock(env []string, systemRoot string) ([]uint16, error) {
	type entry struct{ name, kv string }
	var entries []entry
	at := map[string]int{} // upper-case name -> index in entries
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("environment entry %q: %w", strings.ReplaceAll(kv, "\x00", `\x00`), errEnvNUL)
		}
		// The name ends at the first "=" after its first character: "=C:=C:\dir" is "=C:".
		eq := strings.IndexByte(kv[min(1, len(kv)):], '=')
		if eq < 0 {
			continue // no "=": names nothing
		}
		name := kv[:eq+1]
		key := strings.ToUpper(name)
		if i, ok := at[key]; ok {
			entries[i] = entry{name, kv}
			continue
		}
		at[key] = len(entries)
		entries = append(entries, entry{name, kv})
	}
	if _, ok := at["SYSTEMROOT"]; !ok && systemRoot != "" {
		entries = append(entries, entry{"SYSTEMROOT", "SYSTEMROOT=" + systemRoot})
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		return strings.Compare(strings.ToUpper(a.name), strings.ToUpper(b.name))
	})
	var block []uint16
	for _, e := range entries {
		block = append(append(block, utf16.Encode([]rune(e.kv))...), 0)
	}
	if len(entries) == 0 {
		block = append(block, 0) // an empty block is two NULs
	}
	return append(block, 0), nil
}

// errEnvNUL refuses an environment entry that holds a NUL, which would end it early.
var errEnvNUL = errors.New("holds a NUL byte")
