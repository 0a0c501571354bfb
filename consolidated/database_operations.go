package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/database"
	"toolhost/internal/fsread"
)

// The argument structs of database_operations. Descriptions are terse: every token here is
// paid in every tools/list.

type dbConnArgs struct {
	Connection string `json:"connection" alias:"database,db,conn,connection_name,file,path" jsonschema:"A list_connections name or a SQLite file path."`
}

type dbDescribeArgs struct {
	Connection string `json:"connection"`
	Table      string `json:"table" alias:"table_name,name"`
}

type dbQueryArgs struct {
	Connection string     `json:"connection"`
	SQL        string     `json:"sql" alias:"query,statement"`
	Params     []sqlParam `json:"params,omitempty" alias:"args,parameters,bind" jsonschema:"Values of $1.. or ? placeholders."`
	Limit      int        `json:"limit,omitempty" alias:"max_rows" jsonschema:"Max rows, default 200."`
	Format     string     `json:"format,omitempty" enum:"table,json"`
	// TimeoutSeconds shortens the call's deadline (WithCallTimeout).
	TimeoutSeconds int `json:"timeout_seconds,omitempty" alias:"timeout"`
}

type dbExplainArgs struct {
	Connection     string     `json:"connection"`
	SQL            string     `json:"sql"`
	Params         []sqlParam `json:"params,omitempty"`
	TimeoutSeconds int        `json:"timeout_seconds,omitempty" alias:"timeout"`
}

// sqlParam is one positional parameter. The schema calls it a string, which every client
// accepts; numbers, booleans and null are taken as they are sent, so the server sees 5 and
// true rather than "5" and "true".
type sqlParam string

func (p *sqlParam) UnmarshalJSON(b []byte) error {
	v := strings.TrimSpace(string(b))
	if v == "" || v[0] == '{' || v[0] == '[' {
		return errors.New("a parameter must be a string, number, boolean or null")
	}
	*p = sqlParam(v)
	return nil
}

// value is the Go value the engine binds.
func (p sqlParam) value() any {
	v := string(p)
	switch {
	case v == "null":
		return nil
	case v == "true" || v == "false":
		return v == "true"
	case v[0] == '"':
		var s string
		json.Unmarshal([]byte(v), &s)
		return s
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

func paramValues(ps []sqlParam) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = p.value()
	}
	return out
}

// DatabaseConfig configures database_operations.
type DatabaseConfig struct {
	// Connections are the databases the user configured; the tool closes them.
	Connections *database.Connections
	// Guard decides the SQLite files the model names, as for file_operations reads.
	Guard *authz.Guard
}

// sqliteFilePatterns find SQLite files for list_connections; the header decides.
const sqliteFilePatterns = "**/*.{db,sqlite,sqlite3,db3}"

// dbDiscoveryTimeout bounds the walk for SQLite files in list_connections.
const dbDiscoveryTimeout = 3 * time.Second

// DatabaseTool is database_operations: read-only SQL on the databases the user configured and
// on SQLite files the model names inside the working directory (or under a grant).
//
// Risk: list_connections, list_tables, describe_table and explain read metadata (RiskRead).
// query returns data from any configured server, which may be another machine, so it is
// RiskNetwork, like web reads: a read-only profile keeps the schema tools and drops query,
// and the tier model ranks it moderate.
func DatabaseTool(cfg DatabaseConfig) *Tool {
	d := &dbTool{conns: cfg.Connections, guard: cfg.Guard}
	if d.conns == nil {
		d.conns = database.NewConnections(nil)
	}
	// The engine's own timeouts end a statement; the call's deadline only backs them up.
	callTimeout := d.conns.MaxTimeout() + 15*time.Second
	return &Tool{
		Name:        "database_operations",
		Title:       "Databases",
		Description: "Read-only SQL on configured databases and SQLite files: " + OperationsPlaceholder + ".",
		Operations: []Operation{
			Op("list_connections", "databases to query", RiskRead, d.listConnections).WithTimeout(dbDiscoveryTimeout + 5*time.Second),
			Op("list_tables", "", RiskRead, d.listTables).WithTimeout(callTimeout),
			Op("describe_table", "columns, keys, indexes, rows", RiskRead, d.describeTable).WithTimeout(callTimeout),
			Op("query", "run one SELECT", RiskNetwork, d.query).WithTimeout(callTimeout).WithCallTimeout(),
			Op("explain", "", RiskRead, d.explain).WithTimeout(callTimeout).WithCallTimeout(),
		},
		// The idle PostgreSQL connections.
		Close: d.conns.Close,
	}
}

type dbTool struct {
	conns *database.Connections
	guard *authz.Guard
}

func (d *dbTool) listConnections(ctx context.Context, c *Call, _ *noArgs) (*Result, error) {
	var b strings.Builder
	infos := d.conns.List()
	if len(infos) == 0 {
		b.WriteString("No configured connections (the user adds them as [[databases]] in toolhost's config).\n")
	} else {
		b.WriteString("Configured (pass the name as connection):\n")
		for _, in := range infos {
			if in.Problem != "" {
				fmt.Fprintf(&b, "%s  %s  unavailable: %s\n", in.Name, in.Driver, in.Problem)
				continue
			}
			fmt.Fprintf(&b, "%s  %s  %s\n", in.Name, in.Driver, in.Target)
		}
	}
	files, more := d.sqliteFiles(ctx, c)
	if len(files) == 0 {
		b.WriteString("No SQLite files found in the working directory; any SQLite file path works as connection.")
	} else {
		b.WriteString("SQLite files in the working directory (pass the path as connection):\n")
		b.WriteString(strings.Join(files, "\n"))
		if more {
			b.WriteString("\n(more may exist; any SQLite file path works as connection)")
		}
	}
	return &Result{Text: strings.TrimSuffix(b.String(), "\n")}, nil
}

// sqliteFiles finds SQLite databases in the working directory, gitignored ones included (a
// development database usually is), checking each file's header through the guard.
func (d *dbTool) sqliteFiles(ctx context.Context, c *Call) ([]string, bool) {
	if d.guard == nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, dbDiscoveryTimeout)
	defer cancel()
	r, err := fsread.Glob(ctx, d.guard.Root(), ".", sqliteFilePatterns,
		fsread.GlobOptions{MaxResults: 20, SortBy: fsread.SortByPath, IncludeIgnored: true, Screen: d.guard.WorkDirScreen()})
	if err != nil && len(r.Matches) == 0 {
		c.Logger.Debug("sqlite discovery", "err", err)
		return nil, false
	}
	var out []string
	for _, m := range r.Matches {
		if m.Type != fsread.TypeFile || !d.isSQLite(ctx, c, m.Path) {
			continue
		}
		out = append(out, fmt.Sprintf("%s  (%s)", m.Path, sizeText(m.Size)))
	}
	return out, r.Truncated || r.VisitLimited || err != nil
}

func (d *dbTool) isSQLite(ctx context.Context, c *Call, p string) bool {
	t, err := d.guard.Open(ctx, authz.Request{Conversation: c.Conversation, Tool: c.Tool, Operation: c.Operation, Class: authz.ClassRead, Path: p})
	if err != nil {
		return false // protected or secret: not listed
	}
	defer t.Close()
	f, err := t.OpenRead()
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "SQLite format 3\x00"
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// open opens the connection a call names: a configured name, else a SQLite file the guard
// allows reading.
func (d *dbTool) open(ctx context.Context, c *Call, name string) (database.DB, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "connection", Message: "connection is empty",
			Next: d.connectionChoices()}
	}
	if d.conns.Has(name) {
		db, err := d.conns.Open(ctx, name)
		return db, d.toolError(err, "connection", "")
	}
	if d.guard == nil {
		return nil, &ToolError{Code: CodeNotFound, Param: "connection", Message: fmt.Sprintf("no connection %q", name), Next: d.connectionChoices()}
	}
	// A database file outside the working directory needs a grant even where outside reads are
	// allowed: the whole file is the database engine's input, not text the model asked to see.
	t, err := d.guard.Open(ctx, authz.Request{Conversation: c.Conversation, Tool: c.Tool, Operation: c.Operation, Class: authz.ClassRead,
		Path: name, OutsideNeedsGrant: true})
	if err != nil {
		return nil, GuardError(err, "connection")
	}
	db, err := database.OpenSQLite(ctx, t.Root, t.Rel, 0)
	if err != nil {
		t.Close()
		if e, ok := database.AsError(err); ok && e.Kind == database.KindNotFound {
			return nil, &ToolError{Code: CodeNotFound, Param: "connection",
				Message: fmt.Sprintf("no configured connection %q, and no file at that path", name), Next: d.connectionChoices()}
		}
		return nil, d.toolError(err, "connection", "")
	}
	return &targetDB{DB: db, target: t}, nil
}

// targetDB closes the guard's target (and its root) with the database.
type targetDB struct {
	database.DB
	target *authz.Target
}

func (t *targetDB) Close() error {
	err := t.DB.Close()
	t.target.Close()
	return err
}

func (d *dbTool) connectionChoices() string {
	names := d.conns.Names()
	if len(names) == 0 {
		return "pass the path of a SQLite file (no connections are configured); list_connections shows the files found here"
	}
	return "connections: " + strings.Join(names, ", ") + "; or the path of a SQLite file"
}

func (d *dbTool) listTables(ctx context.Context, c *Call, a *dbConnArgs) (*Result, error) {
	db, err := d.open(ctx, c, a.Connection)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tables, err := db.Tables(ctx)
	if err != nil {
		return nil, d.toolError(err, "connection", "")
	}
	if len(tables) == 0 {
		return Text("No tables or views."), nil
	}
	const maxListed = 1000
	var b strings.Builder
	for i, t := range tables {
		if i == maxListed {
			fmt.Fprintf(&b, "(%d more not listed; describe_table takes any name)\n", len(tables)-maxListed)
			break
		}
		b.WriteString(t.QualifiedName() + "  " + t.Kind)
		if rows := rowsText(t); rows != "" {
			b.WriteString("  " + rows)
		}
		b.WriteByte('\n')
	}
	return &Result{Text: strings.TrimSuffix(b.String(), "\n")}, nil
}

// rowsText is "3 rows" for a count, "~5000 rows" for an estimate, "" when unknown.
func rowsText(t database.Table) string {
	switch {
	case t.Rows < 0:
		return ""
	case t.RowsExact && t.Rows == 1:
		return "1 row"
	case t.RowsExact:
		return fmt.Sprintf("%d rows", t.Rows)
	}
	return fmt.Sprintf("~%d rows", t.Rows)
}

func (d *dbTool) describeTable(ctx context.Context, c *Call, a *dbDescribeArgs) (*Result, error) {
	db, err := d.open(ctx, c, a.Connection)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	info, err := db.Describe(ctx, a.Table)
	if err != nil {
		return nil, d.toolError(err, "table", a.Table)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", info.Kind, info.QualifiedName())
	if rows := rowsText(info.Table); rows != "" {
		fmt.Fprintf(&b, " (%s)", rows)
	}
	b.WriteString("\ncolumns:\n")
	for _, col := range info.Columns {
		b.WriteString("  " + col.Name + " " + col.Type)
		if !col.Nullable {
			b.WriteString(" NOT NULL")
		}
		if col.Default != "" {
			b.WriteString(" DEFAULT " + col.Default)
		}
		if col.Extra != "" {
			b.WriteString(" (" + col.Extra + ")")
		}
		b.WriteByte('\n')
	}
	if len(info.PrimaryKey) > 0 {
		fmt.Fprintf(&b, "primary key: (%s)\n", strings.Join(info.PrimaryKey, ", "))
	}
	if len(info.Indexes) > 0 {
		b.WriteString("indexes:\n")
		for _, ix := range info.Indexes {
			b.WriteString("  " + ix.Name)
			if ix.Unique {
				b.WriteString(" UNIQUE")
			}
			if len(ix.Columns) > 0 {
				b.WriteString(" (" + strings.Join(ix.Columns, ", ") + ")")
			}
			if ix.Definition != "" {
				b.WriteString(" " + ix.Definition)
			}
			b.WriteByte('\n')
		}
	}
	if len(info.ForeignKeys) > 0 {
		b.WriteString("foreign keys:\n")
		for _, fk := range info.ForeignKeys {
			b.WriteString("  " + fk.String() + "\n")
		}
	}
	if len(info.Constraints) > 0 {
		b.WriteString("constraints:\n")
		for _, con := range info.Constraints {
			b.WriteString("  " + con + "\n")
		}
	}
	return &Result{Text: strings.TrimSuffix(b.String(), "\n")}, nil
}

func (d *dbTool) query(ctx context.Context, c *Call, a *dbQueryArgs) (*Result, error) {
	if a.Limit < 0 || a.Limit > database.MaxRowsCap {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "limit", Message: fmt.Sprintf("limit must be 1-%d", database.MaxRowsCap),
			Next: "page through more rows with LIMIT/OFFSET in the SQL"}
	}
	db, err := d.open(ctx, c, a.Connection)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	budget := c.BudgetBytes() - 512
	res, err := db.Query(ctx, database.Query{SQL: a.SQL, Params: paramValues(a.Params), MaxRows: a.Limit, MaxBytes: budget})
	if err != nil {
		return nil, d.toolError(err, "sql", "")
	}
	format := database.FormatTable
	if a.Format == "json" {
		format = database.FormatJSON
	}
	text, shown := res.Render(format, budget)
	return &Result{Text: text, Structured: map[string]any{
		"columns": res.Columns, "rows_shown": shown, "rows_total": res.Seen, "total_exact": res.Complete,
	}}, nil
}

func (d *dbTool) explain(ctx context.Context, c *Call, a *dbExplainArgs) (*Result, error) {
	db, err := d.open(ctx, c, a.Connection)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	plan, err := db.Explain(ctx, database.Query{SQL: a.SQL, Params: paramValues(a.Params)})
	if err != nil {
		return nil, d.toolError(err, "sql", "")
	}
	return &Result{Text: plan}, nil
}

// dbErrorCodes map the engine's error kinds to the codes the model sees.
var dbErrorCodes = map[database.Kind]ErrorCode{
	database.KindRefused:     CodeRefused,
	database.KindInvalid:     CodeInvalidValue,
	database.KindNotFound:    CodeNotFound,
	database.KindSQL:         CodeSQLError,
	database.KindTimeout:     CodeTimeout,
	database.KindConnect:     CodeConnectionFailed,
	database.KindUnavailable: CodeUnavailable,
}

// toolError turns an engine error into the model-fixable error it describes. param names the
// argument it most likely concerns, and wanted is the name looked up, for the nearest
// candidate of a not-found error. The cause, redacted like the message, goes to the log.
func (d *dbTool) toolError(err error, param, wanted string) error {
	if err == nil {
		return nil
	}
	e, ok := database.AsError(err)
	if !ok {
		return err
	}
	te := &ToolError{Code: dbErrorCodes[e.Kind], Param: param, Message: e.Msg, Next: e.Next, Cause: e.Cause}
	if te.Cause == nil {
		te.Cause = e
	}
	switch e.Kind {
	case database.KindRefused:
		te.Param = "sql"
		if te.Next == "" {
			te.Next = "database_operations only reads: send one SELECT (or WITH/VALUES) statement"
		}
	case database.KindConnect, database.KindUnavailable:
		te.Param = "connection"
	case database.KindNotFound:
		if len(e.Candidates) > 0 {
			shown := e.Candidates[:min(len(e.Candidates), 30)]
			te.Next = "tables: " + strings.Join(shown, ", ")
			if len(e.Candidates) > len(shown) {
				te.Next += ", ... (list_tables shows all)"
			}
			if n := nearestName(wanted, e.Candidates); n != "" {
				te.Next = "did you mean " + n + "? " + te.Next
			}
		}
	}
	return te
}

// nearestName picks the candidate closest to name, comparing unqualified names too.
func nearestName(name string, candidates []string) string {
	if n := nearest(name, candidates); n != "" {
		return n
	}
	short := make([]string, len(candidates))
	for i, cand := range candidates {
		short[i] = cand[strings.LastIndexByte(cand, '.')+1:]
	}
	if n := nearest(name, short); n != "" {
		for i, s := range short {
			if s == n {
				return candidates[i]
			}
		}
	}
	return ""
}
