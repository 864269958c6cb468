package membership

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeLease creates or updates this member's Lease with claims.
func (m *Member) writeLease(ctx context.Context, claims []bool, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.RenewPeriod)
	defer cancel()
	leases := m.kube.CoordinationV1().Leases(m.opts.Namespace)
	mt := metav1.NewMicroTime(now)
	seconds := int32(m.opts.LeaseDuration / time.Second)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:        m.leaseName,
			Namespace:   m.opts.Namespace,
			Labels:      map[string]string{LabelMember: "true"},
			Annotations: map[string]string{AnnotationBuckets: encodeClaims(claims)},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       &m.opts.Identity,
			LeaseDurationSeconds: &seconds,
			RenewTime:            &mt,
		},
	}
	m.mu.Lock()
	rv := m.rv
	m.mu.Unlock()
	var out *coordinationv1.Lease
	var err error
	if rv == "" {
		lease.Spec.AcquireTime = &mt
		out, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	} else {
		lease.ResourceVersion = rv
		out, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			// Someone deleted our Lease: the others already treat our
			// buckets as free, so we must not claim we still act on them.
			m.mu.Lock()
			m.stopActingLocked()
			m.rv = ""
			m.mu.Unlock()
			return fmt.Errorf("lease %s was deleted", m.leaseName)
		}
	}
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.rv = out.ResourceVersion
	m.mu.Unlock()
	return nil
}
