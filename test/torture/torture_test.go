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

package torture

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestMain fails the package when a round leaves a goroutine behind: a
// client cycle, a server handler or a connection nobody closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// tortureSeeds are the fixed seeds of TestTorture. A failure names its
// seed; cmd/soak -seed N replays the same configuration (the interleaving
// of goroutines, and so the exact history, differs from run to run).
var tortureSeeds = []int64{1, 2, 3}

// TestTorture runs short torture rounds: 3 replicas x 16 goroutines over 3
// lists with faults on, each checked for linearizability (porcupine) and
// against the server's committed versions.
func TestTorture(t *testing.T) {
	seeds := tortureSeeds
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep, err := Run(ctx, DefaultConfig(seed))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("workload %s, checks %s: %s", rep.Elapsed.Round(time.Millisecond), rep.Checked.Round(time.Millisecond), rep.Totals.Summary())
			for _, p := range rep.Problems {
				t.Error(p)
			}
			if len(rep.Artifacts) > 0 {
				t.Errorf("artifacts kept for seed %d: %v", seed, rep.Artifacts)
			}
			// The round must have exercised what it is meant to exercise.
			tot := rep.Totals
			for _, k := range []fakeapi.FaultKind{fakeapi.FaultServiceUnavailable, fakeapi.FaultResetBeforeCommit, fakeapi.FaultCommitThenDrop} {
				if tot.Faults[k] == 0 {
					t.Errorf("no %s fault was injected", k)
				}
			}
			if tot.Checks != 2 {
				t.Errorf("%d porcupine checks ran, want 2", tot.Checks)
			}
			if tot.Status412 == 0 || tot.ClientAmbiguousWrites == 0 {
				t.Errorf("no 412 (%d) or no ambiguous write (%d): the clients did not contend or the faults did not bite", tot.Status412, tot.ClientAmbiguousWrites)
			}
			if poolRemoves := tot.Removes - tot.HotRemoves; tot.CrossReplicaRemoves < poolRemoves/2 {
				t.Errorf("only %d of %d removals came from another replica than the addition", tot.CrossReplicaRemoves, poolRemoves)
			}
			if tot.HotAdds == 0 || tot.HotRemoves == 0 || tot.Submitted == 0 || tot.OrderChecked == 0 {
				t.Errorf("hot adds %d, hot removes %d, submitted %d, IDs checked for order %d: the hot-ID workload did not run",
					tot.HotAdds, tot.HotRemoves, tot.Submitted, tot.OrderChecked)
			}
			if tot.OK < (tot.Adds+tot.Removes)*9/10 {
				t.Errorf("only %d of %d changes returned ok", tot.OK, tot.Adds+tot.Removes)
			}
		})
	}
}
