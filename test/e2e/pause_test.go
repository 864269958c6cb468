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
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	pauseReplicas   = 3
	pauseBystanders = 10
	// The churn works on pauseDocs lists, the first of them hot, with
	// pauseIDs IDs of up to two holders each. This test is about the
	// paused writer: no flash holders, and deletions that never overrun
	// a finalizer put on meanwhile (TestChurnWhileScaling covers both).
	pauseDocs    = 3
	pauseIDs     = 12
	pauseHolders = 2
	pauseHot     = 4
	pauseWorkers = 8
	pauseGap     = 100 * time.Millisecond
	// The owner of the hot list is paused at pauseAt into the churn, for
	// pauseFor: longer than its lease (10 s), so the others take its
	// buckets. The churn ends at pauseChurn.
	pauseAt    = 4 * time.Second
	pauseFor   = 15 * time.Second
	pauseChurn = 30 * time.Second
	// pauseExitWithin bounds how long the resumed replica may run on: it
	// must find its right to act gone at its next membership step and
	// exit, after the manager's graceful shutdown (up to 15 s).
	pauseExitWithin = 20 * time.Second
	// pauseInFlight is how long after the pause a write that the paused
	// replica had sent may still commit (the list server's latency is
	// 1 ms).
	pauseInFlight = time.Second
	pauseTimeout  = 3 * time.Minute
)

// TestPausedOwner stops the replica that writes a hot list with SIGSTOP
// during a churn, for longer than its lease, and continues it with
// SIGCONT. While it is paused, nobody may write its document before its
// Lease could expire (killEarliest), and the others must take the
// document over. Once resumed, it must find that its right to act ended
// and exit with an error, without committing any write (its audit log,
// matched with the list server's history, says what it wrote); it is then
// restarted. At rest each list holds exactly the bystanders and the IDs
// of the live entries, and the ledger finds no version with an ID without
// a holder or without the ID of a Synced entry.
func TestPausedOwner(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), pauseTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: "pause", replicas: pauseReplicas, bystanders: pauseBystanders,
		latency: time.Millisecond, documents: pauseDocs})
	led := e.startLedger(ctx)
	seed := uint64(time.Now().UnixNano())
	t.Logf("setup: %d replicas, %d lists, in %v; churn of %d workers on %d IDs per list with up to %d holders, seed %d",
		pauseReplicas, pauseDocs, time.Since(began).Round(time.Millisecond), pauseWorkers, pauseIDs, pauseHolders, seed)

	start := time.Now()
	ch := e.newChurn(pauseIDs, pauseHolders, pauseHot)
	ch.noFlash, ch.unchanged = true, true
	churned := make(chan error, 1)
	go func() { churned <- ch.run(ctx, seed, pauseWorkers, pauseGap, start.Add(pauseChurn)) }()

	e.sleepOrDie(ctx, start.Add(pauseAt))
	victim, survivors, bucket, err := e.listOwner(ctx, e.managers)
	if err != nil {
		t.Fatalf("which replica writes the hot list: %v", err)
	}
	proc := victim.Proc()
	if err := victim.Pause(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	t.Logf("%v: %s, the owner of the hot list's bucket %d, paused (SIGSTOP)", paused.Sub(start).Round(time.Millisecond), victim.Name(), bucket)

	// While it is paused, the survivors must take its document over.
	var taken time.Duration
	for time.Since(paused) < pauseFor {
		if taken == 0 {
			if m, _, err := e.ownerOf(ctx, bucket, survivors); err == nil {
				taken = time.Since(paused)
				t.Logf("  %s took the hot list's bucket %v after the pause", m.Name(), taken.Round(time.Millisecond))
			}
		}
		e.sleepOrDie(ctx, time.Now().Add(pollInterval))
	}
	if taken == 0 {
		t.Errorf("the survivors did not take the paused owner's bucket within %v (its lease is 10 s)", pauseFor)
	}

	// Resumed, it must find its right to act gone and exit.
	proc.MayExit()
	if err := victim.Resume(); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	t.Logf("%v: %s resumed (SIGCONT) after %v", resumed.Sub(start).Round(time.Millisecond), victim.Name(), resumed.Sub(paused).Round(time.Millisecond))
	select {
	case <-proc.Done():
		t.Logf("  %s exited %v after it resumed: %v", victim.Name(), time.Since(resumed).Round(time.Millisecond), proc.ExitErr())
		if proc.ExitErr() == nil {
			t.Errorf("%s exited with status 0 after its right to act ended; want an error", victim.Name())
		}
	case <-time.After(pauseExitWithin):
		t.Errorf("%s still runs %v after it resumed, though its right to act ended while it was paused", victim.Name(), pauseExitWithin)
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	if line := stoppedActing(proc.LogPath); line != "" {
		t.Logf("  its log: %s", line)
	} else {
		t.Logf("  note: its log does not say that it stopped acting")
	}
	if err := victim.Restart(ctx); err != nil {
		t.Fatalf("restart %s: %v", victim.Name(), err)
	}
	t.Logf("%v: %s restarted", time.Since(start).Round(time.Millisecond), victim.Name())

	if err := <-churned; err != nil {
		t.Fatalf("churn: %v", err)
	}
	churnEnd := time.Now()
	t.Logf("%v: churn over: %s", churnEnd.Sub(start).Round(time.Millisecond), ch.counts())
	e.awaitConverged(ctx, churnConverge)
	t.Logf("at rest %v after the churn", (time.Since(churnEnd) - settle).Round(time.Millisecond))

	e.checkPausedWrites(ctx, victim, paused)
	e.checkNoEarlyWrites(ctx, paused)
	e.checkMembers(ctx, e.managers)
	e.checkLedger(ctx, led)
	e.checkBystandersKept(ctx)
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// checkPausedWrites checks, with the audit log of victim's first process
// and the lists' histories, that it committed no write after it was
// paused (beyond one it had sent just before).
func (e *env) checkPausedWrites(ctx context.Context, victim *harness.Manager, paused time.Time) {
	e.t.Helper()
	procs, err := auditLog(victim.Proc().LogPath)
	if err != nil {
		e.t.Errorf("read the audit log of %s: %v", victim.Name(), err)
		return
	}
	commits, err := e.commitTimes(ctx)
	if err != nil {
		e.t.Errorf("read the histories: %v", err)
		return
	}
	late, found := writesAfter(procs[0], commits, paused.Add(pauseInFlight))
	if len(late) > 0 {
		e.t.Errorf("%s, paused at %s, committed %d writes more than %v later:\n    %s", victim.Name(), paused.Format(timeFmt),
			len(late), pauseInFlight, strings.Join(late, "\n    "))
		return
	}
	e.t.Logf("  %s's paused process committed %d writes, all before it was paused", victim.Name(), found)
}

// checkNoEarlyWrites checks that nobody wrote the hot list's document
// between a moment after the pause of its owner (writes it had sent may
// land) and the earliest its Lease could expire.
func (e *env) checkNoEarlyWrites(ctx context.Context, paused time.Time) {
	e.t.Helper()
	h, err := e.fullHistory(ctx, e.list.Path)
	if err != nil {
		e.t.Errorf("read the hot list's history: %v", err)
		return
	}
	first := time.Time{}
	for _, v := range h {
		if v.Time.After(paused.Add(pauseInFlight)) {
			first = v.Time
			break
		}
	}
	switch {
	case first.IsZero():
		e.t.Errorf("nobody wrote the hot list after its owner was paused")
	case first.Sub(paused) < killEarliest:
		e.t.Errorf("the hot list was written %v after its owner was paused, before its Lease could expire (%v)",
			first.Sub(paused).Round(time.Millisecond), killEarliest)
	default:
		e.t.Logf("  the hot list was first written %v after its owner was paused", first.Sub(paused).Round(time.Millisecond))
	}
}

// stoppedActing returns the last line of the log at path that says the
// replica stopped acting, "" when none does.
func stoppedActing(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "stopped acting") {
			var rec struct {
				Msg   string `json:"msg"`
				Error string `json:"error"`
			}
			if json.Unmarshal([]byte(lines[i]), &rec) == nil && rec.Msg != "" {
				return strings.TrimSpace(rec.Msg + " " + rec.Error)
			}
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}
