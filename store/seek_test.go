package store

import (
	"context"
	"slices"
	"testing"
)

func TestSeekReverse(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	p := Path{BucketExecutions, "r"}
	err = s.Update(context.Background(), func(tx *Tx) error {
		for _, k := range []string{"a", "c", "e"} {
			if err := tx.Put(p, k, []byte(k)); err != nil {
				return err
			}
		}
		return tx.Put(append(Path{}, BucketExecutions, "r", "nested"), "x", []byte("y"))
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, before string
		limit        int
		want         []string
	}{
		{"all, newest first", "", 10, []string{"e", "c", "a"}},
		{"before an existing key", "c", 10, []string{"a"}},
		{"before a missing key", "d", 10, []string{"c", "a"}},
		{"before everything", "a", 10, nil},
		{"past the end", "z", 10, []string{"e", "c", "a"}},
		{"stopped by fn", "", 2, []string{"e", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := s.View(context.Background(), func(tx *Tx) error {
				return tx.SeekReverse(p, tt.before, func(k string, _ []byte) (bool, error) {
					got = append(got, k)
					return len(got) < tt.limit, nil
				})
			})
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("SeekReverse(%q) = %v, %v; want %v", tt.before, got, err, tt.want)
			}
		})
	}
}
