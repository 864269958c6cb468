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

package membership

import (
	"context"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// watchPeers starts an informer on the Leases of this member's group and
// waits for it to sync.
func (m *Member) watchPeers(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(m.kube, 0,
		informers.WithNamespace(m.opts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = m.selector() }))
	inf := factory.Coordination().V1().Leases().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.observe(obj) },
		UpdateFunc: func(_, obj any) { m.observe(obj) },
		DeleteFunc: func(obj any) { m.forget(obj) },
	}); err != nil {
		return fmt.Errorf("membership: watch leases: %w", err)
	}
	factory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		return errors.New("membership: the Lease informer did not sync")
	}
	return nil
}

// selector selects the Leases of this member's group.
func (m *Member) selector() string {
	return labels.Set{LabelMember: m.opts.Group}.String()
}

// observe records a Lease of the group as this member sees it now.
func (m *Member) observe(obj any) {
	l, ok := obj.(*coordinationv1.Lease)
	if !ok || l.Name == m.leaseName || l.Spec.HolderIdentity == nil {
		return
	}
	claims, err := claimsOf(l, m.opts.Buckets)
	if err != nil {
		m.opts.Log.Error(err, "a member's Lease cannot be read; its buckets are treated as claimed", "lease", l.Name)
	}
	now := m.opts.Clock.Now()
	m.mu.Lock()
	// A Lease is dated by when this member saw it change, never by its
	// renewTime: that was read on another node's clock, and a member that
	// cannot renew goes on acting for the renew deadline after its last
	// renewal, so a Lease first seen now lives a full lease duration.
	if p, ok := m.peers[l.Name]; !ok || p.rv != l.ResourceVersion {
		m.peers[l.Name] = &peer{identity: *l.Spec.HolderIdentity, claims: claims, rv: l.ResourceVersion, seen: now}
	}
	m.mu.Unlock()
	m.poke()
}

// collect deletes the Leases of members this one considers dead, so that
// the Leases of killed replicas do not pile up, within one renew period in
// all. The delete is conditional on the resourceVersion seen: a Lease
// renewed meanwhile is kept.
func (m *Member) collect(ctx context.Context, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.RenewPeriod)
	defer cancel()
	// A Lease is deleted only once it has been expired for a lease
	// duration and the late write bound: a member that starts after the
	// deletion sees no claim and takes the buckets as handed over, so
	// every late write of the dead member must have landed by then.
	keep := 2*m.opts.LeaseDuration + m.opts.LateWriteBound
	m.mu.Lock()
	var dead []struct{ name, rv string }
	for name, p := range m.peers {
		if now.Sub(p.seen) >= keep {
			dead = append(dead, struct{ name, rv string }{name, p.rv})
		}
	}
	m.mu.Unlock()
	for _, d := range dead {
		rv := d.rv
		err := m.kube.CoordinationV1().Leases(m.opts.Namespace).Delete(ctx, d.name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{ResourceVersion: &rv},
		})
		if err == nil {
			m.opts.Log.Info("deleted the Lease of a member that is gone", "lease", d.name)
		}
	}
}

// confirmExpired reads the Leases named from the API server, within one
// renew period in all, before this member takes buckets they claim: each
// has expired in its view, which a watch that lags behind could fake. A
// Lease found unchanged is confirmed expired; one that changed is seen
// anew, and live; one that is gone is forgotten.
func (m *Member) confirmExpired(ctx context.Context, names []string) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.RenewPeriod)
	defer cancel()
	leases := m.kube.CoordinationV1().Leases(m.opts.Namespace)
	for _, name := range names {
		l, err := leases.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			m.forget(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: m.opts.Namespace}})
		case err != nil:
			// The next tick tries again; the buckets wait.
			m.opts.Log.V(1).Info("cannot read an expired Lease", "lease", name, "error", err.Error())
		default:
			m.mu.Lock()
			if p := m.peers[name]; p != nil && p.rv == l.ResourceVersion {
				p.confirmed = p.rv
			}
			m.mu.Unlock()
			m.observe(l) // seen anew if it changed; either way the loop runs again
		}
	}
}

// forget drops a deleted Lease from the view. The holder of a Lease
// deleted while it claimed buckets did not hand them over: each such
// bucket keeps when that holder's right to act ended, for SettleAfter.
// When the Lease is this member's own, it stops acting at once: the
// others already treat its buckets as free.
func (m *Member) forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	l, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return
	}
	now := m.opts.Clock.Now()
	m.mu.Lock()
	if l.Name == m.leaseName {
		if l.UID == m.uid {
			m.loseLeaseLocked()
			m.rv, m.uid = "", ""
		}
	} else if p, ok := m.peers[l.Name]; ok {
		end := claimEnd(p.seen, now, m.opts.LeaseDuration)
		for b, c := range p.claims {
			if c && end.After(m.gone[b]) {
				m.gone[b] = end
			}
		}
		delete(m.peers, l.Name)
	}
	m.mu.Unlock()
	m.poke()
}
