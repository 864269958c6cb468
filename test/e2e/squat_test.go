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
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	squatReplicas   = 3
	squatBystanders = 5
	// squatPath is the owner's document, which the squatter names too.
	// Neither it nor the squatter's names hold the owner's namespace or
	// list name, which the squatter must never be shown.
	squatPath = "/lists/squat-doc"
	// The squatter: an ExternalList without credentials, created first.
	squatThiefNS   = "squat-thief"
	squatThiefList = "shared-doc"
	squatThiefID   = "squat-stolen-id"
	// The owner: an ExternalList with the list server's token.
	squatOwnerNS   = "squat-owner"
	squatOwnerList = "team-doc"
	// squatEntries owner entries are created at once; squatAfterKill more
	// once the replica that writes the document was killed, and
	// squatAfterRestart more once it is back.
	squatEntries      = 30
	squatAfterKill    = 5
	squatAfterRestart = 3
	squatTimeout      = 6 * time.Minute
	// squatWritten bounds the wait until every owner entry is Synced and
	// its ID on the document.
	squatWritten = 60 * time.Second
	// squatTakeover bounds the same after the SIGKILL: the survivors take
	// the bucket once the killed replica's Lease expired, and the new
	// owner settles it (see killTakeoverTarget), on a loaded machine.
	squatTakeover = 90 * time.Second
)

// TestSquatterBlocksNothing: a tenant with no credentials creates an
// ExternalList that names another team's document before the team does
// (the squatter). It is Ready=False, reason Unauthorized (the list server
// answers 401), and it must keep nobody from the document: the owner's
// ExternalList, created more than a second later (so the squatter is
// strictly older) with the server's token, earns the claim and every one
// of its entries is written, with three replicas watching every
// namespace. The squatter stays Unauthorized, never DocumentInUse; its
// entry's ID never reaches the document, and nothing it is shown (its
// conditions, its entry's, the events in its namespace) names the owner's
// namespace or list. The replica that writes the document is then killed
// with SIGKILL: the survivors take the document over and write the owner
// entries created after the kill; restarted, the replica rejoins and the
// entries created then are written too. Everything is deleted in the end,
// and the ledger checks that no version of the document held an ID
// without an entry of the owner's list holding it.
func TestSquatterBlocksNothing(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), squatTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: "squat", replicas: squatReplicas, bystanders: squatBystanders,
		latency: time.Millisecond, allNamespaces: true, seedOnly: []string{squatPath}})
	if e.lists.Token() == "" {
		t.Fatal("the env's list server requires no token: the squatter would read the document")
	}
	led := e.startLedger(ctx)
	c := suite.cluster.Client
	st0, err := e.lists.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("setup: %d replicas watching every namespace, a list server that requires a bearer token, in %v",
		squatReplicas, time.Since(began).Round(time.Millisecond))
	for _, ns := range []string{squatThiefNS, squatOwnerNS} {
		if err := harness.EnsureNamespace(ctx, c, ns); err != nil {
			t.Fatal(err)
		}
	}

	// The squatter: created with the plain client, so that it has no
	// Secret and sends no header.
	thief := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: squatThiefNS, Name: squatThiefList},
		Spec:       v1alpha1.ExternalListSpec{URL: e.lists.URL(squatPath), ItemsPointer: "/items"},
	}
	if err := c.Create(ctx, thief); err != nil {
		t.Fatalf("create the squatter: %v", err)
	}
	e.awaitListReason(ctx, squatThiefNS, squatThiefList, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized)
	thiefEntries := e.entriesOf(squatThiefNS, squatThiefList, "")
	mustCreate(ctx, t, thiefEntries, "stolen", squatThiefID)
	watch := e.watchSquat(ctx)
	t.Logf("squatter %s/%s: Ready=False Unauthorized, with one entry", squatThiefNS, squatThiefList)

	// Creation times have whole seconds: the owner is younger only if it
	// was created in a later second.
	e.sleepOrDie(ctx, time.Now().Add(1200*time.Millisecond))
	owner := harness.ListObject{Namespace: squatOwnerNS, Name: squatOwnerList, Server: e.lists, Path: squatPath}
	ownerCreated := time.Now()
	if err := owner.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	e.checkOlder(ctx)
	e.awaitListReason(ctx, squatOwnerNS, squatOwnerList, metav1.ConditionTrue, "")
	ownerReady := time.Since(ownerCreated)
	t.Logf("owner %s/%s, created later with the token: Ready=True in %v", squatOwnerNS, squatOwnerList, ownerReady.Round(time.Millisecond))

	ownerEntries := e.entriesOf(squatOwnerNS, squatOwnerList, "")
	names := harness.EntryNames("owner", squatEntries)
	start := time.Now()
	if err := ownerEntries.Create(ctx, names); err != nil {
		t.Fatal(err)
	}
	e.awaitWritten(ctx, ownerEntries, names, squatWritten)
	written := time.Since(start)
	t.Logf("%d owner entries: all Synced=True Added and on the document %v after their creation began (%v after the owner list's creation)",
		squatEntries, written.Round(time.Millisecond), time.Since(ownerCreated).Round(time.Millisecond))
	e.checkSquatter(ctx, watch)

	// Kill the replica that writes the document while the squatter is
	// there: the survivors must write the owner's next entries.
	bucket, err := documentBucket(ctx, squatOwnerNS, squatOwnerList)
	if err != nil {
		t.Fatal(err)
	}
	victim, _, err := e.ownerOf(ctx, bucket, e.managers)
	if err != nil {
		t.Fatal(err)
	}
	victim.Kill()
	killed := victim.Signalled()
	later := harness.EntryNames("owner-after-kill", squatAfterKill)
	if err := ownerEntries.Create(ctx, later); err != nil {
		t.Fatal(err)
	}
	names = append(names, later...)
	e.awaitWritten(ctx, ownerEntries, names, squatTakeover)
	t.Logf("SIGKILL of %s (the writer of the document, bucket %d): the %d entries created after it were written %v after the kill",
		victim.Name(), bucket, squatAfterKill, time.Since(killed).Round(time.Millisecond))
	e.checkSquatter(ctx, watch)

	if err := victim.Restart(ctx); err != nil {
		t.Fatalf("restart %s: %v", victim.Name(), err)
	}
	if err := harness.WaitMembers(ctx, c, e.sup, e.namespace, e.managers, membership.DefaultBuckets, squatTakeover); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	// A replica that gains a bucket while the Lease of a dead member
	// still claims it waits until that member's late writes cannot land,
	// counted from when it first saw that Lease: if the restarted replica
	// gets the document's bucket back before the killed one's Lease is
	// deleted, it writes nothing until a lease duration and the late-write
	// bound (10 s each) after it joined, whence squatWritten.
	writer, _, err := e.ownerOf(ctx, bucket, e.managers)
	if err != nil {
		t.Fatal(err)
	}
	last := harness.EntryNames("owner-after-restart", squatAfterRestart)
	if err := ownerEntries.Create(ctx, last); err != nil {
		t.Fatal(err)
	}
	names = append(names, last...)
	e.awaitWritten(ctx, ownerEntries, names, squatWritten)
	t.Logf("%s restarted and the buckets settled %v after the kill, the document's with %s; the %d entries created then were written in %v",
		victim.Name(), restarted.Sub(killed).Round(time.Millisecond), writer.Name(), squatAfterRestart, time.Since(restarted).Round(time.Millisecond))
	e.checkSquatter(ctx, watch)
	watch.stop()
	watch.report(t)

	// Delete everything.
	mustDelete(ctx, t, ownerEntries, names...)
	mustDelete(ctx, t, thiefEntries, "stolen")
	for _, n := range names {
		e.awaitGone(ctx, squatOwnerNS, n)
	}
	e.awaitGone(ctx, squatThiefNS, "stolen")
	e.awaitDocument(ctx, squatPath)
	e.deleteList(ctx, squatThiefNS, squatThiefList)
	e.deleteList(ctx, squatOwnerNS, squatOwnerList)
	t.Logf("everything deleted: the document holds its bystanders only")

	e.checkNeverOn(ctx, squatPath, squatThiefID)
	e.checkLedgerOf(ctx, led, squatPath, externalList(squatOwnerNS, squatOwnerList), all, span{})
	st, err := e.lists.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := harness.SubStats(st, st0)
	n401 := d.CountCode(http.StatusUnauthorized)
	t.Logf("the list server answered %d requests with 401 (%d of them the operator's) over %v; %d requests in all",
		n401, d.CountAgent(operatorAgent, http.StatusUnauthorized), time.Since(began).Round(time.Second), d.Total)
	if n401 == 0 {
		t.Errorf("the list server answered no 401: the squatter never read the document")
	}
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// checkOlder checks that the squatter was created in an earlier second
// than the owner, so that it comes first in the claim order.
func (e *env) checkOlder(ctx context.Context) {
	e.t.Helper()
	thief, _, err := getList(ctx, squatThiefNS, squatThiefList)
	if err != nil {
		e.t.Fatal(err)
	}
	owner, _, err := getList(ctx, squatOwnerNS, squatOwnerList)
	if err != nil {
		e.t.Fatal(err)
	}
	if tt, ot := thief.GetCreationTimestamp(), owner.GetCreationTimestamp(); !tt.Before(&ot) {
		e.t.Fatalf("the squatter (created %s) is not older than the owner (created %s): the test proves nothing", tt, ot)
	}
}

// awaitWritten waits until every one of the entries called names is
// Synced=True, reason Added, and the document at squatPath holds exactly
// the bystanders and their IDs, and returns how long that took.
func (e *env) awaitWritten(ctx context.Context, entries harness.Entries, names []string, timeout time.Duration) time.Duration {
	e.t.Helper()
	start := time.Now()
	want := append(slices.Clone(e.bystanders), entries.IDsOf(names)...)
	var last string
	err := harness.Poll(ctx, e.sup, timeout, pollInterval, func(ctx context.Context) (bool, error) {
		existing, err := entries.Existing(ctx)
		if err != nil {
			last = err.Error()
			return false, err
		}
		byName := map[string]*v1alpha1.ListEntry{}
		for i := range existing {
			byName[existing[i].Name] = &existing[i]
		}
		var pending []string
		for _, n := range names {
			le := byName[n]
			if le == nil {
				pending = append(pending, n+": missing")
				continue
			}
			cond := meta.FindStatusCondition(le.Status.Conditions, v1alpha1.ConditionSynced)
			switch {
			case cond == nil:
				pending = append(pending, n+": no Synced condition")
			case cond.Status != metav1.ConditionTrue || cond.Reason != v1alpha1.ReasonAdded:
				pending = append(pending, fmt.Sprintf("%s: Synced=%s %s: %s", n, cond.Status, cond.Reason, cond.Message))
			}
		}
		doc, err := e.lists.Document(ctx, squatPath)
		if err != nil {
			last = err.Error()
			return false, err
		}
		missing, leftover := harness.DiffItems(want, doc.Items)
		last = fmt.Sprintf("%d of %d entries not Synced=True Added%s; the document misses %d IDs%s and has %d it should not%s",
			len(pending), len(names), harness.IDList(pending), len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
		if slices.Contains(doc.Items, squatThiefID) {
			return false, harness.Fatal(fmt.Errorf("the document holds the squatter's ID %q", squatThiefID))
		}
		return len(pending)+len(missing)+len(leftover) == 0 && slices.Equal(headOf(doc.Items, len(e.bystanders)), e.bystanders), nil
	})
	if err != nil {
		e.t.Fatalf("the owner's %d entries not written within %v: %v (%s)", len(names), timeout, err, last)
	}
	return time.Since(start)
}

// forbidden are the words that nothing the squatter is shown may hold:
// the owner's namespace and list.
var forbidden = []string{squatOwnerNS, squatOwnerList}

func namesOwner(s string) bool {
	return slices.ContainsFunc(forbidden, func(w string) bool { return strings.Contains(s, w) })
}

// checkSquatter checks the squatter as it stands now: Ready=False
// Unauthorized, no standing in the claim, its entry not Synced and its ID
// not on the document, and neither its status, its entry's, nor the
// events in its namespace naming the owner.
func (e *env) checkSquatter(ctx context.Context, w *squatWatch) {
	e.t.Helper()
	c := suite.cluster.Client
	var xl v1alpha1.ExternalList
	if err := c.Get(ctx, client.ObjectKey{Namespace: squatThiefNS, Name: squatThiefList}, &xl); err != nil {
		e.t.Fatal(err)
	}
	ready := meta.FindStatusCondition(xl.Status.Conditions, v1alpha1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != v1alpha1.ReasonUnauthorized {
		e.t.Errorf("squatter: want Ready=False Unauthorized, got %+v", ready)
	}
	if xl.Status.EarnedClaim != "" {
		e.t.Errorf("squatter: status.earnedClaim is %q, though it never read the document", xl.Status.EarnedClaim)
	}
	if b, err := json.Marshal(xl.Status); err != nil || namesOwner(string(b)) {
		e.t.Errorf("squatter: its status names the owner (%v): %s", err, b)
	}
	var le v1alpha1.ListEntry
	if err := c.Get(ctx, client.ObjectKey{Namespace: squatThiefNS, Name: "stolen"}, &le); err != nil {
		e.t.Fatal(err)
	}
	if meta.IsStatusConditionTrue(le.Status.Conditions, v1alpha1.ConditionSynced) {
		e.t.Errorf("squatter's entry is Synced=True")
	}
	if le.Status.AddedTo != nil {
		e.t.Errorf("squatter's entry: status.addedTo is %+v", le.Status.AddedTo)
	}
	if b, err := json.Marshal(le.Status); err != nil || namesOwner(string(b)) {
		e.t.Errorf("squatter's entry: its status names the owner (%v): %s", err, b)
	}
	if cond := meta.FindStatusCondition(le.Status.Conditions, v1alpha1.ConditionReady); cond != nil {
		w.noteEntry(fmt.Sprintf("Ready=%s %s (%q)", cond.Status, cond.Reason, cond.Message))
	}
	var events eventsv1.EventList
	if err := c.List(ctx, &events, client.InNamespace(squatThiefNS)); err != nil {
		e.t.Fatal(err)
	}
	for _, ev := range events.Items {
		text := strings.Join([]string{ev.Note, ev.Reason, ev.Action, ev.Regarding.Namespace, ev.Regarding.Name}, " ")
		if ev.Related != nil {
			text += " " + ev.Related.Namespace + " " + ev.Related.Name
		}
		if namesOwner(text) {
			e.t.Errorf("an event in the squatter's namespace names the owner: %s %s/%s: %s: %s", ev.Type, ev.Regarding.Kind, ev.Regarding.Name, ev.Reason, ev.Note)
		}
		w.noteEvent(ev.Regarding.Kind + " " + ev.Reason)
	}
	doc, err := e.lists.Document(ctx, squatPath)
	if err != nil {
		e.t.Fatal(err)
	}
	if slices.Contains(doc.Items, squatThiefID) {
		e.t.Errorf("the document holds the squatter's ID %q", squatThiefID)
	}
}

// checkNeverOn checks that no version of the document at path held id.
func (e *env) checkNeverOn(ctx context.Context, path, id string) {
	e.t.Helper()
	h, err := e.fullHistory(ctx, path)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, v := range h {
		if v.Deleted {
			continue
		}
		var doc harness.Document
		if err := json.Unmarshal(v.Body, &doc); err != nil {
			e.t.Errorf("version %d of %s does not parse: %v", v.Seq, path, err)
			continue
		}
		if slices.Contains(doc.Items, id) {
			e.t.Errorf("version %d of %s (committed %s) holds the squatter's ID %q", v.Seq, path, v.Time.Format(time.StampMilli), id)
		}
	}
	e.t.Logf("history: %d versions of %s, none with the squatter's ID", len(h), path)
}

// squatWatch samples the Ready conditions of the squatter and the owner
// until stopped, and records every state each was seen in.
type squatWatch struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	samples int
	thief   map[string]int // "Ready=False Unauthorized" -> times seen
	owner   map[string]int
	named   []string // squatter messages that named the owner
	entry   map[string]bool
	events  map[string]bool
}

// watchSquat starts sampling the lists every pollInterval/2.
func (e *env) watchSquat(ctx context.Context) *squatWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &squatWatch{cancel: cancel, done: make(chan struct{}), thief: map[string]int{}, owner: map[string]int{},
		entry: map[string]bool{}, events: map[string]bool{}}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(pollInterval / 2)
		defer tick.Stop()
		for {
			w.sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *squatWatch) sample(ctx context.Context) {
	_, thief, terr := getList(ctx, squatThiefNS, squatThiefList)
	_, owner, oerr := getList(ctx, squatOwnerNS, squatOwnerList)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples++
	if terr == nil {
		w.thief[readyOf(thief)]++
		for _, cond := range thief {
			if namesOwner(cond.Message) && !slices.Contains(w.named, cond.Message) {
				w.named = append(w.named, cond.Message)
			}
		}
	}
	if oerr == nil {
		w.owner[readyOf(owner)]++
	}
}

func readyOf(conds []metav1.Condition) string {
	cond := meta.FindStatusCondition(conds, v1alpha1.ConditionReady)
	if cond == nil {
		return "no Ready"
	}
	return fmt.Sprintf("Ready=%s %s", cond.Status, cond.Reason)
}

func (w *squatWatch) noteEntry(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.entry[s] = true
}

func (w *squatWatch) noteEvent(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events[s] = true
}

func (w *squatWatch) stop() {
	w.cancel()
	<-w.done
}

// report fails the test when the squatter was seen in any state but
// Ready=False Unauthorized, or the owner DocumentInUse, or a squatter
// message named the owner, and logs what was seen.
func (w *squatWatch) report(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	want := fmt.Sprintf("Ready=%s %s", metav1.ConditionFalse, v1alpha1.ReasonUnauthorized)
	for state, n := range w.thief {
		if state != want {
			t.Errorf("the squatter was seen %s in %d of %d samples", state, n, w.samples)
		}
	}
	for state, n := range w.owner {
		if strings.Contains(state, v1alpha1.ReasonDocumentInUse) {
			t.Errorf("the owner was seen %s in %d of %d samples: the squatter blocked it", state, n, w.samples)
		}
	}
	for _, m := range w.named {
		t.Errorf("a condition of the squatter named the owner: %s", m)
	}
	t.Logf("watch: %d samples; squatter %s; owner %s; squatter's entry %s; events in %s: %s",
		w.samples, countsOf(w.thief), countsOf(w.owner), keysOf(w.entry), squatThiefNS, keysOf(w.events))
}

func countsOf(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(parts)
	return "[" + strings.Join(parts, ", ") + "]"
}

func keysOf(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, ", ") + "]"
}
