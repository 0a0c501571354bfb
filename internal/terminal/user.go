package terminal

import "strings"

// userLine stands for a line the user submitted key by key: the engine saw only the enter,
// not what the shell's line held, and must not name the model's last command instead.
const userLine = "(typed by the user)"

// submittedText is the text a submitted input names as the session's last command: the model's
// text, or what the user typed on the line the input's last enter submits.
func submittedText(in Input) string {
	if !in.User {
		return in.Text
	}
	t := strings.TrimRight(in.Text, "\r\n")
	if i := strings.LastIndexAny(t, "\r\n"); i >= 0 {
		t = t[i+1:]
	}
	if strings.TrimSpace(t) == "" || strings.ContainsFunc(t, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return userLine
	}
	return t
}
