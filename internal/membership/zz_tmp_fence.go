package membership

import "time"

// TEMPORARY until the membership branch lands.
func (m *Member) ActUntil(b int) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.acting || !m.held[b] {
		return time.Time{}, false
	}
	return m.renewed.Add(m.renewDeadline), true
}

// SettleAfter TEMPORARY.
func (m *Member) SettleAfter(int) time.Time { return time.Time{} }
