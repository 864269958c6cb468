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
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
	"github.com/listkeeper/listkeeper/test/e2e/harness/ownership"
)

// documentBucket returns the bucket that the document of the ExternalList
// namespace/name falls in: the replica whose Lease claims it writes the
// document, for every entry of the list.
func documentBucket(ctx context.Context, namespace, name string) (int, error) {
	id, err := ownership.ListDocumentID(ctx, suite.cluster.Client, client.ObjectKey{Namespace: namespace, Name: name})
	if err != nil {
		return 0, err
	}
	if id == "" {
		return 0, fmt.Errorf("ExternalList %s/%s names no document", namespace, name)
	}
	return ownership.Bucket(id, membership.DefaultBuckets), nil
}

// ownerOf returns the replica, of managers, whose Lease in the env's
// namespace claims bucket b, and its Lease. Only the newest Lease of each
// of managers counts: a paused or killed replica that is not among them
// may still have a Lease that claims the bucket.
func (e *env) ownerOf(ctx context.Context, b int, managers []*harness.Manager) (*harness.Manager, harness.MemberLease, error) {
	all, err := harness.ReadMemberLeases(ctx, suite.cluster.Client, e.namespace, membership.DefaultBuckets)
	if err != nil {
		return nil, harness.MemberLease{}, err
	}
	leases := harness.LeasesOf(all, names(managers)...)
	l, ok := harness.OwnerOf(leases, b)
	if !ok {
		return nil, harness.MemberLease{}, fmt.Errorf("no single Lease of %v claims bucket %d: %v", names(managers), b, harness.CoverageOf(leases, membership.DefaultBuckets))
	}
	for _, m := range managers {
		if l.Of(m.Name()) {
			return m, l, nil
		}
	}
	return nil, l, fmt.Errorf("bucket %d is claimed by Lease %s (holder %s), of none of the replicas %v", b, l.Name, l.Holder, names(managers))
}

// listOwner returns the replica that writes the document of the env's
// list, of managers, and the others.
func (e *env) listOwner(ctx context.Context, managers []*harness.Manager) (owner *harness.Manager, others []*harness.Manager, bucket int, err error) {
	if bucket, err = documentBucket(ctx, e.list.Namespace, e.list.Name); err != nil {
		return nil, nil, 0, err
	}
	if owner, _, err = e.ownerOf(ctx, bucket, managers); err != nil {
		return nil, nil, bucket, err
	}
	for _, m := range managers {
		if m != owner {
			others = append(others, m)
		}
	}
	return owner, others, bucket, nil
}
