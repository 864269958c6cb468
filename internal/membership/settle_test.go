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

package membership_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/listkeeper/listkeeper/internal/membership"
)

// TestDeletedClaimIsTakenOverUngracefully: a Lease deleted while it claims
// buckets (by hand, or by a member that collected it) did not hand them
// over. A member that sees the deletion takes them at once, with
// SettleAfter the deletion plus the late write bound, and hands none of
// them on before then: a member that joins after the deletion, and so
// never saw the claim, gets its share only after that instant, gracefully.
func TestDeletedClaimIsTakenOverUngracefully(t *testing.T) {
	ns := newNamespace(t)
	kube := kubernetes.NewForConfigOrDie(restConfig)
	dead := createDeadLease(t, ns, "killed")
	a := startMember(t, ns, "a", nil)
	settles := settlesOnGained(a)
	// a writes its Lease once it has seen the others'.
	eventually(t, 10*time.Second, "a to join", func() error {
		_, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), "listkeeper-member-a", metav1.GetOptions{})
		return err
	})
	deleted := time.Now()
	if err := kube.CoordinationV1().Leases(ns).Delete(context.Background(), dead, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Well before the dead Lease could expire in a's view.
	split(t, leaseDuration/2, a)
	all := make([]int, buckets)
	for bk := range all {
		all[bk] = bk
	}
	settles.check(t, all, deleted.Add(lateWriteBound), deleted.Add(lateWriteBound))

	b := startMember(t, ns, "b", nil)
	share := membership.Assign([]string{"a", "b"}, buckets)
	eventually(t, 10*time.Second, "b to take its share", func() error {
		for bk, owner := range share {
			if owner != "b" {
				continue
			}
			if !b.Owns(bk) {
				return fmt.Errorf("b does not own bucket %d", bk)
			}
			if now, s := time.Now(), a.SettleAfter(bk); now.Before(s) {
				t.Fatalf("b owns bucket %d %s before a's SettleAfter for it", bk, s.Sub(now).Round(time.Millisecond))
			}
		}
		return nil
	})
	split(t, 10*time.Second, a, b)
	graceful(t, b)
}

// TestUncleanLeaveLeavesTheLeaseToExpire: a member told to stop while work
// it admitted is outstanding hands over what it can, and at
// ShutdownTimeout stops acting and leaves its Lease, which still claims
// the unfinished bucket, to expire. The other member takes that bucket as
// a dead member's, with SettleAfter after the expiry, and the others as
// handed over.
func TestUncleanLeaveLeavesTheLeaseToExpire(t *testing.T) {
	ns := newNamespace(t)
	kube := kubernetes.NewForConfigOrDie(restConfig)
	const shutdown = 300 * time.Millisecond
	opts := testOptions(ns, "a")
	opts.ShutdownTimeout = shutdown
	a := startMemberWith(t, opts, nil)
	b := startMember(t, ns, "b", nil)
	settles := settlesOnGained(b)
	split(t, 10*time.Second, a, b)
	aBuckets := a.Held()
	x := aBuckets[0]
	release, ok := a.Acquire(x)
	if !ok {
		t.Fatalf("a cannot admit work on bucket %d", x)
	}
	defer release()

	watch := watchOwnership(a, b)
	stopped := time.Now()
	a.cancel()
	select {
	case <-a.done:
		if a.err != nil {
			t.Errorf("a ended with %v", a.err)
		}
	case <-time.After(leaseDuration):
		t.Fatal("a did not give up at its shutdown timeout")
	}
	returned := time.Now()
	if d := returned.Sub(stopped); d < shutdown {
		t.Errorf("a left %s after it was told to stop, before its shutdown timeout of %s", d, shutdown)
	}
	if a.Owns(x) {
		t.Errorf("a still owns bucket %d after it left", x)
	}
	l, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), "listkeeper-member-a", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("a's Lease after an unclean leave: %v", err)
	}
	if claims, err := membership.DecodeBuckets(l.Annotations[membership.AnnotationBuckets], buckets); err != nil || !slices.Equal(claims, []int{x}) {
		t.Errorf("a's Lease claims %v (%v) after it left; want only the unfinished bucket %d", claims, err, x)
	}

	eventually(t, 3*leaseDuration, "b to take every bucket", func() error {
		if n := len(b.Held()); n != buckets {
			return fmt.Errorf("b holds %d", n)
		}
		return nil
	})
	watch.check(t)
	settles.check(t, []int{x}, stopped.Add(leaseDuration+lateWriteBound-3*renewPeriod/2), returned.Add(leaseDuration+lateWriteBound))
	for _, bk := range aBuckets[1:] {
		if s := b.SettleAfter(bk); !s.IsZero() {
			t.Errorf("b took bucket %d, which a handed over, with SettleAfter %s from now; want zero", bk, time.Until(s).Round(time.Millisecond))
		}
	}
}
