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

package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// Counters are the list server's and the managers' counters at one moment,
// or the difference between two such moments.
type Counters struct {
	// At is when they were read (for a difference: when the later read
	// was).
	At time.Time
	// Stats are the list server's, summed over its restarts.
	Stats fakeapi.Stats
	// Reads are the harness's own reads of list documents, which Stats
	// count too.
	Reads int64
	// Managers are the replicas' metrics, in the order of the replicas
	// passed to ReadCounters, each summed over its restarts.
	Managers []ManagerMetrics
}

// ReadCounters reads the counters of the list server and every manager.
func ReadCounters(ctx context.Context, lists *ListServer, managers []*Manager) (Counters, error) {
	st, err := lists.Stats(ctx)
	if err != nil {
		return Counters{}, err
	}
	c := Counters{At: time.Now(), Stats: st, Reads: lists.Reads(), Managers: make([]ManagerMetrics, len(managers))}
	for i, m := range managers {
		if c.Managers[i], err = m.Scrape(ctx); err != nil {
			return Counters{}, fmt.Errorf("counters: %w", err)
		}
	}
	return c, nil
}

// Sub returns c - o: what happened between the reads o and c of the same
// list server and managers.
func (c Counters) Sub(o Counters) Counters {
	out := Counters{At: c.At, Stats: SubStats(c.Stats, o.Stats), Reads: c.Reads - o.Reads,
		Managers: make([]ManagerMetrics, len(c.Managers))}
	for i := range c.Managers {
		out.Managers[i] = c.Managers[i]
		if i < len(o.Managers) {
			out.Managers[i] = c.Managers[i].Sub(o.Managers[i])
		}
	}
	return out
}

// Requests is the number of list requests the operator sent: the server's
// count without the harness's own reads.
func (c Counters) Requests() int64 { return c.Stats.Total - c.Reads }

// Conflicts is the number of 412 Precondition Failed answers.
func (c Counters) Conflicts() int64 { return c.Stats.CountCode(412) }

// ManagerTotal sums the managers' metrics.
func (c Counters) ManagerTotal() ManagerMetrics {
	var t ManagerMetrics
	for _, m := range c.Managers {
		t = t.Add(m)
	}
	return t
}
