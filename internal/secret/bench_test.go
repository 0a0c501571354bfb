package secret

import "testing"

// BenchmarkText is the cost masking adds to each value shown or stored: a path, a command
// line, a log line.
func BenchmarkText(b *testing.B) {
	for _, s := range []string{
		"/home/me/src/project/internal/server/http.go",
		"go test ./... -run 'TestX|TestY' -count=1 > out.txt",
		`time=2026-12-06T18:34:53.113Z level=INFO msg=call exec=exec_01J tool=file_operations op=read_file conv=wd-d1bd63840d80 dur=1.2ms outcome=ok args="operation=\"read_file\" path=\"a.go\""`,
	} {
		b.Run("", func(b *testing.B) {
			for b.Loop() {
				Text(s)
			}
		})
	}
}
