package authz

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// discardAudit measures the guard without the cost of the audit file.
type discardAudit struct{}

func (discardAudit) AppendAudit(context.Context, any) error { return nil }

func benchFixture(b *testing.B, audit AuditSink) *fixture {
	f := newFixture(b, func(c *Config) { c.Audit = audit })
	writeFile(b, filepath.Join(f.wd, "src", "pkg", "file.go"), "package pkg\n")
	return f
}

// benchCheck times f's guard checking r.
func benchCheck(b *testing.B, f *fixture, r Request) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.g.Check(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckInside is the hot path: a read of an existing file three levels below the working
// directory, audited through the queue to a sink that discards.
func BenchmarkCheckInside(b *testing.B) {
	f := benchFixture(b, discardAudit{})
	benchCheck(b, f, req(ClassRead, "read_file", "src/pkg/file.go"))
}

// BenchmarkCheckInsideAbsolute is the same through an absolute path.
func BenchmarkCheckInsideAbsolute(b *testing.B) {
	f := benchFixture(b, discardAudit{})
	benchCheck(b, f, req(ClassWrite, "create_file", f.wd+"/src/pkg/file.go"))
}

// BenchmarkCheckInsideStoreAudit audits to the real audit.jsonl of the store. Sustained, the rate
// is bounded by the audit writer (one open/write/close per record in store.AppendAudit).
func BenchmarkCheckInsideStoreAudit(b *testing.B) {
	f := benchFixture(b, nil)
	f.g.audit.close()
	f.g.audit = newAuditor(f.st, f.g.log)
	benchCheck(b, f, req(ClassRead, "read_file", "src/pkg/file.go"))
	f.g.audit.close() // include the flush
}

// BenchmarkOpenInside is Check plus the Target for I/O (shared root, no open).
func BenchmarkOpenInside(b *testing.B) {
	f := benchFixture(b, discardAudit{})
	ctx := context.Background()
	r := req(ClassWrite, "create_file", "src/pkg/file.go")
	b.ReportAllocs()
	for b.Loop() {
		tg, err := f.g.Open(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		tg.Close()
	}
}

// BenchmarkGrantLookup is a write outside the working directory allowed by a multi-use grant
// among n stored grants: the cost must not grow with n (the index looks only at the grants on the
// path and its parents).
func BenchmarkGrantLookup(b *testing.B) {
	for _, n := range []int{20, 2000} {
		b.Run(fmt.Sprintf("grants=%d", n), func(b *testing.B) {
			f := benchFixture(b, discardAudit{})
			ctx := context.Background()
			for i := range n {
				if _, err := f.g.Grants().Create(ctx, GrantSpec{Access: "file_operations:write", Path: filepath.Join(f.out, "other", strconv.Itoa(i)), Recursive: true, By: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := f.g.Grants().Create(ctx, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true, By: "bench"}); err != nil {
				b.Fatal(err)
			}
			r := req(ClassWrite, "create_file", f.out+"/dir/x.txt")
			b.ReportAllocs()
			for b.Loop() {
				d, err := f.g.Check(ctx, r)
				if err != nil || d.Kind != AllowedByGrant {
					b.Fatal(d, err)
				}
			}
		})
	}
}

// BenchmarkCheckOutsideRead is an allowed read outside (deny-list scan, no store).
func BenchmarkCheckOutsideRead(b *testing.B) {
	f := benchFixture(b, discardAudit{})
	writeFile(b, filepath.Join(f.out, "lib", "x.h"), "x")
	benchCheck(b, f, req(ClassRead, "read_file", f.out+"/lib/x.h"))
}
