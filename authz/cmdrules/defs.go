package cmdrules

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Defs are the aliases and functions a shell session's lines defined, kept from line to line
// so that a later line calling one is checked with its definition. Check (with Env.Defs)
// reads them and adds what the line defines, also when it refuses the line: knowing a
// definition only adds checks, since a name is checked both as itself and as each of its
// definitions. For the same reason nothing is ever removed (unalias and unset -f may not run:
// a line typed into a program, a failed or conditional command). The zero value is empty;
// a Defs is safe for concurrent use.
type Defs struct {
	mu   sync.Mutex
	set  defset
	full bool
}

// Limits of what a Defs keeps; a session that defines more has every later line asked
// about, since a definition it forgot could hide a command.
const (
	maxDefs     = 512
	maxDefBytes = 1 << 20
)

// Len is the number of definitions kept.
func (d *Defs) Len() int {
	if d == nil {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.set.count
}

func (d *Defs) snapshot() (defset, bool) {
	if d == nil {
		return defset{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.set.clone(), d.full
}

// merge adds what s holds and d does not, and reports whether d is full.
func (d *Defs) merge(s defset) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, vs := range s.aliases {
		for _, v := range vs {
			d.add(&d.set.aliases, name, v)
		}
	}
	for name, ts := range s.funcs {
		for _, t := range ts {
			d.add(&d.set.funcs, name, t)
		}
	}
	return d.full
}

func (d *Defs) add(m *map[string][]string, name, text string) {
	if d.full || contains((*m)[name], text) {
		return
	}
	if d.set.count >= maxDefs || d.set.bytes+len(name)+len(text) > maxDefBytes {
		d.full = true
		return
	}
	d.set.put(m, name, text)
}

// defset is what a check knows of aliases and functions: name -> alias values, and name ->
// function definitions as shell text ("f() { ...; }").
type defset struct {
	aliases map[string][]string
	funcs   map[string][]string
	count   int
	bytes   int
}

func (s defset) clone() defset {
	c := defset{count: s.count, bytes: s.bytes}
	c.aliases = make(map[string][]string, len(s.aliases))
	for k, v := range s.aliases {
		c.aliases[k] = append([]string(nil), v...)
	}
	c.funcs = make(map[string][]string, len(s.funcs))
	for k, v := range s.funcs {
		c.funcs[k] = append([]string(nil), v...)
	}
	return c
}

// put adds a definition, reporting whether it was new.
func (s *defset) put(m *map[string][]string, name, text string) bool {
	if contains((*m)[name], text) {
		return false
	}
	if *m == nil {
		*m = map[string][]string{}
	}
	(*m)[name] = append((*m)[name], text)
	s.count++
	s.bytes += len(name) + len(text)
	return true
}

// funcText is a function definition as shell text, parsed again when a later line calls it.
func funcText(fd *syntax.FuncDecl) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, fd); err != nil {
		return ""
	}
	return b.String()
}

// parseFunc reads back a definition made by funcText.
func parseFunc(text string) *syntax.FuncDecl {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	fd, _ := f.Stmts[0].Cmd.(*syntax.FuncDecl)
	return fd
}

// defsJSON is how a Defs travels between processes (a session kept by the terminal host is
// checked by the server that types into it).
type defsJSON struct {
	Aliases map[string][]string `json:"aliases,omitempty"`
	Funcs   map[string][]string `json:"funcs,omitempty"`
	Full    bool                `json:"full,omitempty"`
}

// MarshalJSON encodes the definitions.
func (d *Defs) MarshalJSON() ([]byte, error) {
	set, full := d.snapshot()
	return json.Marshal(defsJSON{Aliases: set.aliases, Funcs: set.funcs, Full: full})
}

// UnmarshalJSON replaces d's definitions with the encoded ones, within the same limits.
func (d *Defs) UnmarshalJSON(b []byte) error {
	var v defsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.set, d.full = defset{}, false
	for _, name := range slices.Sorted(maps.Keys(v.Aliases)) {
		for _, text := range v.Aliases[name] {
			d.add(&d.set.aliases, name, text)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(v.Funcs)) {
		for _, text := range v.Funcs[name] {
			d.add(&d.set.funcs, name, text)
		}
	}
	d.full = d.full || v.Full
	return nil
}
