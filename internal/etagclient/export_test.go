/*
Copyright 2026 The listkeeper Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package etagclient

// ItemDiff exports itemDiff to the external tests.
var ItemDiff = itemDiff

// BudgetWaiters returns how many reservations wait in b.
func BudgetWaiters(b *Budget) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiters.Len()
}
