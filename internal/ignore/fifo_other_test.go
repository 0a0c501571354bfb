//go:build !unix

package ignore

import "errors"

func mkfifo(string) error { return errors.New("no fifos") }
