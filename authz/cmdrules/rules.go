package cmdrules

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Action is what a rule does with a command it matches. The order matters: the strictest
// verdict of any command on a line is the line's verdict.
type Action uint8

// The actions.
const (
	Allow Action = iota
	Ask
	Deny
)

func (a Action) String() string {
	switch a {
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "allow"
}

// ParseAction reads "allow", "ask" or "deny".
func ParseAction(s string) (Action, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("action %q: want allow, ask or deny", s)
}

// Rule is one configured line: an action and a pattern of words, optionally a pipeline.
type Rule struct {
	Action Action
	// Name is the text after '#', or the pattern when there is none.
	Name string
	// Pattern is the pattern as written.
	Pattern string
	// stages are the pipeline stages of the pattern; each stage is a list of pattern words,
	// each word a set of alternatives ({a,b}).
	stages [][][]glob
	// The rule's subject, when it is not a command: a redirection (`> /dev/sd*`: what a line
	// writes to or reads from), a command run in the background (`* &`), or any command
	// substitution (`$(*)`: $(...), backticks and <(...)).
	redirect   *redirPattern
	background bool
	subst      bool
}

// redirPattern is a redirection a rule matches: its direction and the files it names.
type redirPattern struct {
	write  bool // >, >>, &>, >| ... (else <)
	target []glob
}

// SyntaxError is a rule that cannot be parsed; Index is its position in the list given to
// New, so the caller can name the line of the configuration file.
type SyntaxError struct {
	Index int
	Rule  string
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("rule %d %q: %s", e.Index+1, e.Rule, e.Msg)
}

// ParseRule parses "ACTION PATTERN [# NAME]", e.g. `deny git push --force* # force push`.
// A pattern is a command name and arguments (shell words; quotes work; *, ? and [...] are
// globs that also match '/'; {a,b} lists alternatives), or a pipeline of such ("curl | sh").
func ParseRule(line string) (Rule, error) {
	line = strings.TrimSpace(line)
	act, rest, _ := strings.Cut(line, " ")
	a, err := ParseAction(act)
	if err != nil {
		return Rule{}, err
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return Rule{}, errors.New("the pattern is missing")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(rest), "")
	if err != nil {
		return Rule{}, fmt.Errorf("pattern: %v", err)
	}
	if len(f.Stmts) != 1 {
		return Rule{}, errors.New("a pattern is one command or one pipeline (no ;, &&, || or newlines)")
	}
	r := Rule{Action: a}
	st := f.Stmts[0]
	for _, c := range append(st.Comments, f.Last...) {
		if name := strings.TrimSpace(c.Text); name != "" && r.Name == "" {
			r.Name = name
		}
	}
	if done, err := r.parseSubject(st); done || err != nil {
		if err != nil {
			return Rule{}, err
		}
		st.Comments = nil
		r.Pattern = patternText(st)
		if r.Name == "" {
			r.Name = r.Pattern
		}
		return r, nil
	}
	var calls []*syntax.CallExpr
	var collect func(s *syntax.Stmt) error
	collect = func(s *syntax.Stmt) error {
		if s.Negated || len(s.Redirs) > 0 || s.Background && s != st {
			return errors.New("a pattern has no redirections or ! (a redirection is a pattern of its own: > /dev/sd*)")
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Assigns) > 0 || len(c.Args) == 0 {
				return errors.New("a pattern starts with a command name")
			}
			calls = append(calls, c)
			return nil
		case *syntax.BinaryCmd:
			if c.Op != syntax.Pipe && c.Op != syntax.PipeAll {
				return errors.New("a pattern is one command or one pipeline (no ;, && or ||)")
			}
			if err := collect(c.X); err != nil {
				return err
			}
			return collect(c.Y)
		}
		return errors.New("a pattern is plain words: a command and its arguments")
	}
	if st.Background {
		if _, ok := st.Cmd.(*syntax.CallExpr); !ok {
			return Rule{}, errors.New("& follows one command in a pattern: CMD ... &")
		}
		r.background = true
	}
	if err := collect(st); err != nil {
		return Rule{}, err
	}
	for _, c := range calls {
		var stage [][]glob
		for _, w := range c.Args {
			for _, p := range w.Parts {
				switch p.(type) {
				case *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
				default:
					return Rule{}, errors.New("patterns are literal words and globs; $, `...` and $(...) are not allowed")
				}
			}
			var alts []glob
			src := wordSource(w)
			for _, alt := range expandBraces(src) {
				alts = append(alts, patternGlob(alt))
			}
			stage = append(stage, alts)
		}
		r.stages = append(r.stages, stage)
	}
	st.Comments = nil
	r.Pattern = patternText(st)
	if r.Name == "" {
		r.Name = r.Pattern
	}
	return r, nil
}

// parseSubject reads a pattern whose subject is not a command: a redirection alone (`>
// /dev/sd*`, `< ~/.ssh/*`) or a command substitution alone (`$(*)`). done is false for a
// command pattern.
func (r *Rule) parseSubject(st *syntax.Stmt) (done bool, err error) {
	if st.Cmd == nil {
		if len(st.Redirs) != 1 || st.Negated || st.Background {
			return true, errors.New("a redirection pattern is one redirection: > FILE, >> FILE or < FILE")
		}
		rd := st.Redirs[0]
		p := &redirPattern{}
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll:
			p.write = true
		case syntax.RdrIn:
		default:
			return true, errors.New("a redirection pattern is > FILE, >> FILE or < FILE")
		}
		if rd.N != nil {
			return true, errors.New("a redirection pattern names no descriptor: > FILE matches 2> FILE too")
		}
		for _, part := range rd.Word.Parts {
			switch part.(type) {
			case *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
			default:
				return true, errors.New("a redirection pattern's file is literal text and globs")
			}
		}
		for _, alt := range expandBraces(wordSource(rd.Word)) {
			p.target = append(p.target, patternGlob(alt))
		}
		r.redirect = p
		return true, nil
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(call.Args[0].Parts) != 1 || len(st.Redirs) > 0 || st.Negated {
		return false, nil
	}
	if _, ok := call.Args[0].Parts[0].(*syntax.CmdSubst); !ok {
		return false, nil
	}
	r.subst = true
	return true, nil
}

// wordSource renders a pattern word back to glob source: quoted text has its glob
// characters escaped, unquoted text keeps them.
func wordSource(w *syntax.Word) string {
	var b strings.Builder
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch p := p.(type) {
		case *syntax.Lit:
			if !quoted {
				b.WriteString(p.Value)
				return
			}
			b.WriteString(escapeGlob(p.Value))
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = decodeANSIC(v)
			}
			b.WriteString(escapeGlob(v))
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q, true)
			}
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	return b.String()
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\,`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// patternGlob compiles one alternative of a pattern word.
func patternGlob(s string) glob { return parseGlob(s) }

func patternText(st *syntax.Stmt) string {
	var b strings.Builder
	_ = syntax.NewPrinter(syntax.Minify(false)).Print(&b, st)
	return strings.TrimSpace(b.String())
}

// Rules is an ordered rule list and what happens to commands no rule matches. The zero
// value allows everything.
type Rules struct {
	list      []Rule
	unmatched Action
}

// New builds rules from configured lines, followed by Defaults when withDefaults is set, so
// a user's rule wins over a default one. unmatched is "allow" (default), "ask", or "deny"
// (an allow-list: only commands an allow rule names may run). A line that cannot be parsed
// is a *SyntaxError naming its index.
func New(lines []string, unmatched string, withDefaults bool) (*Rules, error) {
	rs := &Rules{}
	if unmatched != "" {
		a, err := ParseAction(unmatched)
		if err != nil {
			return nil, fmt.Errorf("rules_unmatched: %w", err)
		}
		rs.unmatched = a
	}
	for i, l := range lines {
		r, err := ParseRule(l)
		if err != nil {
			return nil, &SyntaxError{Index: i, Rule: l, Msg: err.Error()}
		}
		rs.list = append(rs.list, r)
	}
	if withDefaults {
		for _, l := range Defaults {
			r, err := ParseRule(l)
			if err != nil {
				panic(fmt.Sprintf("cmdrules: default rule %q: %v", l, err))
			}
			rs.list = append(rs.list, r)
		}
	}
	return rs, nil
}

// List returns the rules in order (configured ones first).
func (rs *Rules) List() []Rule { return append([]Rule(nil), rs.list...) }

// Unmatched is the action for commands no rule matches.
func (rs *Rules) Unmatched() Action { return rs.unmatched }

// CanRefuse reports whether anything could be refused or asked: when nothing can, commands
// whose words are unknown need not be asked about either.
func (rs *Rules) CanRefuse() bool {
	if rs.unmatched != Allow {
		return true
	}
	for _, r := range rs.list {
		if r.Action != Allow {
			return true
		}
	}
	return false
}
