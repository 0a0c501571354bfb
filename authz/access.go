package authz

import (
	"fmt"
	"strings"
)

// Class is the risk class of an operation. Grants may name a class instead of one operation so a
// user can approve "all writes of file_operations under this directory" in one answer.
type Class string

// The risk classes. They match the classes of the operation tables in the MCP layer.
const (
	ClassRead    Class = "read"
	ClassWrite   Class = "write"
	ClassExecute Class = "execute"
	ClassNetwork Class = "network"
	// ClassCommand is running one exact command line that a command rule asks about; its
	// grants carry the command and cover nothing else.
	ClassCommand Class = "command"
)

func (c Class) valid() bool {
	switch c {
	case ClassRead, ClassWrite, ClassExecute, ClassNetwork, ClassCommand:
		return true
	}
	return false
}

// Access is what a grant authorises, parsed from its text form:
//
//	tool.operation   one operation of one tool, e.g. "file_operations.create_file"
//	tool:class       every operation of that class of one tool, e.g. "file_operations:write"
//	*:class          every operation of that class of any tool, e.g. "*:write"
//
// A write grant also covers reads of the same tool, because every edit reads what it changes.
type Access struct {
	Tool      string // "*" = any tool (class form only)
	Operation string // empty in the class form
	Class     Class  // empty in the operation form
}

// ParseAccess parses the text form of an access; it returns an error wrapping ErrInvalidAccess.
func ParseAccess(s string) (Access, error) {
	if len(s) > 128 {
		return Access{}, fmt.Errorf("%w: longer than 128 bytes", ErrInvalidAccess)
	}
	if tool, class, ok := strings.Cut(s, ":"); ok {
		c := Class(class)
		if !c.valid() {
			return Access{}, fmt.Errorf("%w: class must be read, write, execute, network or command", ErrInvalidAccess)
		}
		if tool != "*" && !isName(tool) {
			return Access{}, fmt.Errorf("%w: tool name must be snake_case or *", ErrInvalidAccess)
		}
		return Access{Tool: tool, Class: c}, nil
	}
	if tool, op, ok := strings.Cut(s, "."); ok && isName(tool) && isName(op) {
		return Access{Tool: tool, Operation: op}, nil
	}
	return Access{}, fmt.Errorf("%w: want tool.operation, tool:class or *:class", ErrInvalidAccess)
}

// String returns the text form ParseAccess accepts.
func (a Access) String() string {
	if a.Operation != "" {
		return a.Tool + "." + a.Operation
	}
	return a.Tool + ":" + string(a.Class)
}

// covers reports whether the access authorises request r.
func (a Access) covers(r *Request) bool {
	if a.Operation != "" {
		return a.Tool == r.Tool && a.Operation == r.Operation
	}
	if a.Tool != "*" && a.Tool != r.Tool {
		return false
	}
	return a.Class == r.Class || (a.Class == ClassWrite && r.Class == ClassRead)
}

func isName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
