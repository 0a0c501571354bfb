package consolidated

import (
	"errors"

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
	return err
}
