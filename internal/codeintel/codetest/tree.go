package codetest

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const benchCopies = 8

// GoTree returns the generated benchmark tree, making it on first use: at least 90,000 files,
// copies of $GOROOT/src each with its packages renamed (every package clause gets the copy's
// suffix), so no two files are the same. It lives in $TOOLHOST_BENCH_TREE (default: a
// directory in the temp dir) and is reused while its marker says it is complete.
func GoTree(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TOOLHOST_BENCH_TREE")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "toolhost-bench-gosrc")
	}
	marker := filepath.Join(dir, ".complete")
	if b, err := os.ReadFile(marker); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(benchCopies) {
		return dir
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	os.RemoveAll(dir)
	for i := range benchCopies {
		dst := filepath.Join(dir, fmt.Sprintf("copy%d", i))
		suffix := fmt.Sprintf("c%d", i)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			out := filepath.Join(dst, rel)
			if d.IsDir() {
				return os.MkdirAll(out, 0o755)
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if strings.HasSuffix(p, ".go") {
				data = renamePackage(data, suffix)
			}
			return os.WriteFile(out, data, 0o644)
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(marker, []byte(strconv.Itoa(benchCopies)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// renamePackage appends suffix to the name in the package clause.
func renamePackage(data []byte, suffix string) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	done := false
	for sc.Scan() {
		line := sc.Text()
		if !done && strings.HasPrefix(line, "package ") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				line = "package " + f[1] + suffix + strings.TrimPrefix(line, "package "+f[1])
				done = true
			}
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
