// Package consolidated is toolhost's MCP-facing layer. Each tool is declared once, as a table of
// operations; everything a client sees (the operation enum, the flat input schema, annotations, the
// description's operation list, the README's tool table) and everything the server does with a
// call (validation, dispatch, deadlines, result shaping, logging) is derived from that table, so
// no operation name is ever written twice.
//
// # Files
//
// A tool's files start with its stem, the first word of its name (think, user_collaboration,
// todo, memory, file, terminal, build, web, database, read_tool_result): file_operations.go holds
// the table and file_write.go some of its handlers. Every other file is the framework the
// tools stand on, one concern each; layout_test.go lists them with their purpose and fails on
// a file that is neither, so the list stays the map.
//
// # Adding an operation
//
// An operation is one row of its tool's table, built with [Op]:
//
//	Op("read_file", "lines or bytes of a file", RiskRead, f.readFile)
//
// The handler takes a pointer to an argument struct whose fields are the parameters:
//
//	type fileReadArgs struct {
//		Path      string `json:"path" alias:"file_path" jsonschema:"Relative to the working directory, or absolute."`
//		StartLine int64  `json:"start_line,omitempty"`
//		Encoding  string `json:"encoding,omitempty" enum:"utf-8,base64,hex"`
//	}
//
//	func (f *fileTool) readFile(ctx context.Context, c *Call, a *fileReadArgs) (*Result, error)
//
// The json tag names the parameter (omitempty makes it optional), jsonschema describes it (once,
// where the tool first declares it: the schema is a flat union of every operation's parameters,
// so a name keeps one type across the table), enum lists allowed strings and alias the other
// spellings models send. A parameter set several operations share is an embedded struct without
// a json tag (build_and_version_control's repoArg): its fields are parameters of each operation. The risk class ([RiskRead] … [RiskNetwork]) sets the annotations and
// what a read-only profile keeps. Modifiers on the row: [Operation.WithTimeout] for a deadline
// other than [DefaultTimeout], [Operation.WithNamesOnly] for a listing the guard should treat as
// reading names, not contents, [Operation.WithRunsCommands] for an operation that starts commands
// or types into a shell (a write grant naming it lets commands write; see [Tool.Runner]).
//
// A handler returns a [Result] (compact text for the model, optional structured content) or an
// error. An error the model can fix is a [*ToolError]: a declared [ErrorCode] (see errors.go;
// declare a new one there, in its group), the parameter it concerns, the message, the next step,
// and the Cause it was mapped from, which only the log sees. Any other error becomes "internal".
// Paths go through the guard with [Call.GuardRequest] and refusals through [GuardError], naming
// the parameter the path came from.
//
// The first sentence of a tool's description names its enabled operations (where the
// Description puts [OperationsPlaceholder], else at the end of its first sentence): clients that
// defer MCP tools show only a description's start. A summary may therefore be empty, for an
// operation whose name says it all; it then gets no line of its own.
//
// Then: test it through the harness in harness_test.go (or a txtar scenario under
// testdata/scenarios when the point is the text the model reads), and regenerate the goldens with
// TOOLHOST_GOLDEN=update go test ./... (the tool's schema in internal/app/testdata/tools, the tool
// tables of the README and ARCHITECTURE.md). The diff of those files is the review of what
// clients will see.
//
// # Adding a tool
//
// Every tool needs these four:
//
//  1. The file: consolidated/NAME.go holds the argument structs, the handlers and a constructor
//     (func NameTool(cfg NameConfig) *Tool) that returns the [Tool] with its table. A row that
//     the guard must know something about says so ([Operation.WithNamesOnly],
//     [Operation.WithRunsCommands]); authz knows no tool or operation by name, so whatever it is
//     asked carries the names in (the request's tool and operation, [Call.GuardRequest]).
//  2. The order: NAME's place in [Order]. A new tool goes before read_tool_result; the relative
//     order of existing tools never changes (clients cache the prompt prefix holding the list).
//  3. The tool list: one entry in the tools slice of internal/app's Open.
//  4. The token budget: a row for NAME in toolBudget (internal/app/tools_test.go). The rows sum
//     to the budget of the whole list, so a tool that needs a larger share takes it from another
//     row, with the reason in the commit message.
//
// That is all for a tool without an engine (think, read_tool_result): its constructor is the
// entry in Open. A tool backed by an engine (files, terminals, git and builds, the web,
// databases) also needs:
//
//  5. The engine: a package under internal/ that does the work and knows nothing of MCP (the
//     dependency rules in internal/app/deps_test.go check it); the tool file maps its errors to
//     declared codes. An engine whose codes pass through unchanged has them declared in
//     errors.go too (TestErrorCodesDeclared reads internal/web's and internal/browser's).
//  6. The builder: internal/app/NAME.go, an App method that starts the engine from the
//     configuration and returns the tool (webTool, databaseTool, buildTool); Open calls it, and
//     the tool's Close releases what it started.
//  7. The configuration: a section of internal/config's Config (a struct with toml tags whose
//     values are checked when the file loads; the keys the did-you-mean knows are derived from
//     the tags), documented in docs/configuration.md. Engines get plain values in
//     their own Config types: only the wiring reads internal/config.
//  8. Scenario tests: an entry in scenarioTools (scenario_test.go) that builds it on the
//     scenario rig (the harness's guard and store, the terminal engine tools share), so txtar
//     scenarios can call it.
//
// Then regenerate and review (TOOLHOST_GOLDEN=update go test ./...): the tool's schema golden
// (internal/app/testdata/tools/NAME.json), each tier's list (internal/app/testdata/tiers), the
// README's tool table and ARCHITECTURE.md §1's, which TestArchitectureToolTable keeps the
// registry's; add the engine's package to the layout in ARCHITECTURE.md §2 and the tool to
// cmd/toolhost's wantTools when the default configuration advertises it. Pin any new
// third-party module in internal/app/deps_test.go.
//
// # Adding a resource, a hook or a cleanup
//
// What belongs to a tool hangs on its [Tool], and the registry registers it from the tool list
// while the tool is advertised (a profile that disables the tool drops it too):
//
//   - Resources: a [Resource] is an MCP resource or resource template with the handler that reads
//     it (the todo list per conversation, a terminal's screen and history), optionally a Prefix
//     that routes URIs a template cannot match (file:///{path}) and a [Completer] for its
//     variables. A resource of a conversation carries the conversation in its URI (see
//     [ResourceConversation]); the registry hides and refuses it for every other conversation:
//     a middleware answers resources/read of another conversation's URI as not found before
//     any handler runs, Subscribe refuses it (resources/subscribe and the 2026-07-28
//     subscriptions/listen both reach it), and resources/list drops it and adds the caller's
//     own. The caller's conversation is [Registry.Conversation], the lookup tool calls use too.
//   - ListResources: the resources/list entries of the caller's conversation (its todo list,
//     its command history); resources that come and go, like terminal sessions, are added to
//     and removed from the server instead, so that clients hear list_changed.
//   - Subscriptions: a [Subscriptions] tracker learns of resources/subscribe and unsubscribe for
//     every URI and is given each server to notify (see terminal_resources.go).
//   - AfterCall: runs after every successful call of any advertised tool and may append blocks to
//     the result (the todo reminders).
//   - Close: releases the tool's engine when the registry closes (the terminal sessions).
//
// internal/server builds the MCP server from the [Registry]: the tools in the fixed order, their
// resources, the subscription handlers and toolhost's middleware. Nothing else is threaded by
// hand.
package consolidated
