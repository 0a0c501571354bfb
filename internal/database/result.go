package database

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ValueKind says how a value is written in JSON.
type ValueKind int

// Value kinds.
const (
	Null ValueKind = iota
	Number
	Bool
	Text
	// RawJSON is a json or jsonb value, embedded as is.
	RawJSON
)

// Value is one cell in text form, cut to MaxCellBytes.
type Value struct {
	Kind ValueKind
	Text string
	// Size is the length of the whole value when Text was cut; 0 when it was not.
	Size int
}

// Result is what a query returned.
type Result struct {
	Columns []string
	// Rows are the rows kept, at most the query's MaxRows and about its MaxBytes.
	Rows [][]Value
	// Seen counts the rows read, kept or not (Seen >= len(Rows)).
	Seen int64
	// Complete says Seen is every row: counting did not stop at CountTimeout.
	Complete bool
	// Cut says why rows were not kept: "rows" (the row limit) or "bytes" (the byte budget).
	Cut string
}

// Format selects how a result is written.
type Format string

// Formats.
const (
	FormatTable Format = "table"
	FormatJSON  Format = "json"
)

// Render writes the result in format f within about maxBytes: a header line of column names
// and one line per row (table), or one JSON object per row (json), then a summary line that
// says how many rows there were and, when the result was cut, how to see the rest. It
// returns the text and the number of rows written.
func (r *Result) Render(f Format, maxBytes int) (string, int) {
	var b strings.Builder
	room := maxBytes - 300 // the summary line
	keys := jsonKeys(r.Columns)
	if f != FormatJSON {
		for i, c := range r.Columns {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(tableCell(c))
		}
		b.WriteByte('\n')
	}
	shown := 0
	var line strings.Builder
	for _, row := range r.Rows {
		line.Reset()
		if f == FormatJSON {
			line.WriteByte('{')
			for i, v := range row {
				if i > 0 {
					line.WriteByte(',')
				}
				line.Write(keys[i])
				line.WriteByte(':')
				line.WriteString(v.json())
			}
			line.WriteString("}\n")
		} else {
			for i, v := range row {
				if i > 0 {
					line.WriteString(" | ")
				}
				line.WriteString(v.table())
			}
			line.WriteByte('\n')
		}
		if b.Len()+line.Len() > room && shown > 0 {
			break
		}
		b.WriteString(line.String())
		shown++
	}
	b.WriteString(r.summary(shown))
	return b.String(), shown
}

// summary is the last line: the row count, and when rows are missing, why and what to do.
func (r *Result) summary(shown int) string {
	total := strconv.FormatInt(r.Seen, 10)
	if !r.Complete {
		total = "more than " + total
	}
	switch {
	case int64(shown) == r.Seen && r.Complete:
		if shown == 1 {
			return "(1 row)"
		}
		return fmt.Sprintf("(%d rows)", shown)
	case shown < len(r.Rows) || r.Cut == "bytes":
		return fmt.Sprintf("(%d of %s rows shown: the rest do not fit the result budget; select fewer or shorter columns, or continue with OFFSET %d)", shown, total, shown)
	default:
		next := "narrow it with WHERE, aggregate, page with LIMIT/OFFSET, or raise limit"
		if !r.Complete {
			next += fmt.Sprintf("; counting stopped after %s", CountTimeout)
		}
		return fmt.Sprintf("(%d of %s rows shown: the row limit; %s)", shown, total, next)
	}
}

// jsonKeys are the encoded object keys for the columns; a repeated name (a join's two id
// columns) gets a suffix, so that no value hides another.
func jsonKeys(cols []string) [][]byte {
	seen := map[string]int{}
	keys := make([][]byte, len(cols))
	for i, c := range cols {
		name := c
		if n := seen[c]; n > 0 {
			name = fmt.Sprintf("%s_%d", c, n+1)
		}
		seen[c]++
		keys[i], _ = json.Marshal(name)
	}
	return keys
}

func (v Value) table() string {
	if v.Kind == Null {
		return "NULL"
	}
	return tableCell(v.Text) + v.cutMarker()
}

func (v Value) json() string {
	switch v.Kind {
	case Null:
		return "null"
	case Number, Bool:
		return v.Text
	case RawJSON:
		if v.Size == 0 && json.Valid([]byte(v.Text)) {
			return v.Text
		}
	}
	b, _ := json.Marshal(v.Text + v.cutMarker())
	return string(b)
}

func (v Value) cutMarker() string {
	if v.Size == 0 {
		return ""
	}
	return fmt.Sprintf("…[%d bytes]", v.Size)
}

// tableCell keeps a value on one line and its column boundaries visible.
var tableCellEscaper = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`, "|", `\|`)

func tableCell(s string) string { return tableCellEscaper.Replace(s) }

// textValue makes a Text value, cut to MaxCellBytes on a rune boundary.
func textValue(kind ValueKind, s string) Value {
	if len(s) <= MaxCellBytes {
		return Value{Kind: kind, Text: s}
	}
	cut := MaxCellBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return Value{Kind: kind, Text: s[:cut], Size: len(s)}
}

// goValue converts what database/sql returns for a SQLite column.
func goValue(v any) Value {
	switch x := v.(type) {
	case nil:
		return Value{Kind: Null}
	case int64:
		return Value{Kind: Number, Text: strconv.FormatInt(x, 10)}
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return Value{Kind: Text, Text: strconv.FormatFloat(x, 'g', -1, 64)}
		}
		return Value{Kind: Number, Text: strconv.FormatFloat(x, 'g', -1, 64)}
	case bool:
		return Value{Kind: Bool, Text: strconv.FormatBool(x)}
	case string:
		return textValue(Text, x)
	case []byte:
		return blobValue(x)
	case time.Time:
		// The driver parses DATE/DATETIME/TIMESTAMP text; write it back the way SQLite's own
		// date functions do.
		layout := "2006-01-02 15:04:05.999999999"
		if _, off := x.Zone(); off != 0 {
			layout += "-07:00"
		}
		return Value{Kind: Text, Text: x.Format(layout)}
	}
	return textValue(Text, fmt.Sprint(v))
}

// blobValue shows a blob as a hex literal of its first bytes and its size.
func blobValue(b []byte) Value {
	const head = 32
	if len(b) <= head {
		return Value{Kind: Text, Text: "x'" + hex.EncodeToString(b) + "'"}
	}
	return Value{Kind: Text, Text: "x'" + hex.EncodeToString(b[:head]) + "'", Size: len(b)}
}

// cellBytes is what a kept row costs against Query.MaxBytes.
func cellBytes(row []Value) int {
	n := 0
	for _, v := range row {
		n += len(v.Text) + 3
	}
	return n
}
