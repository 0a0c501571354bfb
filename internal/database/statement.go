package database

import (
	"fmt"
	"strings"
)

// The statement check is the first of several layers that keep a query from changing anything
// (the others are driver-level and listed in the package comment). It reads the SQL the way the
// server's lexer does — strings, quoted identifiers, comments, dollar quotes — so that text in
// a string literal is never taken for code, and code is never hidden from it in something the
// check took for a string. It decides three things: there is one statement, that statement is
// a kind that only reads, and it calls none of the functions that have effects a read-only
// transaction does not stop.

// dialect selects the lexical rules of one server.
type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
)

// readKeywords are the statement kinds a query may start with.
var readKeywords = map[dialect][]string{
	// PRAGMA is narrowed further by the SQLite authorizer to pragmas that only report.
	dialectSQLite:   {"select", "with", "values", "pragma"},
	dialectPostgres: {"select", "with", "values", "table"},
}

// deniedFunctions are PostgreSQL functions a read-only transaction does not stop (checked on
// PostgreSQL 15): they end or signal other sessions, change server or session state, write
// large objects or server files, reach other servers, or run SQL text that this check never
// sees. Names ending in '*' are prefixes. It is the floor the check applies before any
// connection; once connected, every function the server's own catalog says may write is
// refused too (pgWriterFunctions), so a function a newer server adds is covered without an
// entry here.
var deniedFunctions = []string{
	// other sessions and the server process
	"pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile*",
	"pg_signal_backend", "pg_log_backend_memory_contexts", "pg_promote", "pg_switch_wal",
	"pg_switch_xlog", "pg_create_restore_point", "pg_backup_*", "pg_start_backup",
	"pg_stop_backup", "pg_wal_replay_*", "pg_xlog_replay_*", "pg_stat_reset*",
	"pg_stat_statements_reset", "pg_import_system_collations", "pg_notify",
	// replication slots and origins
	"pg_create_*", "pg_drop_replication_slot", "pg_copy_*_replication_slot",
	"pg_replication_slot_advance", "pg_logical_slot_get_*", "pg_logical_emit_message",
	"pg_replication_origin_*",
	// locks held past the transaction (session-level advisory locks)
	"pg_advisory_*", "pg_try_advisory_*",
	// session settings (set_config outlives the transaction with is_local false)
	"set_config",
	// sequences (a read-only transaction refuses these; refused here with a clearer message)
	"nextval", "setval",
	// large objects: lo_import and lo_create succeed in a read-only transaction
	"lo_*", "lowrite", "loread",
	// server files (adminpack writes, core functions read)
	"pg_file_*", "pg_read_file", "pg_read_binary_file", "pg_ls_*", "pg_stat_file", "pg_logdir_ls",
	// other servers and background work
	"dblink*", "pg_background_*", "http_*", "http",
	// functions that run SQL given as text
	"query_to_xml*", "query_to_xmlschema", "cursor_to_xml*", "ts_stat", "ts_rewrite",
	"crosstab*", "xpath_table",
}

// deniedFunction returns the deny-list entry that matches name, a function name as written
// (any case, without schema).
func deniedFunction(name string) (string, bool) {
	name = strings.ToLower(name)
	for _, d := range deniedFunctions {
		if p, ok := strings.CutSuffix(d, "*"); ok {
			if strings.HasPrefix(name, p) {
				return d, true
			}
		} else if name == d {
			return d, true
		}
	}
	return "", false
}

// checked is a statement that passed the check.
type checked struct {
	// SQL is the statement without trailing semicolons and comments, ready to embed (a
	// PostgreSQL cursor declaration, an EXPLAIN prefix).
	SQL string
	// Calls are the names of the functions it calls, lower case, as written (PostgreSQL).
	Calls []string
	// Keyword is the statement kind, lower case: select, with, values, table or pragma.
	Keyword string
}

// checkStatement lexes sql in dialect d and returns it ready to run, or a *Error of kind
// KindRefused (or KindInvalid for text that is no statement) that says why not.
func checkStatement(d dialect, sql string) (checked, error) {
	toks, err := lex(d, sql)
	if err != nil {
		return checked{}, err
	}
	// Trailing semicolons end the statement; anything after the first one is a second statement.
	end := len(toks)
	for end > 0 && toks[end-1].is(';') {
		end--
	}
	for _, t := range toks[:end] {
		if t.is(';') {
			return checked{}, refused("the SQL holds more than one statement; send one statement per call")
		}
	}
	toks = toks[:end]
	if len(toks) == 0 {
		return checked{}, &Error{Kind: KindInvalid, Msg: "the SQL is empty (or only comments)"}
	}
	first := ""
	for _, t := range toks {
		if t.kind == tokWord {
			first = t.text
			break
		}
		if !t.is('(') {
			break
		}
	}
	if first == "" || !contains(readKeywords[d], first) {
		what := "this statement"
		if first != "" {
			what = strings.ToUpper(first) + " statements"
		}
		if first == "explain" {
			return checked{}, refused("EXPLAIN goes through the explain operation: pass the bare query to explain")
		}
		kinds := strings.ToUpper(strings.Join(readKeywords[d], ", "))
		return checked{}, refused(fmt.Sprintf("%s are refused: the connection only reads, and runs only %s statements", what, kinds))
	}
	var calls []string
	if d == dialectPostgres {
		for i, t := range toks {
			if (t.kind != tokWord && t.kind != tokQuoted) || i+1 >= len(toks) || !toks[i+1].is('(') {
				continue
			}
			if entry, bad := deniedFunction(t.text); bad {
				return checked{}, refused(fmt.Sprintf("%s() is refused: it has effects a read-only transaction does not stop (deny list entry %s)", t.text, entry))
			}
			calls = append(calls, strings.ToLower(t.text))
		}
	}
	return checked{SQL: strings.TrimSpace(sql[:toks[len(toks)-1].end]), Keyword: first, Calls: calls}, nil
}

func refused(msg string) *Error {
	return &Error{Kind: KindRefused, Msg: msg}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

type tokKind int

const (
	tokWord   tokKind = iota // an unquoted identifier or keyword; text is lower case
	tokQuoted                // a quoted identifier; text is its name
	tokString                // a string, blob or bit literal (also dollar-quoted)
	tokNumber
	tokParam // $1, ?, ?3, :name, @name
	tokPunct // one character of anything else
	tokSkip  // whitespace or a comment; lexToken returns it, lex drops it
)

type token struct {
	kind tokKind
	text string
	end  int // byte offset just past the token in the source
}

func (t token) is(c byte) bool { return t.kind == tokPunct && len(t.text) == 1 && t.text[0] == c }

// lex splits sql into tokens, dropping whitespace and comments. It fails on text the server
// would reject or read differently: an unterminated string, identifier or comment, and (for
// PostgreSQL) Unicode-escaped identifiers, whose names the check would have to decode.
func lex(d dialect, sql string) ([]token, error) {
	var toks []token
	for i := 0; i < len(sql); {
		tok, err := lexToken(d, sql, i)
		if err != nil {
			return nil, err
		}
		if tok.kind != tokSkip {
			toks = append(toks, tok)
		}
		i = tok.end
	}
	return toks, nil
}

// lexToken reads the token that starts at sql[i]; whitespace and comments come back as tokSkip.
// The order of the cases matters: a dialect's special starts come before the general classes.
func lexToken(d dialect, sql string, i int) (token, error) {
	c := sql[i]
	pg, lite := d == dialectPostgres, d == dialectSQLite
	next := func(b byte) bool { return i+1 < len(sql) && sql[i+1] == b }
	switch {
	case isSpace(c):
		return token{tokSkip, "", i + 1}, nil
	case c == '-' && next('-'):
		return token{tokSkip, "", scan(sql, i, func(b byte) bool { return b != '\n' })}, nil
	case c == '/' && next('*'):
		end, err := blockCommentEnd(d, sql, i)
		return token{tokSkip, "", end}, err
	case c == '\'':
		return lexString(sql, i, i, false)
	case pg && (c == 'e' || c == 'E') && next('\'') && !wordBefore(sql, i):
		return lexString(sql, i, i+1, true)
	case pg && (c == 'u' || c == 'U') && i+2 < len(sql) && sql[i+1] == '&' && sql[i+2] == '"' && !wordBefore(sql, i):
		return token{}, refused(`Unicode-escaped identifiers (U&"...") are not accepted; write the name plainly`)
	case c == '"' || (lite && c == '`'):
		return lexQuotedName(sql, i)
	case lite && c == '[':
		j := strings.IndexByte(sql[i:], ']')
		if j < 0 {
			return token{}, unterminated("quoted identifier")
		}
		return token{tokQuoted, sql[i+1 : i+j], i + j + 1}, nil
	case pg && c == '$' && i+1 < len(sql) && isDigit(sql[i+1]):
		return spanToken(tokParam, sql, i, scan(sql, i+1, isDigit)), nil
	case pg && c == '$' && !wordBefore(sql, i):
		return lexDollar(sql, i)
	case lite && (c == '?' || c == ':' || c == '@' || c == '$'):
		return spanToken(tokParam, sql, i, scan(sql, i+1, isIdentPart)), nil
	case isDigit(c) || (c == '.' && i+1 < len(sql) && isDigit(sql[i+1])):
		return spanToken(tokNumber, sql, i, scan(sql, i+1, func(b byte) bool { return isIdentPart(b) || b == '.' })), nil
	case isIdentStart(c):
		end := scan(sql, i+1, func(b byte) bool { return isIdentPart(b) || (pg && b == '$') })
		return token{tokWord, strings.ToLower(sql[i:end]), end}, nil
	default:
		return token{tokPunct, sql[i : i+1], i + 1}, nil
	}
}

func unterminated(what string) error {
	return &Error{Kind: KindInvalid, Msg: "the SQL has an unterminated " + what}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// scan returns the offset of the first byte from sql[j] on that in does not accept.
func scan(sql string, j int, in func(byte) bool) int {
	for j < len(sql) && in(sql[j]) {
		j++
	}
	return j
}

// spanToken is the token of kind k that is the text sql[i:end].
func spanToken(k tokKind, sql string, i, end int) token { return token{k, sql[i:end], end} }

// blockCommentEnd returns the offset just past the block comment at sql[i]. PostgreSQL nests
// block comments; SQLite does not, and accepts one that runs to the end.
func blockCommentEnd(d dialect, sql string, i int) (int, error) {
	depth := 0
	for {
		if i+1 >= len(sql) {
			if d == dialectSQLite && depth == 1 {
				return len(sql), nil
			}
			return 0, unterminated("comment")
		}
		if sql[i] == '/' && sql[i+1] == '*' && (depth == 0 || d == dialectPostgres) {
			depth++
			i += 2
			continue
		}
		if sql[i] == '*' && sql[i+1] == '/' {
			depth--
			i += 2
			if depth == 0 {
				return i, nil
			}
			continue
		}
		i++
	}
}

// lexString reads the string literal that starts at sql[i] with its quote at sql[quote] (after
// PostgreSQL's E prefix).
func lexString(sql string, i, quote int, backslashes bool) (token, error) {
	j, ok := quoted(sql, quote, '\'', backslashes)
	if !ok {
		return token{}, unterminated("string")
	}
	return token{tokString, sql[i:j], j}, nil
}

// lexQuotedName reads the identifier quoted by sql[i] ("..." or SQLite's `...`); a doubled
// quote inside stands for itself.
func lexQuotedName(sql string, i int) (token, error) {
	q := sql[i]
	j, ok := quoted(sql, i, q, false)
	if !ok {
		return token{}, unterminated("quoted identifier")
	}
	name := strings.ReplaceAll(sql[i+1:j-1], string([]byte{q, q}), string(q))
	return token{tokQuoted, name, j}, nil
}

// lexDollar reads PostgreSQL's dollar-quoted string ($$...$$ or $tag$...$tag$) at sql[i]; a "$"
// that starts none is punctuation.
func lexDollar(sql string, i int) (token, error) {
	j := scan(sql, i+1, isIdentPart)
	if j >= len(sql) || sql[j] != '$' || (j > i+1 && isDigit(sql[i+1])) {
		return token{tokPunct, "$", i + 1}, nil
	}
	tag := sql[i : j+1]
	k := strings.Index(sql[j+1:], tag)
	if k < 0 {
		return token{}, unterminated("dollar-quoted string")
	}
	end := j + 1 + k + len(tag)
	return token{tokString, sql[i:end], end}, nil
}

// quoted returns the offset just past the literal that starts with the quote q at sql[i]. A
// doubled quote stands for itself; with backslashes (PostgreSQL's E'...' strings) a backslash
// escapes the next byte.
func quoted(sql string, i int, q byte, backslashes bool) (int, bool) {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if backslashes {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// wordBefore reports whether sql[i] continues an identifier (so "type$" or "name'..." is not
// the start of a quote).
func wordBefore(sql string, i int) bool {
	return i > 0 && (isIdentPart(sql[i-1]) || sql[i-1] == '$')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart accepts the ASCII letters, underscore and every byte of a multi-byte UTF-8
// character, as both servers do.
func isIdentStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

// stripExplain removes an EXPLAIN (or SQLite's EXPLAIN QUERY PLAN) that a caller put in front
// of the query it wants explained. EXPLAIN with options (ANALYZE runs the query) is refused.
func stripExplain(d dialect, sql string) (string, error) {
	toks, err := lex(d, sql)
	if err != nil {
		return "", err
	}
	if len(toks) == 0 || toks[0].kind != tokWord || toks[0].text != "explain" {
		return sql, nil
	}
	rest := toks[1:]
	if d == dialectSQLite && len(rest) >= 2 && rest[0].text == "query" && rest[1].text == "plan" {
		return sql[rest[1].end:], nil
	}
	if len(rest) > 0 && (rest[0].is('(') || contains([]string{"analyze", "analyse", "verbose", "query"}, rest[0].text)) {
		return "", refused("EXPLAIN options are not accepted (ANALYZE would run the statement); pass the bare query")
	}
	return sql[toks[0].end:], nil
}
