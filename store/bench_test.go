package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// benchRecord is the size of a typical todo or grant record.
type benchRecord struct {
	ID      uint64    `json:"id"`
	Title   string    `json:"title"`
	Status  string    `json:"status"`
	Updated time.Time `json:"updated"`
}

// reportLatency adds p50/p99 per-operation latencies, which matter more than the mean for a tool
// call waiting on one write.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func benchUpdate(b *testing.B, noSync bool) {
	s := newStore(b, Options{NoSync: noSync})
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		i++
		start := time.Now()
		err := s.Update(ctx, func(tx *Tx) error {
			return tx.PutJSON(Path{BucketConversations, "bench", "todos"}, SeqKey(i%1000),
				benchRecord{ID: i, Title: "write the store benchmarks", Status: "in_progress", Updated: start})
		})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	reportLatency(b, lat)
}

// BenchmarkUpdateSync is one small durable write, including opening and closing the file; the
// target is p50 <= 2 ms.
func BenchmarkUpdateSync(b *testing.B) { benchUpdate(b, false) }

// BenchmarkUpdateNoSync isolates the open/commit cost from the disk's fsync latency.
func BenchmarkUpdateNoSync(b *testing.B) { benchUpdate(b, true) }

func seedBench(b *testing.B, s *Store, n int) {
	b.Helper()
	if err := s.Update(context.Background(), func(tx *Tx) error {
		for i := range n {
			if err := tx.PutJSON(Path{BucketExecutions}, SeqKey(uint64(i)), benchRecord{ID: uint64(i), Title: fmt.Sprint("record ", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkViewGet is one read of a small record from a 10,000-record bucket, including the
// read-only open and close.
func BenchmarkViewGet(b *testing.B) {
	const n = 10000
	s := newStore(b, Options{NoSync: true})
	seedBench(b, s, n)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i = (i + 7919) % n
		start := time.Now()
		err := s.View(ctx, func(tx *Tx) error {
			var r benchRecord
			found, err := tx.GetJSON(Path{BucketExecutions}, SeqKey(uint64(i)), &r)
			if !found || r.ID != uint64(i) {
				return fmt.Errorf("record %d: found %v, got %d", i, found, r.ID)
			}
			return err
		})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	reportLatency(b, lat)
}

// BenchmarkViewGetParallel shows readers in one process do not serialise on the shared lock.
func BenchmarkViewGetParallel(b *testing.B) {
	const n = 10000
	s := newStore(b, Options{NoSync: true})
	seedBench(b, s, n)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i = (i + 7919) % n
			_ = s.View(context.Background(), func(tx *Tx) error {
				_, _ = tx.Get(Path{BucketExecutions}, SeqKey(uint64(i)))
				return nil
			})
		}
	})
}

var errBenchRollback = errors.New("rollback")

// BenchmarkOpenClose measures the fixed per-transaction cost of opening the file, taking the lock,
// and closing it, with an empty transaction; "store" is the one-time Store Open (schema check).
func BenchmarkOpenClose(b *testing.B) {
	ctx := context.Background()
	b.Run("view", func(b *testing.B) {
		s := newStore(b, Options{})
		b.ReportAllocs()
		for b.Loop() {
			if err := s.View(ctx, func(*Tx) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update-rollback", func(b *testing.B) {
		s := newStore(b, Options{})
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Update(ctx, func(*Tx) error { return errBenchRollback }); err != errBenchRollback {
				b.Fatal(err)
			}
		}
	})
	b.Run("store", func(b *testing.B) {
		dir := b.TempDir()
		b.ReportAllocs()
		for b.Loop() {
			s, err := Open(ctx, dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}

// BenchmarkAppendAudit is one audit line, opened and closed per call.
func BenchmarkAppendAudit(b *testing.B) {
	s := newStore(b, Options{})
	ctx := context.Background()
	rec := benchRecord{ID: 1, Title: "run_command", Status: "ok", Updated: time.Now()}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.AppendAudit(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
}
