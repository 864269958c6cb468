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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
	"github.com/listkeeper/listkeeper/test/e2e/harness/ownership"
)

const (
	// repoRoot is the repository root, the working directory: its
	// finalizer policy is installed where the kube-apiserver serves it.
	repoRoot = "."
	// crdDir is the CRDs to install, relative to the repository root.
	crdDir = "config/crd/bases"
	// namespace holds the benchmark's objects.
	namespace = "bench"
	// listPathPrefix starts the lists' document paths, listToken is the
	// server's token.
	listPathPrefix = "/lists/"
	listToken      = "bench-token"
	// docOwner is a field beside the items that every write must keep.
	docOwner = "bench-e2e"
	// setupTimeout bounds the start of everything but the control plane.
	setupTimeout = 2 * time.Minute
	// entriesPoll is how often the entries are read while waiting: they
	// are many, so less often than the list.
	entriesPoll = 500 * time.Millisecond
	// progressEvery is how often progress is printed while waiting.
	progressEvery = 5 * time.Second
	// settle is how long the list must stay right after the deletion.
	settle = time.Second
	// evidenceTimeout bounds the collection of evidence.
	evidenceTimeout = 30 * time.Second
)

// roundRun is the processes and objects of one round.
type roundRun struct {
	b          *bench
	replicas   int
	dir        string
	sup        *harness.Supervisor
	cluster    *harness.Cluster
	lists      *harness.ListServer
	managers   []*harness.Manager
	docs       []benchList     // the ExternalLists, each on its own document
	entries    harness.Entries // every entry of the round, by their label
	bystanders []string
	names      []string
}

// benchList is one ExternalList of a round, on its own document, and the
// entries that go to it.
type benchList struct {
	obj     harness.ListObject
	entries harness.Entries
	names   []string // its entries' names, which are also their IDs
}

// listNames returns the ExternalLists' names and their documents' paths:
// "bench" on /lists/bench for one list, bench-1 onwards otherwise.
func listNames(n int) (names, paths []string) {
	if n == 1 {
		return []string{"bench"}, []string{listPathPrefix + "bench"}
	}
	for i := range n {
		name := fmt.Sprintf("bench-%d", i+1)
		names, paths = append(names, name), append(paths, listPathPrefix+name)
	}
	return names, paths
}

// spread deals names round-robin over n lists: name i goes to list i mod n.
func spread(names []string, n int) [][]string {
	out := make([][]string, n)
	for i, name := range names {
		out[i%n] = append(out[i%n], name)
	}
	return out
}

// runRound runs one round with r replicas, from a fresh control plane to
// its teardown.
func (b *bench) runRound(ctx context.Context, r int) round {
	res := round{Replicas: r}
	dir, err := os.MkdirTemp("", "listkeeper-bench-e2e-*")
	if err != nil {
		res.Error = err.Error()
		return res
	}
	rr := &roundRun{b: b, replicas: r, dir: dir, sup: harness.NewSupervisor(dir),
		bystanders: harness.BystanderIDs(b.cfg.bystanders), names: harness.EntryNames("bench", b.cfg.entries)}
	err = rr.run(ctx, &res)
	if err != nil && ctx.Err() == nil {
		res.Error = err.Error()
		b.logf("R=%d FAILED: %v", r, err)
		res.Evidence = rr.saveEvidence(ctx)
	}
	rr.tearDown()
	if err := os.RemoveAll(dir); err != nil {
		b.logf("remove %s: %v", dir, err)
	}
	return res
}

// run sets the round up and runs its phases, appending them to res.
func (rr *roundRun) run(ctx context.Context, res *round) error {
	if err := rr.setUp(ctx); err != nil {
		return err
	}
	res.FinalizerPolicy = rr.cluster.FinalizerPolicy
	for _, ph := range []func(context.Context) (phase, error){rr.create, rr.delete} {
		p, err := ph(ctx)
		res.Phases = append(res.Phases, p)
		if err != nil {
			return err
		}
		rr.b.logf("R=%d %s: %.2fs (list %.2fs, entries %.2fs), %.3f list requests per change, %d 412s (%.3f per write), mean batch %.1f, ID latency p50 %.2fs p99 %.2fs, %.2f API requests per entry (%.0f Lease requests left out), %s ListEntry writes per entry",
			rr.replicas, p.Name, p.Seconds, p.ListSeconds, p.EntriesSeconds, p.RequestsPerChange, p.Conflicts, p.ConflictsPerWrite,
			p.Total.MeanBatch, p.Latency.P50, p.Latency.P99, p.Operator.Entries/float64(p.Changes), p.Operator.Leases, writesPerEntry(&p))
	}
	return rr.settled(ctx)
}

// setUp starts the control plane, the list server and the replicas, and
// creates the ExternalLists.
func (rr *roundRun) setUp(ctx context.Context) error {
	b := rr.b
	var err error
	rr.cluster, err = harness.StartCluster(harness.ClusterOptions{Assets: b.cfg.assets, CRDDir: crdDir, Dir: rr.dir, User: "listkeeper-bench", PolicyRoot: repoRoot})
	if err != nil {
		return err
	}
	rr.b.logf("R=%d: finalizer policy installed: %v", rr.replicas, rr.cluster.FinalizerPolicy)
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	seed, err := json.Marshal(map[string]any{"owner": docOwner, "items": rr.bystanders})
	if err != nil {
		return err
	}
	names, paths := listNames(b.cfg.lists)
	var seeds []harness.SeedDoc
	for _, p := range paths {
		seeds = append(seeds, harness.SeedDoc{Path: p, Body: seed})
	}
	rr.lists, err = harness.StartListServer(ctx, rr.sup, harness.ListServerOptions{
		Bin: filepath.Join(b.cfg.bin, "fakeapi"), Token: listToken, Latency: b.cfg.latency, History: true, Seed: seeds,
	})
	if err != nil {
		return err
	}
	c := rr.cluster.Client
	if err := harness.EnsureNamespace(ctx, c, namespace); err != nil {
		return err
	}
	labels := map[string]string{"listkeeper.dev/bench": "e2e"}
	rr.entries = harness.Entries{Client: c, Namespace: namespace, Labels: labels, Workers: b.cfg.clients}
	for i, share := range spread(rr.names, b.cfg.lists) {
		l := benchList{obj: harness.ListObject{Namespace: namespace, Name: names[i], Server: rr.lists, Path: paths[i]}, names: share}
		l.entries = rr.entries
		l.entries.List = l.obj.Name
		if err := l.obj.Create(ctx, c); err != nil {
			return err
		}
		rr.docs = append(rr.docs, l)
	}
	// The members' Leases live beside the entries, whatever namespace the
	// managers would otherwise pick.
	// The list server is on loopback, which the dial fence refuses
	// unless a CIDR entry allows it.
	args := []string{"--lease-namespace", namespace, "--allowed-hosts", "127.0.0.0/8"}
	if b.cfg.batchInterval != "" {
		args = append(args, "--batch-interval", b.cfg.batchInterval)
	}
	rr.managers, err = harness.StartManagers(ctx, rr.sup, harness.ManagerOptions{
		Bin: filepath.Join(b.cfg.bin, "manager"), Kubeconfig: rr.cluster.Kubeconfig, Workers: b.cfg.workers, Args: args,
	}, rr.replicas)
	if err != nil {
		return err
	}
	for _, l := range rr.docs {
		if err := l.obj.WaitReady(ctx, c, rr.sup, setupTimeout); err != nil {
			return err
		}
	}
	// The phases measure the replicas at rest, not while buckets still
	// move between them as they join.
	joined := time.Now()
	if err := harness.WaitMembers(ctx, c, rr.sup, namespace, rr.managers, membership.DefaultBuckets, setupTimeout); err != nil {
		return err
	}
	b.logf("R=%d: control plane, list server (%s, latency %v, %d documents) and %d manager replica(s) up; buckets settled after %v",
		rr.replicas, rr.lists.Base(), b.cfg.latency, len(rr.docs), rr.replicas, time.Since(joined).Round(time.Millisecond))
	b.logf("R=%d: %s", rr.replicas, rr.owners(ctx))
	return nil
}

// owners says which replica writes each list's document, by the bucket of
// its document ID and the Lease that claims it.
func (rr *roundRun) owners(ctx context.Context) string {
	leases, err := harness.ReadMemberLeases(ctx, rr.cluster.Client, namespace, membership.DefaultBuckets)
	if err != nil {
		return "owners unknown: " + err.Error()
	}
	var parts []string
	for _, l := range rr.docs {
		id, err := ownership.ListDocumentID(ctx, rr.cluster.Client, client.ObjectKey{Namespace: namespace, Name: l.obj.Name})
		if err != nil || id == "" {
			parts = append(parts, l.obj.Name+" owner unknown")
			continue
		}
		owner := "no single owner"
		if lease, ok := harness.OwnerOf(leases, ownership.Bucket(id, membership.DefaultBuckets)); ok {
			owner = lease.Replica()
		}
		parts = append(parts, fmt.Sprintf("%s (document %.8s) owned by %s", l.obj.Name, id, owner))
	}
	return strings.Join(parts, "; ")
}

// paths returns the lists' document paths.
func (rr *roundRun) paths() []string {
	out := make([]string, len(rr.docs))
	for i, l := range rr.docs {
		out[i] = l.obj.Path
	}
	return out
}

// settled waits a moment and checks every list once more.
func (rr *roundRun) settled(ctx context.Context) error {
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, l := range rr.docs {
		doc, err := rr.lists.Document(ctx, l.obj.Path)
		if err != nil {
			return err
		}
		if !slices.Equal(doc.Items, rr.bystanders) {
			missing, leftover := harness.DiffItems(rr.bystanders, doc.Items)
			return fmt.Errorf("%v after the deletion list %s is not its bystanders in order: %d missing%s, %d left over%s",
				settle, l.obj.Name, len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
		}
		if owner := doc.Field("owner"); owner != docOwner {
			return fmt.Errorf("list %s: the document's field \"owner\" is %q, want %q", l.obj.Name, owner, docOwner)
		}
	}
	return nil
}

// saveEvidence keeps the round's logs and state under the results
// directory and returns where.
func (rr *roundRun) saveEvidence(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), evidenceTimeout)
	defer cancel()
	dir := filepath.Join(rr.b.cfg.out, rr.b.stamp(), "evidence-r"+strconv.Itoa(rr.replicas))
	ev := harness.Evidence{Cluster: rr.cluster, Managers: rr.managers, Logs: rr.sup.Logs(), Paths: rr.paths()}
	if rr.lists != nil {
		ev.Lists = append(ev.Lists, rr.lists)
	}
	if err := ev.Save(ctx, dir); err != nil {
		rr.b.logf("R=%d: evidence incomplete: %v", rr.replicas, err)
	}
	rr.b.logf("R=%d: evidence in %s", rr.replicas, dir)
	return dir
}

// tearDown stops everything the round started.
func (rr *roundRun) tearDown() {
	harness.StopManagers(rr.managers...)
	if rr.lists != nil {
		rr.lists.Stop()
	}
	rr.sup.StopAll()
	if err := rr.cluster.Stop(); err != nil {
		rr.b.logf("R=%d: stop control plane: %v", rr.replicas, err)
	}
}
