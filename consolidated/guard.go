package consolidated

import (
	"errors"
	"fmt"
	"strings"

	"toolhost/authz"
)

// GuardError turns a guard refusal into the model-fixable error it describes: the stable code, the
// canonical target, param (the argument the refused path came from: "path", "cwd", "new_path")
// and the exact user_collaboration call that asks the user for a grant. Any other error is
// returned unchanged (and becomes an internal error).
func GuardError(err error, param string) error {
	if err == nil {
		return nil
	}
	if d, ok := authz.AsDenial(err); ok {
		msg := d.Message
		if d.Canonical != "" {
			msg += " (" + d.Canonical + ")"
		}
		return &ToolError{Code: ErrorCode(d.Code), Param: param, Message: msg, Next: d.NextStep, Cause: err}
	}
	if errors.Is(err, authz.ErrInvalidAccess) {
		return &ToolError{Code: CodeInvalidValue, Param: "access", Message: err.Error(),
			Next: "access is tool.operation (file_operations.create_file) or tool:class (file_operations:write)", Cause: err}
	}
	if errors.Is(err, authz.ErrTooManyPending) {
		return &ToolError{Code: CodeTooManyRequests, Message: fmt.Sprintf("%d authorization requests of this conversation are already waiting for the user", authz.MaxPendingApprovals),
			Next: "wait for the user: poll a pending request with check_request, or ask the user in your reply", Cause: err}
	}
	if errors.Is(err, authz.ErrInvalidGrant) {
		return &ToolError{Code: CodeInvalidValue, Message: strings.TrimPrefix(err.Error(), authz.ErrInvalidGrant.Error()+": "),
			Next: "fix the value and request authorization again", Cause: err}
	}
	return err
}
