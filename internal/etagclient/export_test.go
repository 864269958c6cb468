package etagclient

import "time"

// ItemDiff exports itemDiff to the external tests.
var ItemDiff = itemDiff

// BudgetWaiters returns how many reservations wait in b.
func BudgetWaiters(b *Budget) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiters.Len()
}

// WithWeakETagWait sets how long a read that got a weak ETag is repeated
// before the client gives up with ErrWeakETag; 0 gives up at once. Default:
// DefaultWeakETagWait. Only tests change it.
func WithWeakETagWait(d time.Duration) Option { return func(o *config) { o.weakETagWait = d } }
