// Package cmdrules decides whether a shell line may run: ordered allow, ask and deny rules
// matched on every simple command the line runs, found with a real shell parser
// (mvdan.cc/sh/v3), never with a regular expression over the text.
//
// A rule is "ACTION PATTERN [# NAME]":
//
//	deny git push --force*   # force push rewrites shared history
//	ask  rm -rf /*
//	deny curl | sh
//
// The first pattern word matches the command name (also the base name of a path:
// /usr/bin/git is git); the others must appear among the arguments in that order, not
// necessarily adjacent (git -C repo push origin --force matches "git push --force*"). Words
// are globs ('*' also matches '/'), {a,b} lists alternatives, quotes work as in the shell. A
// pattern with '|' matches a pipeline whose stages contain the pattern's commands in order.
// The first rule that matches a command decides it; a command no rule matches gets the
// unmatched action (allow by default; deny makes the rules an allow-list).
//
// The line's verdict is the strictest of its commands. A command counts wherever it is:
// after ;, &&, ||, in pipelines, subshells, groups, functions (defined, called or not),
// $(...), backticks, process substitution, here-documents, conditionals and loops; inside
// bash -c / sh -c scripts, eval, alias and trap bodies, scripts fed to a shell on standard
// input (here-document, here-string, < file); scripts run with source, ., or a shell's file
// argument (read when Env.ReadFile is set); and behind the wrappers sudo, doas, env (with
// -S), xargs, nice, ionice, chrt, taskset, timeout, nohup, setsid, stdbuf, time, unbuffer,
// flock, exec, command, builtin, unshare, nsenter, su -c, runuser, script -c, watch, strace,
// ltrace and find -exec.
//
// Aliases and functions are followed: a command whose name the line — or, through Env.Defs,
// an earlier line of the same shell — defines as an alias or a function is checked as itself
// and as each definition, with its arguments as the positional parameters ("$@", "$1"...).
// Positional parameters set with set --, shift or bash -c SCRIPT NAME ARGS are followed too,
// without control flow: every value they may have counts. A function body is also checked
// where it is defined with unknown arguments, so a body that hands its arguments to a command
// a rule could match is asked about even if every call on the line is harmless. The shell's
// hooks are commands too: PROMPT_COMMAND, the prompt strings' substitutions, BASH_ENV,
// BASH_ALIASES, bind.
//
// Words are evaluated as far as they can be without running anything: quotes, backslashes,
// $'...' escapes and brace expansion are resolved. What is only known at run time — a
// variable, a command substitution, a file glob — is a wildcard, so a rule that might match
// it makes the command asked about (never allowed by a guess; denied only when every rule it
// could meet denies). "$@", "${a[@]}" and their kind are any number of such words. A
// command whose name is not literal, a script that cannot be seen (a variable's contents, a
// pipe into a shell, a file that does not exist yet), and a line the parser cannot read are
// asked about whenever the rules could refuse anything.
//
// Not seen: what programs do once they run (git aliases starting with '!', make targets,
// python -c, a script's own behaviour beyond its shell text). The terminal sandbox, not the
// rules, limits what they can touch.
package cmdrules
