// Package consolidated is toolhost's MCP-facing layer. Each tool is declared once, as a table of
// operations; everything a client sees (the operation enum, the flat input schema, annotations, the
// description's operation list, the README's tool table) and everything the server does with a
// call (validation, dispatch, deadlines, result shaping, logging) is derived from that table, so
// no operation name is ever written twice.
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
// TOOLHOST_GOLDEN=update go test ./... (the tool's schema in internal/app/testdata/tools, the
// README's tool table). The diff of those files is the review of what clients will see.
//
// # Adding a tool
//
// A tool is a file, a place in the order, and a line in the constructor list:
//
//  1. The file: consolidated/NAME.go holds the argument structs, the handlers and a constructor
//     (func NameTool(cfg NameConfig) *Tool) that returns the [Tool] with its table. Engines
//     (internal/...) do the work and know nothing of MCP; the file maps their errors to codes.
//  2. The order: NAME's place in [Order]. A new tool goes before read_tool_result; the relative
//     order of existing tools never changes (clients cache the prompt prefix holding the list).
//  3. The constructor list: one line in the tools slice of internal/app's Open, after the
//     engines the tool needs are started there.
//
// Plus a row for NAME in the token budget table (toolBudget in internal/app/tools_test.go; the
// planned tools have theirs): the rows sum to the budget of the whole list, so a tool that needs
// a larger share takes it from another row, with the reason in the commit message. The
// first test run writes the tool's schema golden and the README table gains its row
// (TOOLHOST_GOLDEN=update); add the tool to scenarioTools to use it in scenarios, and pin any new
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
//     [ResourceConversation]); the registry hides and refuses it for every other conversation.
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
