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

package sizing_test

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// newBudget returns the budget the manager derives from the memory limit
// (--memory-budget-bytes=0), as controller.Setup does.
func newBudget() *etagclient.Budget {
	return etagclient.NewBudget(etagclient.BudgetFor(debug.SetMemoryLimit(-1)))
}

// budgetOptions are the options the manager gives its list clients that
// matter here: the shared budget, and a wait for it long enough that
// thirty reads queued behind it all get their turn.
func budgetOptions(b *etagclient.Budget) []etagclient.Option {
	return []etagclient.Option{etagclient.WithBudget(b), etagclient.WithBatchInterval(0),
		etagclient.WithBudgetWait(time.Minute), etagclient.WithRequestTimeout(2 * time.Minute)}
}

// reportBudget reports the budget's size and high-water mark.
func reportBudget(b *testing.B, budget *etagclient.Budget) {
	b.ReportMetric(float64(budget.Limit())/mib, "MiB-budget")
	b.ReportMetric(float64(budget.HighWater())/mib, "MiB-highwater")
}
