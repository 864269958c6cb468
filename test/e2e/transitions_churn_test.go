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
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	tchurnReplicas   = 3
	tchurnBystanders = 5
	// tchurnNamespace holds the replicas' Leases and the Secrets of the
	// ClusterExternalLists; the entries live in tchurnNamespaces, which
	// the ClusterExternalLists select by transitionsLabel=tchurnLabel.
	tchurnNamespace = "tchurn"
	tchurnLabel     = "tchurn"
	// Three documents: A and C each have an ExternalList (in the first
	// and the second namespace) and, in turns, the ClusterExternalList X,
	// which moves between them and takes the claim wherever it points; B
	// has the ClusterExternalList Y, always.
	tchurnX = "tchurn-x"
	tchurnY = "tchurn-y"
	// tchurnWorkers goroutines each run one operation on a random holder,
	// then pause a random time up to tchurnPause, for tchurnLength.
	tchurnWorkers = 4
	tchurnPause   = 120 * time.Millisecond
	tchurnLength  = 25 * time.Second
	// X is created (on document A) at tchurnFirstMove; after that a
	// transition comes every tchurnEvery plus up to tchurnJitter: the
	// claim moves (X re-pointed to the other document), a namespace is
	// unlabelled or labelled again, or the list answers 503 to every
	// request for tchurn503 plus up to tchurn503 more.
	tchurnFirstMove = 1500 * time.Millisecond
	tchurnEvery     = 1500 * time.Millisecond
	tchurnJitter    = time.Second
	tchurn503       = time.Second
	// A replica is killed with SIGKILL at tchurnKill, one is added at
	// tchurnAdd; the killed one's buckets move once its Lease expired
	// (10 s), before the churn ends.
	tchurnKill = 8 * time.Second
	tchurnAdd  = 12 * time.Second
	// tchurnResync is every list's resyncInterval, the shortest allowed.
	tchurnResync   = 10 * time.Second
	tchurnTimeout  = 4 * time.Minute
	tchurnConverge = 60 * time.Second
)

// tchurnNamespaces are the namespaces of the entries, all labelled at the
// start. The ExternalList of document A lives in the first, that of C in
// the second.
var tchurnNamespaces = []string{"tchurn-1", "tchurn-2", "tchurn-3"}

// TestChurnThroughTransitions creates and deletes entries at random on
// four lists, three documents, while every transition happens: the claims
// of documents A and C move to and from the ClusterExternalList X (created
// on A, then re-pointed between A and C, so that each move takes one
// document's claim from its ExternalList and gives the other's back),
// namespaces lose the label the ClusterExternalLists select and get it
// back, a replica is killed with SIGKILL and one is added, and the list
// answers 503 to everything for stretches of 1-2 s. Some IDs have holders
// on several lists of one document, so that an ID stays when the list
// that takes the claim holds it too. When the churn is over and the
// operator at rest, every live entry is Synced=True Added if its list
// holds its document's claim and selects its namespace, and Synced=False
// DocumentInUse or NamespaceNotAllowed otherwise, as the test's own record
// of the final state says; each document holds exactly the bystanders and
// the IDs of the admitted live entries of its claim's holder; and the
// ledger finds, from then on, no ID without an admitted holder and no
// admitted Synced holder without its ID. Over the whole run, through the
// transitions, it finds no ID on a document that no entry of any list
// naming that document held.
func TestChurnThroughTransitions(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), tchurnTimeout)
	defer cancel()
	paths := [3]string{"/lists/tchurn-doc-a", "/lists/tchurn-doc-b", "/lists/tchurn-doc-c"}
	docA, docB, docC := paths[0], paths[1], paths[2]
	e := newEnv(ctx, t, envOptions{namespace: tchurnNamespace, replicas: tchurnReplicas, bystanders: tchurnBystanders,
		latency: time.Millisecond, allNamespaces: true, seedOnly: paths[:], resync: tchurnResync})
	c := suite.cluster.Client
	for _, ns := range tchurnNamespaces {
		e.createLabelledNamespace(ctx, ns, tchurnLabel)
	}
	la := harness.ListObject{Namespace: tchurnNamespaces[0], Name: "la", Server: e.lists, Path: docA, ResyncInterval: tchurnResync}
	lc := harness.ListObject{Namespace: tchurnNamespaces[1], Name: "lc", Server: e.lists, Path: docC, ResyncInterval: tchurnResync}
	for _, l := range []harness.ListObject{la, lc} {
		if err := l.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []harness.ListObject{la, lc} {
		if err := l.WaitReady(ctx, c, e.sup, claimsWait); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.createTchurnList(ctx, tchurnY, docB); err != nil {
		t.Fatal(err)
	}
	e.awaitListReason(ctx, "", tchurnY, metav1.ConditionTrue, "")
	seed := uint64(time.Now().UnixNano())
	led := e.startLedger(ctx)
	w := &tcWorld{e: e, paths: paths, la: la, lc: lc, labelled: map[string]bool{}}
	for _, ns := range tchurnNamespaces {
		w.labelled[ns] = true
	}
	pool := tchurnPool()
	t.Logf("setup: %d replicas watching every namespace, finalizer policy %v, 3 documents with %d bystanders resynced every %v, in %v; %d possible holders of %d IDs, %d workers, seed %d",
		tchurnReplicas, suite.cluster.FinalizerPolicy, tchurnBystanders, tchurnResync, time.Since(began).Round(time.Millisecond),
		len(pool), tchurnIDs, tchurnWorkers, seed)
	c0, err := harness.ReadCounters(ctx, e.lists, nil)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	ch := &tcChurn{w: w, pool: pool}
	churned := make(chan error, 1)
	go func() { churned <- ch.run(ctx, seed, start.Add(tchurnLength)) }()

	// The transitions, in this goroutine: a schedule of moves, label
	// toggles and 503 stretches, with the kill and the added replica
	// between them.
	rng := rand.New(rand.NewPCG(seed, 1<<32))
	var kinds []int
	killed, added := false, false
	at := start.Add(tchurnFirstMove)
	first := true
	for at.Before(start.Add(tchurnLength)) {
		e.sleepOrDie(ctx, at)
		if !killed && time.Since(start) >= tchurnKill {
			killed = true
			e.managers[0].Kill()
			t.Logf("%v: %s killed (SIGKILL)", time.Since(start).Round(time.Millisecond), e.managers[0].Name())
		}
		if !added && time.Since(start) >= tchurnAdd {
			added = true
			m := e.addManager(ctx)
			t.Logf("%v: %s added", time.Since(start).Round(time.Millisecond), m.Name())
		}
		switch {
		case first:
			first = false
			if err := e.createTchurnList(ctx, tchurnX, docA); err != nil {
				t.Fatal(err)
			}
			w.setX(docA)
			ch.moves.Add(1)
			t.Logf("%v: ClusterExternalList %s created on %s: it takes the claim from %s/%s", time.Since(start).Round(time.Millisecond), tchurnX, docA, la.Namespace, la.Name)
		default:
			if len(kinds) == 0 {
				kinds = []int{0, 1, 2}
				rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
			}
			kind := kinds[0]
			kinds = kinds[1:]
			switch kind {
			case 0:
				to := docC
				if w.xOn() == docC {
					to = docA
				}
				if err := e.pointTchurnList(ctx, tchurnX, to); err != nil {
					t.Fatal(err)
				}
				w.setX(to)
				ch.moves.Add(1)
				t.Logf("%v: %s re-pointed to %s: the claim of %s goes back to its ExternalList, that of %s to %s",
					time.Since(start).Round(time.Millisecond), tchurnX, to, w.other(to), to, tchurnX)
			case 1:
				ns := tchurnNamespaces[rng.IntN(len(tchurnNamespaces))]
				value := tchurnLabel
				if w.isLabelled(ns) {
					value = ""
				}
				if err := setNamespaceLabel(ctx, ns, value); err != nil {
					t.Fatal(err)
				}
				w.setLabelled(ns, value != "")
				ch.toggles.Add(1)
				t.Logf("%v: namespace %s %s", time.Since(start).Round(time.Millisecond), ns, map[bool]string{true: "labelled again", false: "unlabelled"}[value != ""])
			case 2:
				long := tchurn503 + time.Duration(rng.Int64N(int64(tchurn503)))
				if err := e.lists.SetFaults(ctx, fakeapi.Faults{Rate503: 1}); err != nil {
					t.Fatal(err)
				}
				e.sleepOrDie(ctx, time.Now().Add(long))
				if err := e.lists.SetFaults(ctx, fakeapi.Faults{}); err != nil {
					t.Fatal(err)
				}
				ch.stretches.Add(1)
				t.Logf("%v: the list answered 503 to everything for %v", time.Since(start).Round(time.Millisecond), long.Round(time.Millisecond))
			}
		}
		at = time.Now().Add(tchurnEvery + time.Duration(rng.Int64N(int64(tchurnJitter))))
	}
	if err := <-churned; err != nil {
		t.Fatalf("churn: %v", err)
	}
	if err := e.lists.SetFaults(ctx, fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	churnEnd := time.Now()
	t.Logf("%v: churn over: %s; final state: %s", churnEnd.Sub(start).Round(time.Millisecond), ch.counts(), w.describe())
	if !killed || !added {
		t.Errorf("the churn ended before the kill (%v) or the added replica (%v)", killed, added)
	}

	e.ledgerChecked = true
	// The whole run's checks (see below) run whatever the end: when the
	// operator does not come to rest, what they find tells why.
	anyHolder := func() {
		e.checkAnyHolder(ctx, led, docA, []listKey{w.key(la), clusterList(tchurnX)})
		e.checkAnyHolder(ctx, led, docB, []listKey{clusterList(tchurnY)})
		e.checkAnyHolder(ctx, led, docC, []listKey{w.key(lc), clusterList(tchurnX)})
	}
	figures := func(converged string) {
		c1, err := harness.ReadCounters(ctx, e.lists, nil)
		if err != nil {
			t.Error(err)
			return
		}
		d := c1.Sub(c0)
		ops := ch.creates.Load() + ch.deletes.Load()
		t.Logf("figures: %d entry operations (%d creates, %d deletes, %d of them in %d swaps), %d claim moves, %d label toggles, %d 503 stretches; %s; list requests %d (%.2f per operation), 503s %d, 412s %d, commits %d",
			ops, ch.creates.Load(), ch.deletes.Load(), 2*ch.swaps.Load(), ch.swaps.Load(), ch.moves.Load(), ch.toggles.Load(), ch.stretches.Load(),
			converged, d.Requests(), float64(d.Requests())/float64(max(ops, 1)), d.Stats.CountCode(503), d.Conflicts(), d.Stats.Commits)
	}
	convergedAt, last, ok := w.awaitAtRest(ctx)
	if !ok {
		t.Errorf("not at rest in the recorded state (%s) within %v after the churn: %s", w.describe(), tchurnConverge, last)
		anyHolder()
		figures("not converged")
		t.FailNow()
	}
	t.Logf("at rest %v after the churn: %s", convergedAt.Sub(churnEnd).Round(time.Millisecond), last)
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	if ok, why, err := w.atRest(ctx); err != nil || !ok {
		t.Errorf("at rest, but %v later no longer: %s %v", settle, why, err)
		anyHolder()
		t.FailNow()
	}

	// From the moment the operator was at rest: exactly the admitted
	// holders of each document's claim hold IDs on it.
	quiet := span{convergedAt, time.Time{}}
	for _, p := range paths {
		e.checkLedgerOf(ctx, led, p, w.holderOf(p), w.admittedLifetime, quiet)
	}
	// Over the whole run: no ID on a document without an entry of a list
	// that named it (by the claims and labels of the moment, an ID may
	// stay on a while after its entry lost admission, until the operator
	// takes it off; never after the entry is gone).
	anyHolder()
	e.checkTchurnBystanders(ctx, paths[:])

	figures(fmt.Sprintf("converged %v after the churn", convergedAt.Sub(churnEnd).Round(time.Millisecond)))
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// tchurnIDs is how many IDs the pool's holders hold.
const tchurnIDs = 14

// The lists of tcHolder.list.
const (
	tcLA = iota // ExternalList la, document A, first namespace
	tcLC        // ExternalList lc, document C, second namespace
	tcX         // ClusterExternalList X, document A or C
	tcY         // ClusterExternalList Y, document B
)

// tcHolder is one possible holder: an entry on list in namespace ns
// holding ID id; h tells apart holders of one ID on one list and
// namespace.
type tcHolder struct{ list, ns, id, h int }

func (h tcHolder) name() string {
	return fmt.Sprintf("tc-%s-%02d-h%d", [...]string{"la", "lc", "x", "y"}[h.list], h.id, h.h)
}
func (h tcHolder) ID() string        { return fmt.Sprintf("tchurn-id-%02d", h.id) }
func (h tcHolder) namespace() string { return tchurnNamespaces[h.ns] }

// tchurnPool returns the possible holders:
//   - IDs 0-3, contested: one holder on la, one on lc and one or two on X,
//     so that X's entries keep some IDs of the ExternalList it takes a
//     claim from;
//   - IDs 4-5: two holders on X, in two namespaces;
//   - IDs 6-7: two holders on la; IDs 8-9: two on lc;
//   - IDs 10-13: a holder on Y in each namespace.
func tchurnPool() []tcHolder {
	var p []tcHolder
	for i := 0; i < 4; i++ {
		p = append(p, tcHolder{tcLA, 0, i, 0}, tcHolder{tcLC, 1, i, 0}, tcHolder{tcX, i % 3, i, 0})
		if i < 2 {
			p = append(p, tcHolder{tcX, (i + 1) % 3, i, 0})
		}
	}
	for i := 4; i < 6; i++ {
		p = append(p, tcHolder{tcX, i % 3, i, 0}, tcHolder{tcX, (i + 1) % 3, i, 0})
	}
	for i := 6; i < 8; i++ {
		p = append(p, tcHolder{tcLA, 0, i, 0}, tcHolder{tcLA, 0, i, 1})
	}
	for i := 8; i < 10; i++ {
		p = append(p, tcHolder{tcLC, 1, i, 0}, tcHolder{tcLC, 1, i, 1})
	}
	for i := 10; i < tchurnIDs; i++ {
		for ns := range tchurnNamespaces {
			p = append(p, tcHolder{tcY, ns, i, 0})
		}
	}
	return p
}

// tcWorld is the test's record of the transitions: which document X
// names, which namespaces are labelled.
type tcWorld struct {
	e      *env
	paths  [3]string // documents A, B, C
	la, lc harness.ListObject

	mu       sync.Mutex
	x        string // the path X names; "" before it exists
	labelled map[string]bool
}

func (w *tcWorld) setX(path string) { w.mu.Lock(); w.x = path; w.mu.Unlock() }
func (w *tcWorld) xOn() string      { w.mu.Lock(); defer w.mu.Unlock(); return w.x }
func (w *tcWorld) setLabelled(ns string, on bool) {
	w.mu.Lock()
	w.labelled[ns] = on
	w.mu.Unlock()
}
func (w *tcWorld) isLabelled(ns string) bool { w.mu.Lock(); defer w.mu.Unlock(); return w.labelled[ns] }

// other is the other one of documents A and C.
func (w *tcWorld) other(path string) string {
	if path == w.paths[0] {
		return w.paths[2]
	}
	return w.paths[0]
}

func (w *tcWorld) describe() string {
	var out []string
	for _, ns := range tchurnNamespaces {
		if !w.isLabelled(ns) {
			out = append(out, ns)
		}
	}
	un := "none"
	if len(out) > 0 {
		un = strings.Join(out, ", ")
	}
	return fmt.Sprintf("%s on %s, namespaces unlabelled: %s", tchurnX, w.xOn(), un)
}

// entries returns the entries of the holder's list in its namespace.
func (w *tcWorld) entries(h tcHolder) harness.Entries {
	switch h.list {
	case tcLA:
		return w.e.entriesOf(h.namespace(), w.la.Name, "")
	case tcLC:
		return w.e.entriesOf(h.namespace(), w.lc.Name, "")
	case tcX:
		return w.e.entriesOf(h.namespace(), tchurnX, v1alpha1.ListKindClusterExternalList)
	default:
		return w.e.entriesOf(h.namespace(), tchurnY, v1alpha1.ListKindClusterExternalList)
	}
}

func (w *tcWorld) key(l harness.ListObject) listKey { return externalList(l.Namespace, l.Name) }

func clusterList(name string) listKey {
	return listKey{kind: v1alpha1.ListKindClusterExternalList, name: name}
}

// holderOf is the list that holds the claim on the document at path, by
// the record.
func (w *tcWorld) holderOf(path string) listKey {
	switch {
	case path == w.paths[1]:
		return clusterList(tchurnY)
	case path == w.xOn():
		return clusterList(tchurnX)
	case path == w.paths[0]:
		return w.key(w.la)
	default:
		return w.key(w.lc)
	}
}

// admits says whether, by the record, the list of an entry in namespace
// ns on list k holds its document's claim and selects ns; reason is the
// entry's Synced reason when not.
func (w *tcWorld) admits(k listKey, ns string) (ok bool, reason string) {
	switch k {
	case w.key(w.la):
		if w.xOn() == w.paths[0] {
			return false, v1alpha1.ReasonDocumentInUse
		}
	case w.key(w.lc):
		if w.xOn() == w.paths[2] {
			return false, v1alpha1.ReasonDocumentInUse
		}
	default:
		if !w.isLabelled(ns) {
			return false, v1alpha1.ReasonNamespaceNotAllowed
		}
	}
	return true, ""
}

// admittedLifetime admits, for the ledger, the entries that the final
// state admits.
func (w *tcWorld) admittedLifetime(lt *lifetime) bool {
	ns, _, _ := strings.Cut(lt.name, "/")
	ok, _ := w.admits(lt.list, ns)
	return ok
}

// atRest reports whether the operator is at rest in the recorded state:
// no entry being deleted, every entry Synced as its admission says, each
// document exactly the bystanders and the IDs of the admitted live
// entries of its claim's holder. why says what is off, the test's
// expectation beside what the entry or the document shows.
func (w *tcWorld) atRest(ctx context.Context) (ok bool, why string, err error) {
	entries, err := w.e.existing(ctx)
	if err != nil {
		return false, "", err
	}
	var off []string
	want := map[string][]string{}
	for _, p := range w.paths {
		want[p] = slices.Clone(w.e.bystanders)
	}
	var admitted, refused int
	for i := range entries {
		le := &entries[i]
		name := le.Namespace + "/" + le.Name
		if le.DeletionTimestamp != nil {
			off = append(off, name+" is being deleted")
			continue
		}
		k := listKeyOf(le)
		ok, reason := w.admits(k, le.Namespace)
		cond := meta.FindStatusCondition(le.Status.Conditions, v1alpha1.ConditionSynced)
		have := "no Synced condition"
		if cond != nil {
			have = fmt.Sprintf("Synced=%s %s (%s)", cond.Status, cond.Reason, cond.Message)
		}
		if ok {
			admitted++
			for _, p := range w.paths {
				if w.holderOf(p) == k && !slices.Contains(want[p], le.Spec.ID) {
					want[p] = append(want[p], le.Spec.ID)
				}
			}
			if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != v1alpha1.ReasonAdded {
				off = append(off, fmt.Sprintf("%s (%s): admitted by the record (%s), want Synced=True Added, have %s", name, k, w.describe(), have))
			}
			continue
		}
		refused++
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != reason {
			off = append(off, fmt.Sprintf("%s (%s): not admitted by the record (%s), want Synced=False %s, have %s", name, k, w.describe(), reason, have))
		}
	}
	for _, p := range w.paths {
		doc, err := w.e.lists.Document(ctx, p)
		if err != nil {
			return false, "", err
		}
		missing, leftover := harness.DiffItems(want[p], doc.Items)
		switch {
		case len(missing)+len(leftover) > 0:
			off = append(off, fmt.Sprintf("document %s (claim: %s) misses %d IDs%s and has %d it should not%s",
				p, w.holderOf(p), len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover)))
			for _, id := range append(missing, leftover...) {
				off = append(off, fmt.Sprintf("  holders of %s: %s", id, holdersOf(entries, id)))
			}
		case !slices.Equal(headOf(doc.Items, len(w.e.bystanders)), w.e.bystanders):
			off = append(off, fmt.Sprintf("on document %s the bystanders are not first and in order: %v", p, headOf(doc.Items, len(w.e.bystanders))))
		}
	}
	if len(off) > 0 {
		if len(off) > 20 {
			off = append(off[:20], fmt.Sprintf("and %d more", len(off)-20))
		}
		return false, strings.Join(off, "\n    "), nil
	}
	held := make([]string, 0, 3)
	for _, p := range w.paths {
		held = append(held, fmt.Sprintf("%s %d IDs (%s)", p, len(want[p])-len(w.e.bystanders), w.holderOf(p)))
	}
	return true, fmt.Sprintf("%d live entries, %d admitted and Added, %d refused with their reason; %s", admitted+refused, admitted, refused, strings.Join(held, ", ")), nil
}

// holdersOf describes the entries that hold id: list, Synced condition
// and status.addedTo.
func holdersOf(entries []v1alpha1.ListEntry, id string) string {
	var out []string
	for i := range entries {
		le := &entries[i]
		if le.Spec.ID != id {
			continue
		}
		synced := "no Synced"
		if c := meta.FindStatusCondition(le.Status.Conditions, v1alpha1.ConditionSynced); c != nil {
			synced = fmt.Sprintf("Synced=%s %s since %s", c.Status, c.Reason, c.LastTransitionTime.Format("15:04:05"))
		}
		added := "addedTo none"
		if a := le.Status.AddedTo; a != nil {
			added = fmt.Sprintf("addedTo %+v", *a)
		}
		out = append(out, fmt.Sprintf("%s/%s (uid %s, %s, created %s, %s, %s)", le.Namespace, le.Name, le.UID, listKeyOf(le),
			le.CreationTimestamp.Format("15:04:05"), synced, added))
	}
	if len(out) == 0 {
		return "no live entry"
	}
	return strings.Join(out, "; ")
}

// awaitAtRest polls atRest for up to tchurnConverge and returns when it
// first held, with its description, or, when it never did, what the last
// complete look found off.
func (w *tcWorld) awaitAtRest(ctx context.Context) (at time.Time, why string, ok bool) {
	var lastErr error
	err := harness.Poll(ctx, w.e.sup, tchurnConverge, pollInterval, func(ctx context.Context) (bool, error) {
		done, what, lookErr := w.atRest(ctx)
		if lookErr != nil {
			lastErr = lookErr     // keep the last complete look
			return false, lookErr // not fatal: Poll tries again
		}
		lastErr = nil
		why, at = what, time.Now()
		return done, nil
	})
	if err != nil {
		if lastErr != nil {
			why += fmt.Sprintf("\n    (a later look failed: %v)", lastErr)
		}
		return at, fmt.Sprintf("%v:\n    %s", err, why), false
	}
	return at, why, true
}

// tcChurn runs random operations on the pool's holders.
type tcChurn struct {
	w    *tcWorld
	pool []tcHolder
	// Counts: entries created and deleted (swaps included; a deletion
	// of an entry already being deleted counts), swaps (one
	// holder of an ID deleted while another is created), claim moves,
	// label toggles, 503 stretches.
	creates, deletes, swaps, moves, toggles, stretches atomic.Int64
}

// run runs tchurnWorkers workers until end and returns the first error.
func (ch *tcChurn) run(ctx context.Context, seed uint64, end time.Time) error {
	return runWorkers(ctx, seed, tchurnWorkers, tchurnPause, func() bool { return time.Now().Before(end) }, ch.step)
}

// step toggles a random holder (creates it, or, one time in two, deletes
// it when it exists: an entry being deleted exists until the operator
// released it, and deleting it again would keep the pool thin), or, one
// time in three, deletes it while it creates another holder of the same
// ID.
func (ch *tcChurn) step(ctx context.Context, rng *rand.Rand) error {
	h := ch.pool[rng.IntN(len(ch.pool))]
	var others []tcHolder
	for _, o := range ch.pool {
		if o.id == h.id && o != h {
			others = append(others, o)
		}
	}
	if len(others) > 0 && rng.IntN(3) == 0 {
		o := others[rng.IntN(len(others))]
		var wg sync.WaitGroup
		var delErr, createErr error
		wg.Go(func() {
			var deleted bool
			deleted, delErr = ch.w.entries(h).DeleteOne(ctx, h.name())
			ch.deletes.Add(b2i(deleted))
		})
		wg.Go(func() {
			var created bool
			created, createErr = ch.w.entries(o).CreateHolder(ctx, o.name(), o.ID())
			ch.creates.Add(b2i(created))
		})
		wg.Wait()
		ch.swaps.Add(1)
		return errors.Join(delErr, createErr)
	}
	created, err := ch.w.entries(h).CreateHolder(ctx, h.name(), h.ID())
	if err != nil || created || rng.IntN(2) == 0 {
		ch.creates.Add(b2i(created))
		return err
	}
	deleted, err := ch.w.entries(h).DeleteOne(ctx, h.name())
	ch.deletes.Add(b2i(deleted))
	return err
}

func (ch *tcChurn) counts() string {
	return fmt.Sprintf("%d entries created, %d deleted (%d swaps), %d claim moves, %d label toggles, %d 503 stretches",
		ch.creates.Load(), ch.deletes.Load(), ch.swaps.Load(), ch.moves.Load(), ch.toggles.Load(), ch.stretches.Load())
}

// createTchurnList creates the ClusterExternalList name on the document
// at path, selecting transitionsLabel=tchurnLabel, resynced every
// tchurnResync, with its Secret in the env's namespace.
func (e *env) createTchurnList(ctx context.Context, name, path string) error {
	c := suite.cluster.Client
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.namespace, Name: name + "-auth"},
		StringData: map[string]string{"Authorization": "Bearer " + e.lists.Token()},
	}
	if err := c.Create(ctx, secret); err != nil {
		return fmt.Errorf("create Secret %s: %w", secret.Name, err)
	}
	cxl := &v1alpha1.ClusterExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ClusterExternalListSpec{
			ExternalListSpec: v1alpha1.ExternalListSpec{
				URL: e.lists.URL(path), ItemsPointer: "/items", AllowInsecureHTTP: true,
				HeadersFrom:    &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: secret.Name}},
				ResyncInterval: &metav1.Duration{Duration: tchurnResync},
			},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{transitionsLabel: tchurnLabel}},
		},
	}
	if err := c.Create(ctx, cxl); err != nil {
		return fmt.Errorf("create ClusterExternalList %s: %w", name, err)
	}
	return nil
}

// pointTchurnList re-points the ClusterExternalList name at the document
// at path.
func (e *env) pointTchurnList(ctx context.Context, name, path string) error {
	c := suite.cluster.Client
	var cxl v1alpha1.ClusterExternalList
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &cxl); err != nil {
		return err
	}
	patch := client.MergeFrom(cxl.DeepCopy())
	cxl.Spec.URL = e.lists.URL(path)
	if err := c.Patch(ctx, &cxl, patch); err != nil {
		return fmt.Errorf("re-point ClusterExternalList %s: %w", name, err)
	}
	return nil
}

// setNamespaceLabel sets transitionsLabel of the namespace ns to value,
// or removes it when value is "".
func setNamespaceLabel(ctx context.Context, ns, value string) error {
	c := suite.cluster.Client
	var obj corev1.Namespace
	if err := c.Get(ctx, client.ObjectKey{Name: ns}, &obj); err != nil {
		return err
	}
	patch := client.MergeFrom(obj.DeepCopy())
	if value == "" {
		delete(obj.Labels, transitionsLabel)
	} else {
		if obj.Labels == nil {
			obj.Labels = map[string]string{}
		}
		obj.Labels[transitionsLabel] = value
	}
	if err := c.Patch(ctx, &obj, patch); err != nil {
		return fmt.Errorf("label namespace %s: %w", ns, err)
	}
	return nil
}

// checkAnyHolder checks the whole history of the document at path for
// IDs that no entry of any of the lists held: the weak form of "no ID
// without a holder" that holds through transitions, when an entry that
// lost its admission may still be the holder whose removal is pending.
// An ID missing is not checked here: admission changed during the churn.
func (e *env) checkAnyHolder(ctx context.Context, l *ledger, path string, lists []listKey) {
	e.t.Helper()
	h, err := e.fullHistory(ctx, path)
	if err != nil {
		e.t.Errorf("read the history of %s: %v", path, err)
		return
	}
	merged := l.mergedAs(lists, lists[0])
	res, err := merged.check(lists[0], h, all, e.bystanders, span{}, time.Now())
	if err != nil {
		e.t.Errorf("%s: %v", path, err)
		return
	}
	if len(res.leaks) > 0 {
		e.t.Errorf("%s: %d versions hold an ID that no entry of %v held (leaked):\n    %s", path, len(res.leaks), lists,
			strings.Join(res.leaks[:min(len(res.leaks), 10)], "\n    "))
		return
	}
	e.t.Logf("ledger: %s over the whole run: %d versions, %d IDs of entries of %v: no ID without a holder", path, res.versions, res.ids, lists)
}

// mergedAs returns a copy of the ledger that keeps only the entries of
// lists, each as if it were of list as.
func (l *ledger) mergedAs(lists []listKey, as listKey) *ledger {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := &ledger{entries: map[types.UID]*lifetime{}}
	for uid, lt := range l.entries {
		if slices.Contains(lists, lt.list) {
			cp := *lt
			cp.list = as
			m.entries[uid] = &cp
		}
	}
	return m
}

// checkTchurnBystanders checks that every recorded version of the
// documents at paths starts with the bystanders, in order.
func (e *env) checkTchurnBystanders(ctx context.Context, paths []string) {
	e.t.Helper()
	n := 0
	for _, p := range paths {
		h, err := e.fullHistory(ctx, p)
		if err != nil {
			e.t.Errorf("read the history of %s: %v", p, err)
			return
		}
		for _, v := range h {
			if v.Deleted {
				continue
			}
			n++
			var doc harness.Document
			if err := doc.UnmarshalJSON(v.Body); err != nil {
				e.t.Errorf("%s: version %d does not parse: %v", p, v.Seq, err)
				continue
			}
			if !slices.Equal(headOf(doc.Items, len(e.bystanders)), e.bystanders) {
				e.t.Errorf("%s: version %d at %s lost or moved a bystander: %v", p, v.Seq, v.Time.Format(timeFmt), headOf(doc.Items, len(e.bystanders)))
			}
		}
	}
	e.t.Logf("history: %d versions of %d documents, each with the %d bystanders first and in order", n, len(paths), len(e.bystanders))
}
