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
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// A ledger watches an env's ListEntries for a whole run and records when
// each one (by UID) lived and when it was first seen Synced, so that the
// lists' histories can be checked against it afterwards, version by
// version, for the two promises of README.md and docs/design.md:
//
//   - No ID without a holder: a version of a document holds an ID only
//     while an entry that names the document's list and holds the ID
//     exists (its finalizer keeps it until the ID is off). An ID on the
//     list while none exists is a leak, however briefly: a write made for
//     an entry that was gone, or a late write landing after the removal.
//   - Nothing lost: once an entry is Synced, its ID stays on the list
//     until the entry is deleted.
//
// The times are bounded so that neither check can fail on a correct
// operator: an entry counts as existing from its creationTimestamp (whole
// seconds, rounded down, so at or before its creation) until the watch saw
// it gone (at or after its finalizer was released); it counts as Synced
// from when the watch first saw Synced=True (at or after its ID was
// committed) until its deletionTimestamp (whole seconds, rounded down, so
// at or before the deletion). The list server, the API server and the test
// share one clock. The price of the rounding: a leak less than a second
// before an entry with the same ID is created is not seen.
type ledger struct {
	stop context.CancelFunc
	done chan struct{}

	mu      sync.Mutex
	entries map[types.UID]*lifetime
	relists int // initial-list or tombstone events after the start: the watch broke
	events  []ledgerEvent
}

// ledgerEvent is one event the ledger's watch delivered, kept for the
// evidence of a failed test.
type ledgerEvent struct {
	At                time.Time  `json:"at"`
	Type              string     `json:"type"`
	Name              string     `json:"name"`
	UID               types.UID  `json:"uid"`
	ResourceVersion   string     `json:"resourceVersion"`
	ID                string     `json:"id"`
	Finalizers        []string   `json:"finalizers,omitempty"`
	DeletionTimestamp *time.Time `json:"deletionTimestamp,omitempty"`
	Synced            string     `json:"synced,omitempty"` // status and reason
}

// lifetime is what the ledger saw of one entry.
type lifetime struct {
	name   string // namespace/name
	list   listKey
	id     string
	from   time.Time // creationTimestamp
	gone   time.Time // seen deleted; zero while it exists
	synced time.Time // first seen Synced=True; zero if never
	delTS  time.Time // deletionTimestamp; zero while live
	// unfinalized: it was removed while it still carried the finalizer,
	// without a deletionTimestamp: a deletion that raced with the patch
	// that put the finalizer on removed it at once, although the patch
	// had succeeded.
	unfinalized bool
}

// listKey names the list an entry keeps its ID on.
type listKey struct {
	kind      v1alpha1.ListKind
	namespace string // "" for a ClusterExternalList
	name      string
}

func (k listKey) String() string {
	if k.namespace == "" {
		return string(k.kind) + " " + k.name
	}
	return string(k.kind) + " " + k.namespace + "/" + k.name
}

// listKeyOf is the list an entry names.
func listKeyOf(le *v1alpha1.ListEntry) listKey {
	k := listKey{kind: le.Spec.ListRef.Kind, namespace: le.Namespace, name: le.Spec.ListRef.Name}
	if k.kind == "" {
		k.kind = v1alpha1.ListKindExternalList
	}
	if k.kind == v1alpha1.ListKindClusterExternalList {
		k.namespace = ""
	}
	return k
}

// externalList is the key of the ExternalList namespace/name.
func externalList(namespace, name string) listKey {
	return listKey{kind: v1alpha1.ListKindExternalList, namespace: namespace, name: name}
}

// startLedger starts watching the entries that carry the env's labels, in
// every namespace, and returns once the watch has synced. It stops when
// the test ends.
func (e *env) startLedger(ctx context.Context) *ledger {
	e.t.Helper()
	scheme, err := harness.NewScheme()
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := cache.New(suite.cluster.Config, cache.Options{Scheme: scheme, ByObject: map[client.Object]cache.ByObject{
		&v1alpha1.ListEntry{}: {Label: labels.SelectorFromSet(e.labels)},
	}})
	if err != nil {
		e.t.Fatal(err)
	}
	inf, err := c.GetInformer(ctx, &v1alpha1.ListEntry{})
	if err != nil {
		e.t.Fatal(err)
	}
	l := &ledger{entries: map[types.UID]*lifetime{}, done: make(chan struct{})}
	synced := false
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			l.mu.Lock()
			if initial && synced {
				l.relists++
			}
			l.mu.Unlock()
			l.record("added", obj)
			l.saw(obj)
		},
		UpdateFunc: func(_, obj any) {
			l.record("modified", obj)
			l.saw(obj)
		},
		DeleteFunc: l.gone,
	}); err != nil {
		e.t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	l.stop = stop
	go func() {
		defer close(l.done)
		_ = c.Start(runCtx)
	}()
	e.t.Cleanup(func() {
		l.close()
		if e.t.Failed() {
			l.save(filepath.Join(e.dir, "evidence", "ledger.jsonl"))
		}
	})
	if !c.WaitForCacheSync(ctx) {
		e.t.Fatal("the ledger's watch of the entries did not sync")
	}
	l.mu.Lock()
	synced = true
	l.mu.Unlock()
	e.ledger = l
	return l
}

// checkLedgerAfterFailure runs the ledger's checks of a test that failed
// before it ran them (a wait that timed out): what they find tells why.
func (e *env) checkLedgerAfterFailure() {
	if e.ledger == nil || e.ledgerChecked {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), evidenceTimeout)
	defer cancel()
	e.t.Logf("the ledger's checks, run after the failure:")
	e.checkLedger(ctx, e.ledger)
}

func (l *ledger) close() {
	l.stop()
	<-l.done
}

// record keeps an event for the evidence.
func (l *ledger) record(typ string, obj any) {
	le, ok := obj.(*v1alpha1.ListEntry)
	if !ok {
		return
	}
	ev := ledgerEvent{At: time.Now(), Type: typ, Name: le.Namespace + "/" + le.Name, UID: le.UID,
		ResourceVersion: le.ResourceVersion, ID: le.Spec.ID, Finalizers: le.Finalizers}
	if le.DeletionTimestamp != nil {
		ev.DeletionTimestamp = &le.DeletionTimestamp.Time
	}
	if c := meta.FindStatusCondition(le.Status.Conditions, v1alpha1.ConditionSynced); c != nil {
		ev.Synced = string(c.Status) + " " + c.Reason
	}
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

// save writes the events the watch delivered to path, one JSON object a
// line.
func (l *ledger) save(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	enc := json.NewEncoder(f)
	for _, ev := range l.events {
		_ = enc.Encode(ev)
	}
}

// saw records an entry as the watch shows it now.
func (l *ledger) saw(obj any) {
	le, ok := obj.(*v1alpha1.ListEntry)
	if !ok {
		return
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	lt := l.entries[le.UID]
	if lt == nil {
		lt = &lifetime{name: le.Namespace + "/" + le.Name, list: listKeyOf(le), id: le.Spec.ID, from: le.CreationTimestamp.Time}
		l.entries[le.UID] = lt
	}
	if lt.synced.IsZero() && meta.IsStatusConditionTrue(le.Status.Conditions, v1alpha1.ConditionSynced) {
		lt.synced = now
	}
	if le.DeletionTimestamp != nil && lt.delTS.IsZero() {
		lt.delTS = le.DeletionTimestamp.Time
	}
}

// gone records an entry the watch saw deleted.
func (l *ledger) gone(obj any) {
	now := time.Now()
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
		l.mu.Lock()
		l.relists++
		l.mu.Unlock()
	}
	le, ok := obj.(*v1alpha1.ListEntry)
	if !ok {
		return
	}
	l.record("deleted", le)
	l.saw(le)
	l.mu.Lock()
	defer l.mu.Unlock()
	if lt := l.entries[le.UID]; lt != nil && lt.gone.IsZero() {
		lt.gone = now
		lt.unfinalized = le.DeletionTimestamp == nil && slices.Contains(le.Finalizers, v1alpha1.FinalizerName)
	}
}

// unfinalized counts the entries removed while they carried the
// finalizer (see lifetime.unfinalized), and names them.
func (l *ledger) unfinalized() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var names []string
	for _, lt := range l.entries {
		if lt.unfinalized {
			names = append(names, lt.name)
		}
	}
	sort.Strings(names)
	return len(names), names
}

// unfinalizedGrace is how long the ID of an entry removed with its
// finalizer on may stay on its list: the owner's removal of it, through a
// takeover of its bucket after a SIGKILL (lease 10 s, then the wait for
// the old owner's last write) at worst.
const unfinalizedGrace = 25 * time.Second

// span is a time interval; a zero end is open.
type span struct{ from, to time.Time }

// ledgerCheck is the outcome of checking one document's history.
type ledgerCheck struct {
	versions, ids int      // versions checked, distinct IDs of entries seen on the list
	leaks, losses []string // what went wrong, described
}

// check checks the history of the document of list against what the
// ledger saw, over the window (a zero end: up to now). admitted says
// whether an entry's list may keep IDs on the document (the list holds
// its claim, and admits the entry's namespace); only those entries hold
// IDs. IDs in ignore (bystanders, writers outside listkeeper) are not
// checked.
func (l *ledger) check(list listKey, h []fakeapi.Version, admitted func(*lifetime) bool, ignore []string, window span, now time.Time) (ledgerCheck, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out ledgerCheck
	held := map[string][]span{}     // ID -> when an admitted holder existed
	mustHold := map[string][]span{} // ID -> when an admitted holder was Synced and not being deleted
	owners := map[string][]*lifetime{}
	for _, lt := range l.entries {
		if lt.list != list || !admitted(lt) {
			continue
		}
		until := lt.gone
		if lt.unfinalized && !until.IsZero() {
			// Its finalizer never ran: the owner takes its ID off
			// once the delete event reaches it (or the replica that
			// takes its bucket over does), and until then the ID is
			// in transit, not leaked.
			until = until.Add(unfinalizedGrace)
		}
		held[lt.id] = append(held[lt.id], span{lt.from, until})
		owners[lt.id] = append(owners[lt.id], lt)
		// Owed from Synced until the deletion; an entry seen gone
		// without a deletionTimestamp was deleted without the finalizer.
		owedTo := lt.delTS
		if owedTo.IsZero() {
			owedTo = lt.gone
		}
		if !lt.synced.IsZero() && (owedTo.IsZero() || lt.synced.Before(owedTo)) {
			mustHold[lt.id] = append(mustHold[lt.id], span{lt.synced, owedTo})
		}
	}
	out.ids = len(held)
	// Each version stands from its commit until the next one.
	type standing struct {
		v           fakeapi.Version
		items       map[string]bool
		from, until time.Time // when it stood, inside the window
	}
	var vs []standing
	for i, v := range h {
		if v.Deleted {
			continue
		}
		var doc harness.Document
		if err := json.Unmarshal(v.Body, &doc); err != nil {
			return out, fmt.Errorf("version %d does not parse: %w", v.Seq, err)
		}
		from, until := v.Time, now
		if i+1 < len(h) {
			until = h[i+1].Time
		}
		// Only the part of its standing inside the window counts.
		if from.Before(window.from) {
			from = window.from
		}
		if !window.to.IsZero() && until.After(window.to) {
			until = window.to
		}
		if !from.Before(until) {
			continue
		}
		items := make(map[string]bool, len(doc.Items))
		for _, id := range doc.Items {
			if !slices.Contains(ignore, id) {
				items[id] = true
			}
		}
		vs = append(vs, standing{v: v, from: from, items: items, until: until})
	}
	out.versions = len(vs)
	for _, s := range vs {
		for id := range s.items {
			if gap, ok := uncovered(held[id], s.from, s.until); ok {
				out.leaks = append(out.leaks, fmt.Sprintf("version %d (committed %s) holds %q, which no entry held from %s to %s; its holders around then: %s",
					s.v.Seq, s.v.Time.Format(timeFmt), id, gap.from.Format(timeFmt), gap.to.Format(timeFmt),
					describeHolders(owners[id], span{gap.from.Add(-holdersAround), gap.to.Add(holdersAround)})))
			}
		}
	}
	for id, spans := range mustHold {
		for _, sp := range spans {
			for _, s := range vs {
				// The version stands over [s.v.Time, s.until); it must
				// hold id if that meets the span in which id was owed.
				if s.until.After(sp.from) && (sp.to.IsZero() || s.from.Before(sp.to)) && !s.items[id] {
					out.losses = append(out.losses, fmt.Sprintf("version %d (committed %s, standing until %s) lacks %q, which an entry held, Synced, from %s to %s; its holders around then: %s",
						s.v.Seq, s.v.Time.Format(timeFmt), s.until.Format(timeFmt), id, sp.from.Format(timeFmt), endOf(sp.to),
						describeHolders(owners[id], span{s.v.Time.Add(-holdersAround), s.until.Add(holdersAround)})))
					break
				}
			}
		}
	}
	// In the order of the versions (the leaks were found in that order).
	slices.SortStableFunc(out.losses, func(a, b string) int { return cmp.Compare(versionOf(a), versionOf(b)) })
	return out, nil
}

// versionOf reads the version number a finding starts with.
func versionOf(finding string) uint64 {
	var seq uint64
	_, _ = fmt.Sscanf(finding, "version %d", &seq)
	return seq
}

// uncovered returns a part of [from, to) that no span covers.
func uncovered(spans []span, from, to time.Time) (span, bool) {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return a.from.Compare(b.from) })
	at := from
	for _, s := range sorted {
		if !at.Before(to) {
			return span{}, false
		}
		if s.from.After(at) {
			return span{at, minTime(s.from, to)}, true
		}
		if s.to.IsZero() {
			return span{}, false
		}
		if s.to.After(at) {
			at = s.to
		}
	}
	if at.Before(to) {
		return span{at, to}, true
	}
	return span{}, false
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

const timeFmt = "15:04:05.000"

func endOf(t time.Time) string {
	if t.IsZero() {
		return "now"
	}
	return t.Format(timeFmt)
}

// holdersAround is how far before and after a finding describeHolders
// looks for holders.
const holdersAround = 3 * time.Second

// describeHolders lists the holders whose lifetimes meet around, with
// when they lived, were first seen Synced and were deleted.
func describeHolders(lts []*lifetime, around span) string {
	sorted := slices.Clone(lts)
	slices.SortFunc(sorted, func(a, b *lifetime) int { return a.from.Compare(b.from) })
	var parts []string
	for _, lt := range sorted {
		if lt.from.After(around.to) || (!lt.gone.IsZero() && lt.gone.Before(around.from)) {
			continue
		}
		synced := "never Synced"
		if !lt.synced.IsZero() {
			synced = "Synced " + lt.synced.Format(timeFmt)
		}
		del := ""
		if !lt.delTS.IsZero() {
			del = ", deletionTimestamp " + lt.delTS.Format("15:04:05")
		}
		if lt.unfinalized {
			del += ", REMOVED WITH THE FINALIZER ON (no deletionTimestamp: its deletion raced with the finalizer patch)"
		}
		parts = append(parts, fmt.Sprintf("%s [created %s, gone %s] %s%s", lt.name, lt.from.Format("15:04:05"), endOf(lt.gone), synced, del))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// checkLedger checks every document of the env against the ledger (see
// ledger): no version holds an ID without an entry of its list holding
// it, and none lacks the ID of a Synced live entry. Every entry of the
// env's lists is admitted.
func (e *env) checkLedger(ctx context.Context, l *ledger) {
	e.t.Helper()
	e.ledgerChecked = true
	if n, names := l.unfinalized(); n > 0 {
		e.t.Logf("note: the API server removed %d entries that carried the finalizer, without a deletionTimestamp (their deletion raced with the patch that put it on)%s",
			n, harness.IDList(names))
	}
	for _, d := range e.docs {
		e.checkLedgerOf(ctx, l, d.list.Path, externalList(d.list.Namespace, d.list.Name), func(*lifetime) bool { return true }, span{})
	}
}

// checkLedgerOf checks the history of the document at path, written for
// list, against the ledger over window (zero: the whole history);
// admitted picks the entries that hold IDs.
func (e *env) checkLedgerOf(ctx context.Context, l *ledger, path string, list listKey, admitted func(*lifetime) bool, window span) {
	e.t.Helper()
	h, err := e.fullHistory(ctx, path)
	if err != nil {
		e.t.Errorf("read the history of %s: %v", path, err)
		return
	}
	res, err := l.check(list, h, admitted, e.bystanders, window, time.Now())
	if err != nil {
		e.t.Errorf("%s: %v", list, err)
		return
	}
	l.mu.Lock()
	relists := l.relists
	l.mu.Unlock()
	if relists > 0 {
		e.t.Logf("note: the ledger's watch was re-listed %d times; an entry created and deleted meanwhile was not seen", relists)
	}
	report := func(what string, found []string) {
		if len(found) == 0 {
			return
		}
		e.t.Errorf("%s: %d %s:\n    %s", list, len(found), what, strings.Join(found[:min(len(found), 10)], "\n    "))
	}
	report("versions hold an ID that no entry of the list held (leaked)", res.leaks)
	report("times a version lacked the ID of a Synced live entry (lost)", res.losses)
	if len(res.leaks)+len(res.losses) == 0 {
		e.t.Logf("ledger: %s: %d versions, %d IDs of entries: no ID without a holder, no Synced entry's ID missing", list, res.versions, res.ids)
	}
}
