package cmdrules

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// envAssignment reports whether env or sudo takes a word before the command for a variable:
// '=' after a non-empty name that does not start with '-' (env takes A%=1 too, which the
// shell would not; the value may be unknown).
func envAssignment(w word) bool {
	for k, t := range w.g {
		if t.kind != gLit {
			return false
		}
		if t.r == '=' {
			return k > 0
		}
		if k == 0 && t.r == '-' {
			return false
		}
	}
	return false
}

func joinExact(ws []word) (string, bool) {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if !w.exact {
			return "", false
		}
		parts[i] = w.lit
	}
	return strings.Join(parts, " "), true
}

// splitWords splits text into words the way env -S does, approximated by the shell parser;
// nil when it cannot.
func splitWords(text string) []word {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	var out []word
	for _, w := range call.Args {
		out = append(out, words(w, nil)...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// render shows words as a command line: literal words as written, others as their pattern.
func render(ws []word) string {
	return joinWords(ws, func(w word) string {
		if w.exact {
			return fmt.Sprintf("%q", w.lit) // a literal bash cannot quote
		}
		return "…"
	})
}

func stagesText(stages [][]cmd) string {
	var parts []string
	for _, s := range stages {
		if len(s) == 0 || s[0].unknown {
			parts = append(parts, "…")
			continue
		}
		parts = append(parts, render(s[0].ws))
	}
	return strings.Join(parts, " | ")
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

func quote(s string) string { return `"` + s + `"` }

// nodeText prints a node of a parsed line back as shell text.
func nodeText(n syntax.Node) string {
	var b strings.Builder
	_ = syntax.NewPrinter(syntax.Minify(false)).Print(&b, n)
	return strings.TrimSpace(b.String())
}
