package etagclient

// ItemDiff exports itemDiff to the external tests.
var ItemDiff = itemDiff

// BudgetWaiters returns how many reservations wait in b.
func BudgetWaiters(b *Budget) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiters.Len()
}
