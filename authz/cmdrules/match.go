package cmdrules

import (
	"path/filepath"
	"strings"
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
		if len(r.stages) != 1 {
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
