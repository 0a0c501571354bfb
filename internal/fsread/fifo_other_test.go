//go:build !unix

package fsread

import "errors"

func mkfifo(string) error { return errors.New("no fifos") }
