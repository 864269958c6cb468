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

package e2e_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	crashEntries    = 300
	crashBystanders = 20
	crashReplicas   = 3
	// crashTimeout bounds the whole test; crashPhaseTimeout each phase,
	// fault and recovery included.
	crashTimeout      = 5 * time.Minute
	crashPhaseTimeout = 2 * time.Minute
	// listKillAt is how many new IDs are on the list when the list server
	// is killed; replicaKillAt how many are off it again when a replica is.
	listKillAt    = 75
	replicaKillAt = 100
	// outage is how long a killed process stays down.
	outage = 3 * time.Second
	// pollInterval is how often a phase looks at the entries and the list.
	pollInterval = 200 * time.Millisecond
	// settle is how long the list must stay right after the last phase.
	settle = 2 * time.Second
)

// TestCrashAndRestart creates 300 entries with three replicas while the
// list server is killed (SIGKILL) and restarted on its port from its state
// file, then deletes them while one replica is killed (SIGKILL) and
// restarted. Everything must converge: no ID lost, the bystanders kept in
// order, no entry left, no panic.
func TestCrashAndRestart(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), crashTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: "crash", replicas: crashReplicas, bystanders: crashBystanders,
		latency: time.Millisecond, stateFile: true})
	t.Logf("setup: %d replicas, list server with state file, %d bystanders, in %v",
		crashReplicas, crashBystanders, time.Since(began).Round(time.Millisecond))
	led := e.startLedger(ctx)
	names := harness.EntryNames("crash", crashEntries)
	all := append(slices.Clone(e.bystanders), names...)

	c0 := e.counters(ctx)
	create := e.runPhase(ctx, phase{
		name: "create", adding: true, names: names, want: all,
		act: func(ctx context.Context) error { return e.entries.Create(ctx, names) },
		fault: &fault{
			what:    "list server (SIGKILL)",
			trigger: func(s snapshot) bool { return s.err == nil && s.on >= listKillAt },
			kill:    func(ctx context.Context) { e.keepHistory(ctx); e.lists.Kill() },
			restart: e.lists.Restart,
		},
		done: func(s snapshot) bool {
			return s.err == nil && s.on == len(names) && len(s.entries) == len(names) && s.synced == len(names)
		},
	})
	// Nothing lost: every ID is on the list, the bystanders first and in
	// their order (additions go at the end), and nothing else.
	if missing, leftover := harness.DiffItems(all, create.last.doc.Items); len(missing)+len(leftover) > 0 {
		t.Fatalf("after create the list misses %d IDs%s and has %d it should not%s",
			len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
	}
	if items := create.last.doc.Items; !slices.Equal(items[:len(e.bystanders)], e.bystanders) {
		t.Fatalf("after create the bystanders are not first and in order: %v", items[:len(e.bystanders)])
	}
	c1 := e.counters(ctx)

	del := e.runPhase(ctx, phase{
		name: "delete", names: names, want: e.bystanders,
		act: func(ctx context.Context) error { return e.entries.Delete(ctx, names) },
		fault: &fault{
			what:    e.managers[1].Name() + " (SIGKILL)",
			trigger: func(s snapshot) bool { return s.err == nil && len(names)-s.on >= replicaKillAt },
			kill:    func(context.Context) { e.managers[1].Kill() },
			restart: e.managers[1].Restart,
		},
		done: func(s snapshot) bool {
			return s.err == nil && len(s.entries) == 0 && slices.Equal(s.doc.Items, e.bystanders)
		},
	})
	c2 := e.counters(ctx)

	e.checkSettled(ctx)
	e.checkHistory(ctx, names, del.start)
	e.checkLedger(ctx, led)
	e.checkNoPanics()

	t.Logf("figures (%d entries, %d replicas; requests and 412s counted by the list server, without the test's own reads):", crashEntries, crashReplicas)
	for _, f := range []struct {
		ph phaseResult
		c  harness.Counters
	}{{create, c1.Sub(c0)}, {del, c2.Sub(c1)}} {
		t.Logf("  %-6s %6.2fs  requests %4d (%.2f per change)  412s %3d  writes %3.0f  mean batch %5.1f  reconciles listentry %4.0f (errors %3.0f) externallist %3.0f  | %s down at %d/%d IDs on the list for %v",
			f.ph.name, f.ph.elapsed.Seconds(), f.c.Requests(), float64(f.c.Requests())/float64(len(names)), f.c.Conflicts(),
			f.c.ManagerTotal().Writes, f.c.ManagerTotal().MeanBatch(),
			f.c.ManagerTotal().ReconcileCount("listentry", ""), f.c.ManagerTotal().ReconcileCount("listentry", "error"),
			f.c.ManagerTotal().ReconcileCount("externallist", ""),
			f.ph.fault.what, f.ph.faultAt, len(names), f.ph.downFor.Round(time.Millisecond))
	}
	t.Logf("  restarts: list server %d, %s %d; total %v", e.lists.Restarts(), e.managers[1].Name(), e.managers[1].Restarts(),
		time.Since(began).Round(time.Millisecond))
}
