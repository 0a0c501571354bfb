package consolidated

import (
	"errors"
	"fmt"
	"strings"

	"toolhost/authz"
)

// GuardError turns a guard refusal into the model-fixable error it describes: the stable code, the
// canonical target and the exact user_collaboration call that asks the user for a grant. Any other
// error is returned unchanged (and becomes an internal error).
func GuardError(err error) error {
	if err == nil {
		return nil
	}
	if d, ok := authz.AsDenial(err); ok {
		msg := d.Message
		if d.Canonical != "" {
			msg += " (" + d.Canonical + ")"
		}
		return &ToolError{Code: d.Code, Param: "path", Message: msg, Next: d.NextStep}
	}
	if errors.Is(err, authz.ErrInvalidAccess) {
		return &ToolError{Code: "invalid_value", Param: "access", Message: err.Error(),
			Next: "access is tool.operation (file_operations.create_file) or tool:class (file_operations:write)"}
	}
	if errors.Is(err, authz.ErrTooManyPending) {
		return &ToolError{Code: "too_many_requests", Message: fmt.Sprintf("%d authorization requests of this conversation are already waiting for the user", authz.MaxPendingApprovals),
			Next: "wait for the user: poll a pending request with check_request, or ask the user in your reply"}
	}
	if errors.Is(err, authz.ErrInvalidGrant) {
		return &ToolError{Code: "invalid_value", Message: strings.TrimPrefix(err.Error(), authz.ErrInvalidGrant.Error()+": "),
			Next: "fix the value and request authorization again"}
	}
	return err
}

// guardErrorFor is GuardError for a path given in parameter param (cwd, repo, paths): the refusal
// names that parameter instead of path.
func guardErrorFor(err error, param string) error {
	err = GuardError(err)
	var te *ToolError
	if errors.As(err, &te) && te.Param == "path" {
		te.Param = param
	}
	return err
}
