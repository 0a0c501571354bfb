package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"toolhost/reminders"
	"toolhost/store"
)

// The reminder channel reads recent memories through this interface.
var _ reminders.MemorySource = (*Service)(nil)

// RecentMemories implements reminders.MemorySource: the memories stored and documents imported by
// conversation conv at or after since, so the reminder tells the model not to store or import
// them again. Document notes read "document NAME imported (N chunks)".
func (s *Service) RecentMemories(ctx context.Context, conv string, since time.Time) ([]reminders.MemoryNote, error) {
	notes, err := s.Recent(ctx, conv, since)
	if err != nil {
		return nil, err
	}
	out := make([]reminders.MemoryNote, 0, len(notes))
	for _, n := range notes {
		m := reminders.MemoryNote{ID: strconv.FormatUint(n.ID, 10), Collection: n.Scope, Text: n.Text, StoredAt: n.Time}
		if n.Kind == NoteDocument {
			m.Text = fmt.Sprintf("document %s imported (%d chunks)", n.Text, n.Chunks)
		}
		out = append(out, m)
	}
	return out, nil
}

// RecentBucket implements reminders.MemorySource: Recent reads only this bucket's keys.
func (s *Service) RecentBucket(conv string) store.Path {
	return append(slices.Clone(recentPath), conv)
}
