// Package lazyregexp holds regular expressions that compile on first use instead of at package
// initialisation. Every package toolhost links runs its initialisation on every start, before
// the server can answer; a parser for some tool's output that is never used in a session should
// not cost that start anything.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled the first time one of its methods is called. The
// expression must be valid: an invalid one panics on first use, as regexp.MustCompile would
// at start.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

// New returns a Regexp for expr, compiled on first use.
func New(expr string) *Regexp {
	return &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// Regexp returns the compiled expression, compiling it on the first call.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// String returns the source text of the expression without compiling it.
func (r *Regexp) String() string { return r.expr }

// The methods below are those of regexp.Regexp that toolhost uses.

func (r *Regexp) MatchString(s string) bool            { return r.re().MatchString(s) }
func (r *Regexp) Match(b []byte) bool                  { return r.re().Match(b) }
func (r *Regexp) FindString(s string) string           { return r.re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int       { return r.re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) SubexpIndex(name string) int { return r.re().SubexpIndex(name) }
