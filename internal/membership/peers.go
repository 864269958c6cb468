package membership

import (
	"context"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// watchPeers starts an informer on the members' Leases and waits for it to
// sync.
func (m *Member) watchPeers(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(m.kube, 0,
		informers.WithNamespace(m.opts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = LabelMember + "=true" }))
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

func (m *Member) observe(obj any) {
	l, ok := obj.(*coordinationv1.Lease)
	if !ok || l.Name == m.leaseName || l.Spec.HolderIdentity == nil {
		return
	}
	claims, err := decodeClaims(l.Annotations[AnnotationBuckets], m.opts.Buckets)
	if err != nil {
		m.opts.Log.Error(err, "a member's Lease cannot be read; its buckets are treated as claimed", "lease", l.Name)
		claims = make([]bool, m.opts.Buckets)
		for b := range claims {
			claims[b] = true
		}
	}
	now := m.opts.Clock.Now()
	m.mu.Lock()
	if p, ok := m.peers[l.Name]; !ok || p.rv != l.ResourceVersion {
		seen := now
		if !ok {
			seen = m.firstSeen(l, now)
		}
		m.peers[l.Name] = &peer{identity: *l.Spec.HolderIdentity, claims: claims, rv: l.ResourceVersion, seen: seen}
	}
	m.mu.Unlock()
	m.poke()
}

// firstSeen dates a Lease this member sees for the first time. Its own
// clock decides expiry, so a Lease first seen now would count as live for
// a whole lease duration, and a member that joins next to the Lease of a
// member that was killed long ago would wait that long for the buckets the
// dead Lease still claims. The Lease's renewTime says how old it is; it is
// trusted only down to two renew periods before expiry: a live member
// renews within one period and is then seen anew, so clock skew between
// nodes cannot make a live member look dead.
func (m *Member) firstSeen(l *coordinationv1.Lease, now time.Time) time.Time {
	floor := now.Add(-m.opts.LeaseDuration + 2*m.opts.RenewPeriod)
	if l.Spec.RenewTime == nil || l.Spec.RenewTime.After(floor) {
		return now
	}
	return floor
}

// collect deletes the Leases of members this one considers dead, so that
// the Leases of killed replicas do not pile up. The delete is conditional on
// the resourceVersion seen: a Lease renewed meanwhile is kept.
func (m *Member) collect(ctx context.Context, now time.Time) {
	m.mu.Lock()
	var dead []struct{ name, rv string }
	for name, p := range m.peers {
		if now.Sub(p.seen) >= m.opts.LeaseDuration+m.opts.RenewPeriod {
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

func (m *Member) forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	l, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return
	}
	m.mu.Lock()
	delete(m.peers, l.Name)
	m.mu.Unlock()
	m.poke()
}
