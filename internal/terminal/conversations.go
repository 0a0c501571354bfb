package terminal

import (
	"slices"
)

// Conversations returns the conversations that have a session or command in this process,
// sorted: the operator console lists each one's terminals with List.
func (m *Manager) Conversations() []string {
	if h := m.remoteNow(); h != nil {
		return h.conversations()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.sessions {
		out = append(out, k.conv)
	}
	for k := range m.jobs {
		out = append(out, k.conv)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
