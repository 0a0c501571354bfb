package consolidated

import "strings"

// typedNote puts what the user typed into the session since the model's last read under the
// result's status line, above the output that shows its echo: the model learns that the keys
// were the user's (an answer to a prompt, a command of the user's), not output of its own.
func (t *terminalTool) typedNote(c *Call, id string, res *Result) *Result {
	note := t.typed.Take(c.Conversation, id)
	if note == "" {
		return res
	}
	head, rest, _ := strings.Cut(res.Text, "\n")
	res.Text = head + "\n" + note + "\n" + rest
	return res
}
