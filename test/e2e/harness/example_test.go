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

package harness_test

import (
	"fmt"
	"strings"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

func ExampleParseMetrics() {
	const text = `# TYPE listkeeper_batch_size histogram
listkeeper_batch_size_sum 90
listkeeper_batch_size_count 40
controller_runtime_reconcile_total{controller="listentry",result="success"} 300
controller_runtime_reconcile_total{controller="listentry",result="error"} 4
`
	samples, err := harness.ParseMetrics(strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := harness.MetricsFrom(samples)
	fmt.Printf("mean batch %.2f, listentry reconciles %v (%v errors)\n",
		m.MeanBatch(), m.ReconcileCount("listentry", ""), m.ReconcileCount("listentry", "error"))
	// Output: mean batch 2.25, listentry reconciles 304 (4 errors)
}

func ExampleDiffItems() {
	missing, leftover := harness.DiffItems([]string{"a", "b", "c"}, []string{"a", "x", "c", "c"})
	fmt.Println(missing, leftover)
	// Output: [b] [x c]
}
