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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	// namespace is where the samples and the demo's entries go.
	namespace = "default"
	// bystanders is how many IDs the list starts with.
	bystanders = 50
	// settle is how long the list must stay right after the last phase.
	settle = 2 * time.Second
	// Paths relative to the repository root, the working directory.
	repoRoot   = "."
	crdDir     = "config/crd/bases"
	evidenceIn = ".demo"
)

// demo is one run: the processes it started and what it learned.
type demo struct {
	cfg   config
	out   io.Writer
	ui    *progress
	tty   bool
	dir   string // the temp dir
	start time.Time

	sup      *harness.Supervisor
	cluster  *harness.Cluster
	store    listStore              // nil until it is up
	outside  *harness.OutsideWriter // the writer outside listkeeper; nil when the store has none
	replicas []*harness.Manager
	entries  harness.Entries // the demo's entries; Client is set once the cluster is up

	bystanders []string // IDs on the list before the operator touches it
	sampleID   string   // the sample entry's ID
	names      []string // the demo entries' names
	ids        []string // their IDs (entries.IDOf), in the same order
}

// newDemo checks the inputs and makes the temp dir.
func newDemo(cfg config, out io.Writer, tty bool) (*demo, error) {
	kubectl, err := harness.KubectlPath()
	if err != nil {
		return nil, err
	}
	need := []string{filepath.Join(cfg.bin, "manager"),
		filepath.Join(cfg.assets, "kube-apiserver"), filepath.Join(cfg.assets, "etcd"), kubectl, crdDir, samplesDir}
	if cfg.store == storeFakeAPI {
		need = append(need, filepath.Join(cfg.bin, "fakeapi"))
	}
	for _, f := range need {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("%w (run from the repository root after 'make build envtest-assets', or use 'make demo')", err)
		}
	}
	dir, err := os.MkdirTemp("", "listkeeper-demo-*")
	if err != nil {
		return nil, err
	}
	d := &demo{
		cfg: cfg, out: out, ui: newProgress(out, tty), tty: tty, dir: dir, start: time.Now(),
		sup: harness.NewSupervisor(dir), bystanders: harness.BystanderIDs(bystanders), names: harness.EntryNames("demo", cfg.entries),
		entries: harness.Entries{Namespace: namespace, List: sampleList, Labels: map[string]string{demoLabel: demoLabelValue}},
	}
	if cfg.store == storeWAFv2 { // an IP set holds CIDRs only
		d.bystanders, d.entries.ID = wafv2Bystanders(bystanders), wafv2EntryID
	}
	d.ids = d.entries.IDsOf(d.names)
	return d, nil
}

// main runs the demo, reports, keeps it up if asked, tears it down and
// returns the exit code.
func (d *demo) main(ctx context.Context) int {
	d.logf("listkeeper demo: %d entries, %d replicas, store %s, timeout %v per phase; temp dir %s",
		d.cfg.entries, d.cfg.replicas, d.cfg.store, d.cfg.timeout, d.dir)
	sum, err := d.run(ctx)
	if len(sum.phases) > 0 && ctx.Err() == nil {
		fmt.Fprintln(d.out)
		sum.render(d.out)
	}
	code := exitOK
	switch {
	case ctx.Err() != nil:
		d.ui.printf("\ninterrupted: stopping everything\n")
		code = exitInterrupted
	case err != nil:
		d.fail(ctx, err)
		code = exitFailed
	default:
		d.logf("PASS: every change reached the list, no update lost")
	}
	if d.cfg.keep && ctx.Err() == nil {
		d.keep(ctx)
	}
	d.tearDown()
	d.logf("done in %v", time.Since(d.start).Round(100*time.Millisecond))
	return code
}

// run sets everything up and runs the phases.
func (d *demo) run(ctx context.Context) (summary, error) {
	sum := summary{replicas: d.replicaNames(), store: d.cfg.store}
	if err := d.setUp(ctx); err != nil {
		return sum, err
	}
	sum.replicas = d.replicaNames()
	sum.race = d.store.lostRace()
	d.reportOwner(ctx)
	ids := harness.OutsideIDs(outsidePrefix, outsideCount)
	if d.outside = d.store.outsideWriter(ids); d.outside != nil {
		d.logf("a writer outside listkeeper edits the same document during the phases: it adds and removes %s..%s with If-Match, one edit every %v-%v",
			ids[0], ids[len(ids)-1], harness.DefaultOutsideInterval, harness.DefaultOutsideInterval+harness.DefaultOutsideJitter)
	}
	base := append(slices.Clone(d.bystanders), d.sampleID)
	all := append(slices.Clone(base), d.ids...)
	phases := []phase{
		{name: "create", adding: true, want: all, act: func(ctx context.Context) error {
			return d.entries.Create(ctx, d.names)
		}},
		{name: "delete", want: base, act: func(ctx context.Context) error {
			return d.entries.Delete(ctx, d.names)
		}},
	}
	for _, ph := range phases {
		res, err := d.runPhase(ctx, ph)
		sum.phases = append(sum.phases, res)
		if err != nil {
			return sum, err
		}
	}
	if d.outside != nil {
		sum.outside = &outsideReport{ids: ids, counts: d.outside.Counts()}
	}
	final, err := d.settleCheck(ctx, base)
	sum.final = &final
	if err != nil {
		return sum, err
	}
	if lost := sum.lost(); lost > 0 {
		return sum, fmt.Errorf("%d lost updates (IDs missing from the list or left on it, the outside writer's included); see the summary", lost)
	}
	return sum, nil
}

// settleCheck waits a moment after the last phase and checks that the list
// still holds exactly want, beside what the outside writer left, so that a
// late stray write is caught too.
func (d *demo) settleCheck(ctx context.Context, want []string) (finalCheck, error) {
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return finalCheck{}, ctx.Err()
	case <-d.sup.Died():
		return finalCheck{}, d.sup.Err()
	}
	doc, err := d.store.document(ctx)
	if err != nil {
		return finalCheck{}, err
	}
	owner := doc.Field("owner")
	fc := finalCheck{after: settle, items: len(doc.Items), ownerKept: owner == docOwner}
	fc.missing, fc.leftover = harness.DiffItems(want, d.ours(doc.Items))
	if d.outside != nil {
		fc.outsideLeft = d.outside.Left()
		fc.outsideMissing, fc.outsideUnexpected = d.outside.Check(doc.Items)
	}
	if !fc.ownerKept {
		return fc, fmt.Errorf("the list document lost its field \"owner\": %q, want %q", owner, docOwner)
	}
	return fc, nil
}

// poll calls check every interval until it reports done, check fails
// fatally (harness.Fatal), a child exits, ctx ends or timeout passes
// (harness.ErrTimeout).
func (d *demo) poll(ctx context.Context, timeout, interval time.Duration, check func(context.Context) (bool, error)) error {
	return harness.Poll(ctx, d.sup, timeout, interval, check)
}

func (d *demo) pollInterval() time.Duration {
	if d.tty {
		return pollTerminal
	}
	return pollPlain
}

// keep leaves everything up until ctx ends (Ctrl-C) or a child exits.
func (d *demo) keep(ctx context.Context) {
	var b strings.Builder
	fmt.Fprintf(&b, "--keep: everything stays up until Ctrl-C. Try:\n")
	fmt.Fprintf(&b, "  kubectl --kubeconfig %s get xl,le -A\n", d.cluster.Kubeconfig)
	fmt.Fprintf(&b, "  %s\n", d.store.hint())
	for _, r := range d.replicas {
		fmt.Fprintf(&b, "  curl -s %s | grep ^listkeeper_   # %s\n", r.MetricsURL(), r.Name())
	}
	fmt.Fprintf(&b, "logs:\n%s", indent(strings.Join(d.logPaths(), "\n")))
	d.ui.printf("\n%s\n", b.String())
	select {
	case <-ctx.Done():
		d.ui.printf("\nCtrl-C: stopping everything\n")
	case <-d.sup.Died():
		d.ui.printf("\n%v: stopping everything\n", d.sup.Err())
	}
}

// tearDown stops every process the demo started, replicas first, and
// removes the temp dir.
func (d *demo) tearDown() {
	d.logf("stopping %d replicas, the list store and the control plane", len(d.replicas))
	harness.StopManagers(d.replicas...)
	if d.store != nil {
		d.store.close()
	}
	d.sup.StopAll() // anything started but not yet handed over
	if d.cluster != nil {
		if err := d.cluster.Stop(); err != nil {
			d.logf("stop control plane: %v", err)
		}
	}
	if err := os.RemoveAll(d.dir); err != nil {
		d.logf("remove %s: %v", d.dir, err)
	}
}

// logPaths returns every log file: the control plane's, then the children's.
func (d *demo) logPaths() []string {
	return append(d.cluster.LogPaths(), d.sup.Logs()...)
}

func (d *demo) replicaNames() []string {
	names := make([]string, len(d.replicas))
	for i, r := range d.replicas {
		names[i] = r.Name()
	}
	return names
}

// logf prints a line prefixed with the time since the demo started.
func (d *demo) logf(format string, args ...any) {
	d.ui.printf("[%5.1fs] %s\n", time.Since(d.start).Seconds(), fmt.Sprintf(format, args...))
}

// indent indents every line of s by four spaces.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	return strings.Join(lines, "\n")
}
