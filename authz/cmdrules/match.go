package cmdrules

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// rules applies the first single-command rule that matches. When words only known at run
// time may or may not match a rule, the rules after it may decide too: if every rule that
// could decide denies, the command is denied, else it is asked about (never allowed by a
// guess; a rule that may allow does not count, so a guess never weakens a deny either).
func (c *checker) rules(ws []word) {
	var first *Rule // the first rule that may refuse it
	possible := map[Action]bool{}
	decided := false
	for i := range c.rs.list {
		r := &c.rs.list[i]
		if len(r.stages) != 1 || r.background {
			continue
		}
		lvl := matchStage(r.stages[0], ws)
		if lvl == no || lvl == maybe && r.Action == Allow {
			continue
		}
		if lvl == yes && len(possible) == 0 {
			v := Verdict{Action: r.Action, Rule: r.Name, Command: shorten(render(ws))}
			if r.Action != Allow {
				v.Reason = "rule " + quote(r.Name)
			}
			c.record(v)
			return
		}
		if first == nil {
			first = r
		}
		possible[r.Action] = true
		if lvl == yes {
			decided = true
			break
		}
	}
	if !decided && first == nil {
		switch c.rs.unmatched {
		case Deny:
			c.record(Verdict{Action: Deny, Command: shorten(render(ws)), Reason: "no allow rule names it (allow-list)"})
		case Ask:
			c.record(Verdict{Action: Ask, Command: shorten(render(ws)), Reason: "no rule names it"})
		}
		return
	}
	if !decided {
		possible[c.rs.unmatched] = true
	}
	if len(possible) == 1 && possible[Deny] {
		c.record(Verdict{Action: Deny, Rule: first.Name, Command: shorten(render(ws)),
			Reason: "rule " + quote(first.Name) + " whatever the words only known when it runs are"})
		return
	}
	c.record(Verdict{Action: Ask, Rule: first.Name, Command: shorten(render(ws)),
		Reason: "may match rule " + quote(first.Name) + "; some words are only known when it runs"})
}

// Match levels.
type level uint8

const (
	no level = iota
	maybe
	yes
)

// matchStage matches a pattern (name, then arguments in order, not necessarily adjacent)
// against a command's words.
func matchStage(pat [][]glob, ws []word) level {
	if len(pat) == 0 || len(ws) == 0 {
		return no
	}
	if !nameMatches(pat[0], ws[0]) {
		return no
	}
	return matchArgs(pat[1:], ws[1:])
}

func nameMatches(alts []glob, w word) bool {
	names := []string{w.lit}
	if strings.Contains(w.lit, "/") {
		names = append(names, filepath.Base(w.lit))
	}
	for _, g := range alts {
		for _, n := range names {
			if g.match(n) {
				return true
			}
		}
	}
	return false
}

// wordMatches says whether a command word can be one of a pattern word's alternatives.
func wordMatches(alts []glob, w word) level {
	best := no
	for _, g := range alts {
		if w.exact {
			if g.match(w.lit) {
				return yes
			}
			continue
		}
		if overlaps(g, w.g) {
			best = maybe
		}
	}
	return best
}

// matchArgs finds the pattern words as a subsequence of the arguments; a word that may
// become several words can stand for several pattern words.
func matchArgs(pat [][]glob, args []word) level {
	memo := map[[2]int]level{}
	var m func(i, j int) level
	m = func(i, j int) level {
		if i == len(pat) {
			return yes
		}
		if j == len(args) {
			return no
		}
		k := [2]int{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		best := m(i, j+1)
		if best != yes {
			if lv := wordMatches(pat[i], args[j]); lv != no {
				rest := m(i+1, j+1)
				if args[j].multi {
					rest = max(rest, m(i+1, j))
				}
				best = max(best, min(lv, rest))
			}
		}
		memo[k] = best
		return best
	}
	return m(0, 0)
}

// matchPipeline finds the pattern's stages, in order, among the pipeline's stages.
func matchPipeline(pat [][][]glob, stages [][]cmd) level {
	var m func(i, j int) level
	m = func(i, j int) level {
		if i == len(pat) {
			return yes
		}
		best := no
		for k := j; k < len(stages) && best != yes; k++ {
			for _, cm := range stages[k] {
				lv := maybe
				if !cm.unknown {
					lv = matchStage(pat[i], cm.ws)
				}
				if lv == no {
					continue
				}
				best = max(best, min(lv, m(i+1, k+1)))
			}
		}
		return best
	}
	return m(0, 0)
}

// redirects checks a statement's redirections against the redirection rules: the first rule
// whose direction and file match decides; a file only known when the line runs is asked about
// when a rule that refuses may match it. A redirection no rule names is allowed (unmatched
// applies to commands).
func (c *checker) redirects(st *syntax.Stmt) {
	for _, rd := range st.Redirs {
		write := false
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			write = true
		case syntax.RdrIn:
		default:
			continue // here-documents, descriptor copies
		}
		targets := words(rd.Word, nil)
		for i := range c.rs.list {
			r := &c.rs.list[i]
			if r.redirect == nil || r.redirect.write != write && rd.Op != syntax.RdrInOut {
				continue
			}
			lvl := no
			for _, w := range targets {
				l := wordMatches(r.redirect.target, w)
				if l == maybe && !anchored(w.g) {
					// A file whose start is only known when it runs ($TMPDIR/x, "$out"): the
					// sandbox decides where it may write; asking about every such line would
					// ask about most scripts.
					l = no
				}
				lvl = max(lvl, l)
			}
			what := map[bool]string{true: "> ", false: "< "}[write] + shorten(render(targets))
			if lvl == yes {
				v := Verdict{Action: r.Action, Rule: r.Name, Command: what}
				if r.Action != Allow {
					v.Reason = "rule " + quote(r.Name)
				}
				c.record(v)
				break
			}
			if lvl == maybe && r.Action != Allow {
				c.record(Verdict{Action: Ask, Rule: r.Name, Command: what,
					Reason: "may match rule " + quote(r.Name) + "; the file is only known when it runs"})
				break
			}
		}
	}
}

// background checks a command run in the background (CMD &) against the rules for that.
func (c *checker) background(ws []word) {
	for i := range c.rs.list {
		r := &c.rs.list[i]
		if !r.background {
			continue
		}
		lvl := matchStage(r.stages[0], ws)
		if lvl == yes || lvl == maybe && r.Action != Allow {
			v := Verdict{Action: r.Action, Rule: r.Name, Command: shorten(render(ws)) + " &", Reason: "rule " + quote(r.Name)}
			if lvl == maybe {
				v.Action, v.Reason = Ask, "may match rule "+quote(r.Name)+"; some words are only known when it runs"
			}
			c.record(v)
			return
		}
	}
}

// substitution checks a command substitution ($(...), backticks, <(...)) against the rules
// for that; the commands inside are checked as commands too.
func (c *checker) substitution(text string) {
	for i := range c.rs.list {
		if r := &c.rs.list[i]; r.subst {
			c.record(Verdict{Action: r.Action, Rule: r.Name, Command: shorten(text), Reason: "rule " + quote(r.Name)})
			return
		}
	}
}

// anchored reports whether a glob starts with a literal directory ("/dev/$X", "/etc/*"), so that a
// partly known redirection target can still be told to fall under a rule's directory.
func anchored(g glob) bool {
	n := 0
	for _, t := range g {
		if t.kind != gLit {
			break
		}
		n++
	}
	return n > 1 && g[0].kind == gLit && g[0].r == '/'
}
