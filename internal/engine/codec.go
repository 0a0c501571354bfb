package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"toolhost/authz"
	"toolhost/store"
)

// How the history stores a record, so that a small call costs a few hundred bytes on disk
// (BenchmarkRecordBytes measures it; a record of JSON with long keys, stored with its five
// index entries each repeating all five indexed values, on pages bbolt split half-full, cost
// about 3 KB).
//
//   - The five indexed values (tool, status, category, principal, conversation) are stored
//     as codes: each "field=value" gets a number from the values bucket's sequence the first
//     time a record has it (codes and values hold the two directions), and its code is
//     deleted with its count's last record. Codes are never reused, so a code read anywhere
//     means one value forever (the engine caches them). Filters compare the decoded values.
//   - An index entry's value is formatV1 and the five codes as uvarints; a record's value is
//     the same prefix followed by the rest of the record as JSON with short keys, without
//     what the key or the rest already say: the id (the key), the start time (the id's, to
//     the microsecond; an offset when they differ), the operation repeated in the arguments
//     and the command line when the arguments hold the same one.
//   - Records and index entries are appended in key order (ids sort by start time), so they
//     are written with store.Tx.Append, which fills pages instead of splitting them in half.
//
// Records and index entries written before this format (JSON, and "\x1f"-joined strings)
// are read as they are; they leave with the history's bounds.

// formatV1 starts a value in this encoding; a value in the older one starts with '{' (a
// record) or a printable byte (an index entry).
const formatV1 byte = 1

// valuesBucket maps a code (store.SeqKey) to its "field=value"; codesBucket the other way.
var (
	valuesBucket = store.Path{store.BucketExecutions, "values"}
	codesBucket  = store.Path{store.BucketExecutions, "codes"}
)

// dictionary resolves codes inside one transaction, caching what it read in the engine.
type dictionary struct {
	tx    *store.Tx
	cache *sync.Map // code -> "field=value"
}

func (e *Engine) dict(tx *store.Tx) dictionary { return dictionary{tx: tx, cache: &e.codes} }

// value returns the value a code stands for ("" for code 0, an empty field).
func (d dictionary) value(code uint64) string {
	if code == 0 {
		return ""
	}
	if v, ok := d.cache.Load(code); ok {
		return v.(string)
	}
	b, ok := d.tx.Get(valuesBucket, store.SeqKey(code))
	if !ok {
		return ""
	}
	_, v, _ := strings.Cut(string(b), "=")
	d.cache.Store(code, v)
	return v
}

// code returns the code of field=value, 0 when it has none (no stored record has it).
func (d dictionary) code(field, value string) uint64 {
	if value == "" {
		return 0
	}
	b, ok := d.tx.Get(codesBucket, field+"="+value)
	if !ok {
		return 0
	}
	c, n := binary.Uvarint(b)
	if n <= 0 {
		return 0
	}
	return c
}

// addCount adjusts the count of key ("field=value") by delta, giving the value a code when it
// has none and deleting the code with the count's last record. Counts keep the format of older
// toolhosts (eight bytes), which may share the state directory while they run: the codes live
// in a bucket of their own.
func addCount(tx *store.Tx, key string, d int64) error {
	n := count(tx, key) + d
	b, hasCode := tx.Get(codesBucket, key)
	if n <= 0 {
		if hasCode {
			if code, m := binary.Uvarint(b); m > 0 {
				if err := tx.Delete(valuesBucket, store.SeqKey(code)); err != nil {
					return err
				}
			}
			if err := tx.Delete(codesBucket, key); err != nil {
				return err
			}
		}
		return tx.Delete(countsBucket, key)
	}
	if !hasCode {
		code, err := tx.NextSequence(valuesBucket)
		if err != nil {
			return err
		}
		if err := tx.Put(valuesBucket, store.SeqKey(code), []byte(key)); err != nil {
			return err
		}
		if err := tx.Put(codesBucket, key, binary.AppendUvarint(nil, code)); err != nil {
			return err
		}
	}
	return tx.Put(countsBucket, key, binary.BigEndian.AppendUint64(nil, uint64(n)))
}

func count(tx *store.Tx, key string) int64 {
	b, ok := tx.Get(countsBucket, key)
	if !ok || len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// fieldCodes encodes the indexed fields of r; each must have its code already (addCount).
func fieldCodes(d dictionary, r *Record) []byte {
	out := []byte{formatV1}
	for _, f := range indexed {
		out = binary.AppendUvarint(out, d.code(f, fieldOf(r, f)))
	}
	return out
}

// readCodes reads the codes at the start of a formatV1 value and returns the rest.
func readCodes(v []byte) (codes [5]uint64, rest []byte, ok bool) {
	if len(v) == 0 || v[0] != formatV1 {
		return codes, nil, false
	}
	v = v[1:]
	for i := range codes {
		c, n := binary.Uvarint(v)
		if n <= 0 {
			return codes, nil, false
		}
		codes[i], v = c, v[n:]
	}
	return codes, v, true
}

// setFields fills r's indexed fields from their codes.
func setFields(d dictionary, r *Record, codes [5]uint64) {
	vals := make([]string, len(codes))
	for i, c := range codes {
		vals[i] = d.value(c)
	}
	r.Tool, r.Status, r.Category, r.Principal, r.Conversation = vals[0], Status(vals[1]), authz.Category(vals[2]), vals[3], vals[4]
}

// compactRecord is the part of a record after the codes, as JSON with short keys.
type compactRecord struct {
	Operation   string          `json:"o,omitempty"`
	Risk        string          `json:"r,omitempty"`
	Client      string          `json:"c,omitempty"`
	Args        json.RawMessage `json:"a,omitempty"`
	ArgsOp      bool            `json:"ao,omitempty"` // Args held "operation": Operation, left out
	StartUS     int64           `json:"t,omitempty"`  // start minus the id's time, in µs
	DurationMS  float64         `json:"d,omitempty"`
	ResultBytes int             `json:"b,omitempty"`
	ErrorCode   string          `json:"e,omitempty"`
	Error       string          `json:"m,omitempty"`
	Command     string          `json:"x,omitempty"`
	ArgsCommand bool            `json:"xa,omitempty"` // Command is Args' "command"
	ExitCode    *int            `json:"xc,omitempty"`
	Owner       string          `json:"w,omitempty"`
}

// encodeRecord is r's stored value: its codes (which addCount gave its fields), then the rest.
func encodeRecord(d dictionary, r *Record) ([]byte, error) {
	c := compactRecord{Operation: r.Operation, Risk: r.Risk, Client: r.Client, Args: r.Args,
		DurationMS: r.DurationMS, ResultBytes: r.ResultBytes, ErrorCode: r.ErrorCode, Error: r.Error,
		Command: r.Command, ExitCode: r.ExitCode, Owner: r.Owner}
	if t, ok := idTimeOf(r.ID); ok {
		c.StartUS = r.Start.Sub(t).Microseconds()
	}
	if args, ok := argsObject(r.Args); ok {
		if op, has := args["operation"]; has && r.Operation != "" && jsonString(op) == r.Operation {
			delete(args, "operation")
			c.ArgsOp = true
		}
		if cmd, has := args["command"]; has && r.Command != "" && jsonString(cmd) == r.Command {
			c.Command, c.ArgsCommand = "", true
		}
		if c.ArgsOp {
			b, err := json.Marshal(args)
			if err != nil {
				return nil, err
			}
			c.Args = b
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode execution %s: %w", r.ID, err)
	}
	return append(fieldCodes(d, r), b...), nil
}

// decodeRecord reads a stored record in either format.
func decodeRecord(d dictionary, id string, v []byte) (Record, error) {
	codes, rest, ok := readCodes(v)
	if !ok {
		var r Record
		if err := json.Unmarshal(v, &r); err != nil {
			return Record{ID: id}, err
		}
		return r, nil
	}
	var c compactRecord
	if err := json.Unmarshal(rest, &c); err != nil {
		return Record{ID: id}, err
	}
	r := Record{ID: id, Operation: c.Operation, Risk: c.Risk, Client: c.Client, Args: c.Args,
		DurationMS: c.DurationMS, ResultBytes: c.ResultBytes, ErrorCode: c.ErrorCode, Error: c.Error,
		Command: c.Command, ExitCode: c.ExitCode, Owner: c.Owner}
	setFields(d, &r, codes)
	if t, ok := idTimeOf(id); ok {
		r.Start = t.Add(time.Duration(c.StartUS) * time.Microsecond)
	}
	if c.ArgsOp || c.ArgsCommand {
		args, ok := argsObject(c.Args)
		if !ok {
			args = map[string]json.RawMessage{}
		}
		if c.ArgsCommand {
			r.Command = jsonString(args["command"])
		}
		if c.ArgsOp {
			op, _ := json.Marshal(r.Operation)
			args["operation"] = op
			if b, err := json.Marshal(args); err == nil {
				r.Args = b
			}
		}
	}
	return r, nil
}

// decodeIndex reads an index entry (or a record: both start with the codes) into the fields
// a filter looks at.
func decodeIndex(d dictionary, id string, v []byte) Record {
	codes, _, ok := readCodes(v)
	if !ok {
		return indexRecord(id, v)
	}
	r := Record{ID: id}
	setFields(d, &r, codes)
	return r
}

// idTimeOf is the start time an id carries.
func idTimeOf(id string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(id, "exec_")
	if !ok || len(rest) < len(idTime) {
		return time.Time{}, false
	}
	t, err := time.Parse(idTime, rest[:len(idTime)])
	return t, err == nil
}

func argsObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

// jsonString is the string a JSON value holds, "" for any other value.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
