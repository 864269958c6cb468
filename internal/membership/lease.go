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
)

// errLeaseTaken says that this member's Lease names another holder, or
// another group: two members have one Lease name, and neither may trust
// its claims.
var errLeaseTaken = errors.New("membership: the lease is another member's")

// errLeaseDeleted says that this member's Lease is gone.
var errLeaseDeleted = errors.New("membership: the lease was deleted")

// writeLease creates or updates this member's Lease with claims, within
// one renew period, and returns it as written.
func (m *Member) writeLease(ctx context.Context, claims []bool, now time.Time) (*coordinationv1.Lease, error) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.RenewPeriod)
	defer cancel()
	mt := metav1.NewMicroTime(now)
	seconds := int32(m.opts.LeaseDuration / time.Second)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:        m.leaseName,
			Namespace:   m.opts.Namespace,
			Labels:      map[string]string{LabelMember: m.opts.Group},
			Annotations: map[string]string{AnnotationBuckets: encodeClaims(claims)},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       &m.opts.Identity,
			LeaseDurationSeconds: &seconds,
			RenewTime:            &mt,
		},
	}
	m.mu.Lock()
	lease.ResourceVersion = m.rv
	m.mu.Unlock()
	if lease.ResourceVersion == "" {
		lease.Spec.AcquireTime = &mt
	}
	out, err := m.putLease(ctx, lease)
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		// An earlier write was made but its answer was lost, so the
		// Lease is ahead of the resourceVersion this member knows. It is
		// read again and, if it is still ours, written over.
		var cur *coordinationv1.Lease
		cur, err = m.kube.CoordinationV1().Leases(m.opts.Namespace).Get(ctx, m.leaseName, metav1.GetOptions{})
		if err == nil {
			if h := cur.Spec.HolderIdentity; h == nil || *h != m.opts.Identity || cur.Labels[LabelMember] != m.opts.Group {
				return nil, fmt.Errorf("%w: lease %s", errLeaseTaken, m.leaseName)
			}
			lease.ResourceVersion = cur.ResourceVersion
			out, err = m.putLease(ctx, lease)
		}
	}
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%w: lease %s", errLeaseDeleted, m.leaseName)
	}
	return out, err
}

// putLease creates lease when it has no resourceVersion, else updates it.
func (m *Member) putLease(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	leases := m.kube.CoordinationV1().Leases(m.opts.Namespace)
	if lease.ResourceVersion == "" {
		return leases.Create(ctx, lease, metav1.CreateOptions{})
	}
	return leases.Update(ctx, lease, metav1.UpdateOptions{})
}

// deleteLease deletes this member's Lease, if it has one. It waits up to a
// lease duration: after that the others consider the Lease expired anyway.
func (m *Member) deleteLease(ctx context.Context) error {
	m.mu.Lock()
	uid := m.uid
	m.mu.Unlock()
	if uid == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.LeaseDuration)
	defer cancel()
	err := m.kube.CoordinationV1().Leases(m.opts.Namespace).Delete(ctx, m.leaseName, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("membership: delete lease %s: %w", m.leaseName, err)
	}
	return nil
}
