package tasks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"toolhost/internal/lazyregexp"
)

// fileLineCol is "path:line:col: message" (go, gcc-style tools); col is optional.
var fileLineCol = lazyregexp.New(`^(\S[^:]*?):(\d+)(?::(\d+))?: (.+)$`)

func parseFileLineCol(l string) (Diagnostic, bool) {
	m := fileLineCol.FindStringSubmatch(strings.TrimRight(l, "\r"))
	if m == nil {
		return Diagnostic{}, false
	}
	line, err := strconv.Atoi(m[2])
	if err != nil || line <= 0 {
		return Diagnostic{}, false
	}
	col, _ := strconv.Atoi(m[3])
	return Diagnostic{File: m[1], Line: line, Col: col, Message: strings.TrimSpace(m[4])}, true
}

// ParseGoVet parses `go vet` output: "vet: file:line:col: msg" for packages that do not
// type-check (errors), "file:line:col: msg" for analyzer findings (warnings); "# pkg" headers are
// skipped.
func ParseGoVet(out []byte) []Diagnostic {
	var ds []Diagnostic
	for _, l := range strings.Split(string(out), "\n") {
		sev := "warning"
		if rest, ok := strings.CutPrefix(l, "vet: "); ok {
			l, sev = rest, "error"
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		d, ok := parseFileLineCol(l)
		if !ok || !strings.HasSuffix(d.File, ".go") {
			continue
		}
		d.Severity = sev
		ds = append(ds, d)
	}
	return ds
}

// jsonLines calls fn with each line of out that starts a JSON object (go test -json, cargo's
// messages); other lines (a tool's stderr teed in between) are skipped.
func jsonLines(out []byte, fn func(line []byte)) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 0 && line[0] == '{' {
			fn(line)
		}
	}
}

// tscLine is `tsc --pretty false`: "file(line,col): error TS2322: message".
var tscLine = lazyregexp.New(`^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$`)

// ParseTSC parses `tsc --noEmit --pretty false`; indented continuation lines (an elaborated type
// mismatch) are joined to the message.
func ParseTSC(out []byte) []Diagnostic {
	var ds []Diagnostic
	for _, l := range strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n") {
		if m := tscLine.FindStringSubmatch(l); m != nil {
			line, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			sev := m[4]
			if sev == "message" {
				sev = "note"
			}
			ds = append(ds, Diagnostic{File: m[1], Line: line, Col: col, Severity: sev, Code: m[5], Message: m[6]})
			continue
		}
		if len(ds) > 0 && strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" {
			last := &ds[len(ds)-1]
			last.Message = oneLine(last.Message+" "+strings.TrimSpace(l), 400)
		}
	}
	return ds
}

// ruffLine is ruff's concise format: "file:line:col: CODE [*] message", "file:line:col:
// SyntaxError: message", or in preview "file:line:col: rule-name: [*] message".
var ruffLine = lazyregexp.New(`^(.+?):(\d+):(\d+): (?:([A-Z]+[0-9]+) |([A-Za-z-]+): )?(?:\[\*\] )?(.*)$`)

// ParseRuff parses `ruff check --output-format=concise`. Every finding fails ruff, so each is an
// error, as ruff itself reports them.
func ParseRuff(out []byte) []Diagnostic {
	var ds []Diagnostic
	for _, l := range strings.Split(string(out), "\n") {
		m := ruffLine.FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		code := m[4]
		if code == "" {
			code = m[5]
		}
		ds = append(ds, Diagnostic{File: m[1], Line: line, Col: col, Severity: "error", Code: code, Message: m[6]})
	}
	return ds
}

// mypyLine is "file:line[:col]: severity: message  [code]".
var mypyLine = lazyregexp.New(`^(.+?):(\d+):(?:(\d+):)? (error|warning|note): (.*?)(?:  \[([a-z0-9-]+)\])?$`)

// ParseMypy parses mypy's default output (with --show-column-numbers --show-error-codes).
func ParseMypy(out []byte) []Diagnostic {
	var ds []Diagnostic
	for _, l := range strings.Split(string(out), "\n") {
		m := mypyLine.FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		ds = append(ds, Diagnostic{File: m[1], Line: line, Col: col, Severity: m[4], Message: m[5], Code: m[6]})
	}
	return ds
}

// ParseESLintJSON parses `eslint --format json`: severity 2 is an error, 1 a warning; fatal
// parse errors are errors.
func ParseESLintJSON(report []byte) ([]Diagnostic, error) {
	var files []struct {
		FilePath string `json:"filePath"`
		Messages []struct {
			RuleID   string `json:"ruleId"`
			Severity int    `json:"severity"`
			Message  string `json:"message"`
			Line     int    `json:"line"`
			Column   int    `json:"column"`
			Fatal    bool   `json:"fatal"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(report, &files); err != nil {
		return nil, err
	}
	var ds []Diagnostic
	for _, f := range files {
		for _, m := range f.Messages {
			sev := "warning"
			if m.Severity >= 2 || m.Fatal {
				sev = "error"
			}
			ds = append(ds, Diagnostic{File: f.FilePath, Line: m.Line, Col: m.Column, Severity: sev, Message: oneLine(m.Message, 400), Code: m.RuleID})
		}
	}
	return ds, nil
}

// ParseCargoJSON parses `cargo check --message-format=json`: each compiler-message with a
// primary span becomes a diagnostic at that span.
func ParseCargoJSON(out []byte) []Diagnostic {
	var ds []Diagnostic
	jsonLines(out, func(line []byte) {
		var msg struct {
			Reason  string `json:"reason"`
			Message struct {
				Message string `json:"message"`
				Level   string `json:"level"`
				Code    *struct {
					Code string `json:"code"`
				} `json:"code"`
				Spans []struct {
					FileName    string `json:"file_name"`
					LineStart   int    `json:"line_start"`
					ColumnStart int    `json:"column_start"`
					IsPrimary   bool   `json:"is_primary"`
				} `json:"spans"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.Reason != "compiler-message" {
			return
		}
		m := msg.Message
		sev := m.Level
		switch {
		case strings.HasPrefix(sev, "error"):
			sev = "error"
		case sev == "warning":
		default:
			return // notes, help and failure-notes without a place of their own
		}
		for _, s := range m.Spans {
			if !s.IsPrimary {
				continue
			}
			d := Diagnostic{File: s.FileName, Line: s.LineStart, Col: s.ColumnStart, Severity: sev, Message: oneLine(m.Message, 400)}
			if m.Code != nil {
				d.Code = m.Code.Code
			}
			ds = append(ds, d)
			break
		}
	})
	return ds
}
