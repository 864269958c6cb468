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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	// listToken is the fake server's bearer token.
	listToken = "e2e-token"
	// docOwner is a field beside the items that every write must keep.
	docOwner = "e2e"
	// setupTimeout bounds the start of the processes and the first sync.
	setupTimeout = 90 * time.Second
	// evidenceTimeout bounds the collection of evidence after a failure.
	evidenceTimeout = 30 * time.Second
)

// envOptions configure newEnv.
type envOptions struct {
	namespace  string
	replicas   int
	bystanders int
	latency    time.Duration // the fake server's --latency
	stateFile  bool          // the fake server persists its documents
	// documents is how many lists, each on its own document seeded with
	// the bystanders, the env has; default 1. The first is env.list.
	documents int
	// allNamespaces has the replicas watch every namespace, not only the
	// test's (which still holds their Leases and the Secrets of
	// ClusterExternalLists).
	allNamespaces bool
	// seedOnly are paths of more documents, seeded with the bystanders,
	// for lists that the test creates itself.
	seedOnly []string
	// resync is the spec.resyncInterval of the env's lists; 0 leaves the
	// default.
	resync time.Duration
}

// env is one test's operator: its namespace, list server, ExternalList and
// manager replicas, with their logs in dir.
type env struct {
	t         *testing.T
	namespace string // the test's, where the replicas keep their Leases
	dir       string
	sup       *harness.Supervisor
	lists     *harness.ListServer
	managers  []*harness.Manager
	// list is the first of docs, entries its entries; docs are the env's
	// lists, each on its own document on the list server.
	list       harness.ListObject
	entries    harness.Entries
	docs       []envDoc
	labels     map[string]string // of every entry of the env
	seedOnly   []string          // paths of the documents without an env list
	bystanders []string
	// managerOpts start the replicas; addManager starts more with them.
	managerOpts harness.ManagerOptions
	// history collects the first list's versions from list server
	// processes that were stopped (history is per process).
	history []fakeapi.Version
	// ledger is the env's ledger, once started; ledgerChecked is set once
	// checkLedger has run.
	ledger        *ledger
	ledgerChecked bool
}

// envDoc is one of an env's lists and its document.
type envDoc struct {
	list    harness.ListObject
	entries harness.Entries // the env's entries on this list
}

// docPath is the path of the env's i-th document: under the namespace's
// name, so that no two tests' documents are one, even when a later list
// server gets the port of an earlier one whose ExternalLists remain.
func docPath(namespace string, i int) string {
	if i == 0 {
		return "/lists/" + namespace
	}
	return fmt.Sprintf("/lists/%s-%d", namespace, i)
}

// docName is the name of the env's i-th ExternalList.
func docName(i int) string {
	if i == 0 {
		return "e2e"
	}
	return fmt.Sprintf("e2e-%d", i)
}

// newEnv starts a list server with its documents seeded with bystanders,
// creates the ExternalLists and starts the replicas, and waits until the
// lists are Ready and the replicas' Leases share the buckets.
// Everything is stopped when the test ends; a failed test keeps its
// directory with the evidence.
func newEnv(ctx context.Context, t *testing.T, o envOptions) *env {
	t.Helper()
	dir := filepath.Join(suite.dir, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, namespace: o.namespace, dir: dir, sup: harness.NewSupervisor(dir), bystanders: harness.BystanderIDs(o.bystanders)}
	track(e.sup)
	t.Cleanup(e.tearDown)
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()

	c := suite.cluster.Client
	if err := harness.EnsureNamespace(ctx, c, o.namespace); err != nil {
		t.Fatal(err)
	}
	seed, err := json.Marshal(map[string]any{"owner": docOwner, "items": e.bystanders})
	if err != nil {
		t.Fatal(err)
	}
	lo := harness.ListServerOptions{Bin: suite.bins.FakeAPI, Token: listToken, Latency: o.latency, History: true}
	for i := range max(o.documents, 1) {
		lo.Seed = append(lo.Seed, harness.SeedDoc{Path: docPath(o.namespace, i), Body: seed})
	}
	if o.stateFile {
		lo.StateFile = filepath.Join(dir, "fakeapi-state.json")
	}
	lists := slices.Clone(lo.Seed)
	e.seedOnly = o.seedOnly
	for _, p := range o.seedOnly {
		lo.Seed = append(lo.Seed, harness.SeedDoc{Path: p, Body: seed})
	}
	if e.lists, err = harness.StartListServer(ctx, e.sup, lo); err != nil {
		t.Fatal(err)
	}
	e.labels = map[string]string{"listkeeper.dev/e2e": strings.ReplaceAll(t.Name(), "/", "_")}
	for _, p := range lists {
		l := harness.ListObject{Namespace: o.namespace, Name: docName(len(e.docs)), Server: e.lists, Path: p.Path, ResyncInterval: o.resync}
		if err := l.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		e.docs = append(e.docs, envDoc{list: l, entries: harness.Entries{Client: c, Namespace: o.namespace, List: l.Name, Labels: e.labels}})
	}
	e.list, e.entries = e.docs[0].list, e.docs[0].entries
	// Each test's replicas are members only of each other: their Leases
	// live in the test's namespace, so that no replica of another test
	// (nor a Lease a killed one left behind) holds buckets of this one.
	args := []string{"--namespace", o.namespace, "--lease-namespace", o.namespace}
	if o.allNamespaces {
		args = []string{"--lease-namespace", o.namespace, "--cluster-resource-namespace", o.namespace}
	}
	// The list server is on loopback, which the dial fence refuses
	// unless a CIDR entry allows it.
	args = append(args, "--allowed-hosts", "127.0.0.0/8")
	e.managerOpts = harness.ManagerOptions{Bin: suite.bins.Manager, Kubeconfig: suite.cluster.Kubeconfig, Args: args}
	e.managers, err = harness.StartManagers(ctx, e.sup, e.managerOpts, o.replicas)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range e.docs {
		if err := d.list.WaitReady(ctx, c, e.sup, setupTimeout); err != nil {
			t.Fatal(err)
		}
	}
	if err := harness.WaitMembers(ctx, c, e.sup, o.namespace, e.managers, membership.DefaultBuckets, setupTimeout); err != nil {
		t.Fatal(err)
	}
	return e
}

// addManager starts one more replica, called manager-<n> after the ones
// the env has, and waits until it is ready.
func (e *env) addManager(ctx context.Context) *harness.Manager {
	e.t.Helper()
	m, err := harness.NewManager(e.sup, e.managerOpts, fmt.Sprintf("manager-%d", len(e.managers)+1))
	if err != nil {
		e.t.Fatal(err)
	}
	e.managers = append(e.managers, m)
	if err := m.Start(ctx); err != nil {
		e.t.Fatalf("start %s: %v", m.Name(), err)
	}
	return m
}

// tearDown saves the evidence of a failed test, then stops every process.
func (e *env) tearDown() {
	if e.t.Failed() {
		e.saveEvidence()
		e.checkLedgerAfterFailure()
	}
	harness.StopManagers(e.managers...)
	if e.lists != nil {
		e.lists.Stop()
	}
	e.sup.StopAll()
}

func (e *env) saveEvidence() {
	ctx, cancel := context.WithTimeout(context.Background(), evidenceTimeout)
	defer cancel()
	dir := filepath.Join(e.dir, "evidence")
	ev := harness.Evidence{Cluster: suite.cluster, Managers: e.managers, Logs: e.sup.Logs(), Paths: append(e.paths(), e.seedOnly...)}
	if e.lists != nil {
		ev.Lists = append(ev.Lists, e.lists)
	}
	err := ev.Save(ctx, dir)
	if len(e.history) > 0 {
		if b, mErr := json.MarshalIndent(e.history, "", "  "); mErr == nil {
			_ = os.WriteFile(filepath.Join(dir, "history-before-restarts.json"), b, 0o644)
		}
	}
	e.t.Logf("evidence in %s (incomplete: %v)", dir, err)
}

// paths are the paths of the env's documents.
func (e *env) paths() []string {
	out := make([]string, len(e.docs))
	for i, d := range e.docs {
		out[i] = d.list.Path
	}
	return out
}

// keepHistory adds the current list server's history of the first list
// to e.history, before the server is stopped.
func (e *env) keepHistory(ctx context.Context) {
	h, err := e.lists.History(ctx, e.list.Path)
	if err != nil {
		e.t.Logf("read the list's history before the stop: %v", err)
		return
	}
	e.history = append(e.history, h...)
}

// fullHistory returns the versions of the document at path, across list
// server restarts for the first list's.
func (e *env) fullHistory(ctx context.Context, path string) ([]fakeapi.Version, error) {
	h, err := e.lists.History(ctx, path)
	if err != nil {
		return nil, err
	}
	if path != e.list.Path {
		return h, nil
	}
	// A restarted server's history starts with the version it loaded,
	// which the history kept before the stop may hold already.
	out := append([]fakeapi.Version(nil), e.history...)
	for _, v := range h {
		if !slices.ContainsFunc(e.history, func(k fakeapi.Version) bool { return k.ETag == v.ETag && k.Deleted == v.Deleted }) {
			out = append(out, v)
		}
	}
	return out, nil
}

// snapshot is one look at the entries and the lists. The entries are read
// before the documents.
type snapshot struct {
	at      time.Time
	entries []v1alpha1.ListEntry // every entry of the env, on any list
	synced  int
	doc     harness.Document   // the first list's
	docs    []harness.Document // each list's, in the order of env.docs
	on      int                // of the names, how many are on the first list
	err     error              // why a read failed; the other fields are then partial
}

// observe reads the entries and the lists' documents.
func (e *env) observe(ctx context.Context, names []string) snapshot {
	s := snapshot{at: time.Now()}
	if s.entries, s.err = e.existing(ctx); s.err != nil {
		return s
	}
	s.synced = harness.CountSynced(s.entries)
	for _, d := range e.docs {
		doc, err := e.lists.Document(ctx, d.list.Path)
		if err != nil {
			s.err = err
			return s
		}
		s.docs = append(s.docs, doc)
	}
	s.doc = s.docs[0]
	s.on = harness.Count(names, s.doc.Items)
	return s
}

// existing returns every entry of the env, in any namespace.
func (e *env) existing(ctx context.Context) ([]v1alpha1.ListEntry, error) {
	var list v1alpha1.ListEntryList
	if err := suite.cluster.Client.List(ctx, &list, client.MatchingLabels(e.labels)); err != nil {
		return nil, fmt.Errorf("list ListEntries: %w", err)
	}
	return list.Items, nil
}

// describe says where a snapshot stands, and why a later look failed, for
// failure messages.
func (s snapshot) describe(want []string, adding bool, lastErr error) string {
	var b strings.Builder
	if s.at.IsZero() {
		b.WriteString("no complete look at the entries and the list")
	} else {
		missing, leftover := harness.DiffItems(want, s.doc.Items)
		fmt.Fprintf(&b, "at %s: %d entries, %d Synced; the list misses %d IDs%s and has %d it should not%s",
			s.at.Format(time.StampMilli), len(s.entries), s.synced,
			len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
		for _, line := range harness.StuckEntries(s.entries, adding, 5) {
			b.WriteString("\n    " + line)
		}
	}
	if lastErr != nil {
		fmt.Fprintf(&b, "\n    a later read failed: %v", lastErr)
	}
	return b.String()
}

// counters reads the list server's and the managers' counters.
func (e *env) counters(ctx context.Context) harness.Counters {
	e.t.Helper()
	c, err := harness.ReadCounters(ctx, e.lists, e.managers)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}
