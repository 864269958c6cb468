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
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	// crdDir is the CRDs to install, relative to the repository root.
	crdDir = "config/crd/bases"
	// namespace holds the benchmark's objects.
	namespace = "bench"
	// listPath is the list document's path, listToken the server's token.
	listPath  = "/lists/bench"
	listToken = "bench-token"
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
	entries    harness.Entries
	bystanders []string
	names      []string
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
	for _, ph := range []func(context.Context) (phase, error){rr.create, rr.delete} {
		p, err := ph(ctx)
		res.Phases = append(res.Phases, p)
		if err != nil {
			return err
		}
		rr.b.logf("R=%d %s: %.2fs (list %.2fs, entries %.2fs), %.3f list requests per change, %d 412s, mean batch %.1f, %.2f API requests per entry (%.0f Lease requests left out)",
			rr.replicas, p.Name, p.Seconds, p.ListSeconds, p.EntriesSeconds, p.RequestsPerChange, p.Conflicts, p.Total.MeanBatch,
			p.Operator.Entries/float64(p.Changes), p.Operator.Leases)
	}
	return rr.settled(ctx)
}

// setUp starts the control plane, the list server and the replicas, and
// creates the ExternalList.
func (rr *roundRun) setUp(ctx context.Context) error {
	b := rr.b
	var err error
	rr.cluster, err = harness.StartCluster(harness.ClusterOptions{Assets: b.cfg.assets, CRDDir: crdDir, Dir: rr.dir, User: "listkeeper-bench"})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	seed, err := json.Marshal(map[string]any{"owner": docOwner, "items": rr.bystanders})
	if err != nil {
		return err
	}
	rr.lists, err = harness.StartListServer(ctx, rr.sup, harness.ListServerOptions{
		Bin: filepath.Join(b.cfg.bin, "fakeapi"), Token: listToken, Latency: b.cfg.latency, History: true,
		Seed: []harness.SeedDoc{{Path: listPath, Body: seed}},
	})
	if err != nil {
		return err
	}
	c := rr.cluster.Client
	if err := harness.EnsureNamespace(ctx, c, namespace); err != nil {
		return err
	}
	list := harness.ListObject{Namespace: namespace, Name: "bench", Server: rr.lists, Path: listPath}
	if err := list.Create(ctx, c); err != nil {
		return err
	}
	rr.entries = harness.Entries{Client: c, Namespace: namespace, List: list.Name,
		Labels: map[string]string{"listkeeper.dev/bench": "e2e"}, Workers: b.cfg.clients}
	// The members' Leases live beside the entries, whatever namespace the
	// managers would otherwise pick.
	args := []string{"--lease-namespace", namespace}
	if b.cfg.batchInterval != "" {
		args = append(args, "--batch-interval", b.cfg.batchInterval)
	}
	rr.managers, err = harness.StartManagers(ctx, rr.sup, harness.ManagerOptions{
		Bin: filepath.Join(b.cfg.bin, "manager"), Kubeconfig: rr.cluster.Kubeconfig, Workers: b.cfg.workers, Args: args,
	}, rr.replicas)
	if err != nil {
		return err
	}
	if err := list.WaitReady(ctx, c, rr.sup, setupTimeout); err != nil {
		return err
	}
	// The phases measure the replicas at rest, not while buckets still
	// move between them as they join.
	joined := time.Now()
	if err := harness.WaitMembers(ctx, c, rr.sup, namespace, rr.managers, membership.DefaultBuckets, setupTimeout); err != nil {
		return err
	}
	b.logf("R=%d: control plane, list server (%s, latency %v) and %d manager replica(s) up; buckets settled after %v",
		rr.replicas, rr.lists.Base(), b.cfg.latency, rr.replicas, time.Since(joined).Round(time.Millisecond))
	return nil
}

// create creates the entries, waits until the list holds them all and
// then until every entry is Synced.
func (rr *roundRun) create(ctx context.Context) (phase, error) {
	want := append(slices.Clone(rr.bystanders), rr.names...)
	return rr.runPhase(ctx, "create",
		func(ctx context.Context) error { return rr.entries.Create(ctx, rr.names) },
		func(items []string) bool { return harness.Count(rr.names, items) == len(rr.names) },
		func(ctx context.Context) (bool, string, error) {
			es, err := rr.entries.Existing(ctx)
			if err != nil {
				return false, "", err
			}
			synced := harness.CountSynced(es)
			return len(es) == len(rr.names) && synced == len(rr.names), fmt.Sprintf("%d entries, %d Synced", len(es), synced), nil
		}, want)
}

// delete deletes the entries, waits until the list holds exactly the
// bystanders and then until no entry is left.
func (rr *roundRun) delete(ctx context.Context) (phase, error) {
	return rr.runPhase(ctx, "delete",
		func(ctx context.Context) error { return rr.entries.Delete(ctx, rr.names) },
		func(items []string) bool { return slices.Equal(items, rr.bystanders) },
		func(ctx context.Context) (bool, string, error) {
			n, err := rr.entries.Count(ctx)
			return n == 0, fmt.Sprintf("%d entries left", n), err
		}, rr.bystanders)
}

// runPhase runs act and waits, bounded by the phase timeout, first until
// listDone holds for the list's items, then until entriesDone does, and
// measures the phase.
func (rr *roundRun) runPhase(ctx context.Context, name string, act func(context.Context) error,
	listDone func([]string) bool, entriesDone func(context.Context) (bool, string, error), want []string,
) (phase, error) {
	p := phase{Name: name, Changes: len(rr.names)}
	c0, err := harness.ReadCounters(ctx, rr.lists, rr.managers)
	if err != nil {
		return p, err
	}
	a0, a0Err := rr.cluster.ScrapeAPIServer(ctx)
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, rr.b.cfg.timeout)
	defer cancel()
	acted := make(chan error, 1)
	go func() { acted <- act(pctx) }()
	actDone := false
	checkAct := func() error {
		if actDone {
			return nil
		}
		select {
		case err := <-acted:
			if err != nil {
				return harness.Fatal(fmt.Errorf("%s the entries: %w", name, err))
			}
			actDone = true
		default:
		}
		return nil
	}

	var items []string
	lastPrint := start
	err = harness.Poll(pctx, rr.sup, rr.b.cfg.timeout, rr.b.cfg.poll, func(ctx context.Context) (bool, error) {
		if err := checkAct(); err != nil {
			return false, err
		}
		doc, err := rr.lists.Document(ctx, listPath)
		if err != nil {
			return false, err
		}
		items = doc.Items
		if time.Since(lastPrint) >= progressEvery {
			lastPrint = time.Now()
			rr.b.logf("R=%d %s: %d/%d IDs on the list after %.0fs", rr.replicas, name, harness.Count(rr.names, items), len(rr.names), time.Since(start).Seconds())
		}
		return listDone(items), nil
	})
	listPolled := time.Since(start)
	if err != nil {
		missing, leftover := harness.DiffItems(want, items)
		return p, fmt.Errorf("%s: list: %w; it misses %d IDs%s and has %d it should not%s",
			name, err, len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
	}
	var state string
	err = harness.Poll(pctx, rr.sup, rr.b.cfg.timeout-listPolled, entriesPoll, func(ctx context.Context) (bool, error) {
		if err := checkAct(); err != nil {
			return false, err
		}
		done, st, err := entriesDone(ctx)
		state = st
		return actDone && done, err
	})
	p.EntriesSeconds = time.Since(start).Seconds()
	if err != nil {
		return p, fmt.Errorf("%s: entries: %w (%s)", name, err, state)
	}
	c1, err := harness.ReadCounters(ctx, rr.lists, rr.managers)
	if err != nil {
		return p, err
	}
	var apiDelta harness.APIServerMetrics
	a1, a1Err := rr.cluster.ScrapeAPIServer(ctx)
	if apiKnown := a0Err == nil && a1Err == nil; apiKnown {
		apiDelta = a1.Sub(a0)
		p.API = apiFiguresOf(apiDelta)
	} else {
		rr.b.logf("R=%d %s: kube-apiserver metrics unknown: %v", rr.replicas, name, cmp.Or(a0Err, a1Err))
	}
	d := c1.Sub(c0)
	p.Operator = operatorAPIOf(d, apiDelta, p.API.Known)
	p.ListSeconds = listPolled.Seconds()
	if at, ok := rr.firstVersion(ctx, start, listDone); ok {
		p.ListSeconds = at.Sub(start).Seconds()
	}
	p.Seconds = p.ListSeconds
	if name == "delete" {
		p.Seconds = max(p.ListSeconds, p.EntriesSeconds)
	}
	p.Finished = true
	rr.measure(&p, d)
	return p, nil
}

// firstVersion returns when the fake server committed the first version
// after start whose items satisfy done.
func (rr *roundRun) firstVersion(ctx context.Context, start time.Time, done func([]string) bool) (time.Time, bool) {
	h, err := rr.lists.History(ctx, listPath)
	if err != nil {
		rr.b.logf("R=%d: read the list's history: %v (timing from polling)", rr.replicas, err)
		return time.Time{}, false
	}
	for _, v := range h {
		if v.Time.Before(start) {
			continue
		}
		var doc harness.Document
		if err := json.Unmarshal(v.Body, &doc); err == nil && done(doc.Items) {
			return v.Time, true
		}
	}
	return time.Time{}, false
}

// measure fills p's counters from the difference of two reads.
func (rr *roundRun) measure(p *phase, d harness.Counters) {
	p.Requests = d.Requests()
	p.RequestsPerChange = float64(p.Requests) / float64(p.Changes)
	p.Conflicts = d.Conflicts()
	p.Commits = d.Stats.Commits
	p.Total = figuresOf("total", d.ManagerTotal())
	for i, m := range d.Managers {
		p.Replicas = append(p.Replicas, figuresOf(rr.managers[i].Name(), m))
	}
}

// settled waits a moment and checks the list once more.
func (rr *roundRun) settled(ctx context.Context) error {
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return ctx.Err()
	}
	doc, err := rr.lists.Document(ctx, listPath)
	if err != nil {
		return err
	}
	if !slices.Equal(doc.Items, rr.bystanders) {
		missing, leftover := harness.DiffItems(rr.bystanders, doc.Items)
		return fmt.Errorf("%v after the deletion the list is not its bystanders in order: %d missing%s, %d left over%s",
			settle, len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
	}
	if owner := doc.Field("owner"); owner != docOwner {
		return fmt.Errorf("the list document's field \"owner\" is %q, want %q", owner, docOwner)
	}
	return nil
}

// saveEvidence keeps the round's logs and state under the results
// directory and returns where.
func (rr *roundRun) saveEvidence(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), evidenceTimeout)
	defer cancel()
	dir := filepath.Join(rr.b.cfg.out, rr.b.stamp(), "evidence-r"+strconv.Itoa(rr.replicas))
	ev := harness.Evidence{Cluster: rr.cluster, Managers: rr.managers, Logs: rr.sup.Logs(), Paths: []string{listPath}}
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
