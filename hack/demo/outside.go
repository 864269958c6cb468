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
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
	"github.com/listkeeper/listkeeper/test/e2e/harness/ownership"
)

const (
	// outsidePrefix and outsideCount name the IDs of the writer outside
	// listkeeper: outside-1 to outside-5.
	outsidePrefix = "outside"
	outsideCount  = 5
	// ownerWait bounds the wait for the replicas' buckets to settle before
	// the demo says who owns the list.
	ownerWait = 30 * time.Second
	// operatorAgent is the product of the User-Agent the operator's list
	// client sends (internal/etagclient), under which the fake server
	// counts its requests.
	operatorAgent = "listkeeper-etagclient"
)

// startOutside starts the writer outside listkeeper, when the store has
// one, for the length of a phase. The function it returns stops the writer
// and waits until its edit in progress has finished, so that what it left
// on the list and its request counts are exact; it may be called more than
// once.
func (d *demo) startOutside(ctx context.Context) (stop func() error) {
	if d.outside == nil {
		return func() error { return nil }
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.outside.Run(ctx) }()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
}

// ours returns items without the outside writer's IDs: what the operator
// alone is answerable for.
func (d *demo) ours(items []string) []string {
	if d.outside == nil {
		return items
	}
	return d.outside.Without(items)
}

// reportOwner says which replica writes the sample list's document: the
// one whose Lease claims the bucket of the document's ID. It waits until
// the replicas' buckets have settled; when they do not, or something
// cannot be read, it says so and the demo goes on.
func (d *demo) reportOwner(ctx context.Context) {
	c := d.cluster.Client
	id, err := ownership.ListDocumentID(ctx, c, client.ObjectKey{Namespace: namespace, Name: sampleList})
	if err != nil || id == "" {
		d.logf("list %s: owner unknown: no document ID (%v)", sampleList, err)
		return
	}
	n := membership.DefaultBuckets
	if err := harness.WaitMembers(ctx, c, d.sup, namespace, d.replicas, n, min(ownerWait, d.cfg.timeout)); err != nil {
		d.logf("list %s (document %.8s): owner unknown: %v", sampleList, id, err)
		return
	}
	leases, err := harness.ReadMemberLeases(ctx, c, namespace, n)
	if err != nil {
		d.logf("list %s (document %.8s): owner unknown: %v", sampleList, id, err)
		return
	}
	b := ownership.Bucket(id, n)
	owner, ok := harness.OwnerOf(leases, b)
	if !ok {
		d.logf("list %s (document %.8s): no single replica claims its bucket %d of %d", sampleList, id, b, n)
		return
	}
	d.logf("list %s (document %.8s) is owned by %s (bucket %d of %d, Lease %s)", sampleList, id, owner.Replica(), b, n, owner.Name)
}

// outsideReport is what the writer outside listkeeper did.
type outsideReport struct {
	ids    []string
	counts harness.OutsideCounts
}

// renderOutside writes what the outside writer did and left, and whose
// 412s the store answered.
func (s summary) renderOutside(w io.Writer) {
	o := s.outside
	fmt.Fprintf(w, "outside writer (%s..%s, one edit every %v-%v during the phases, If-Match, read again after a 412): %d edits committed, %d 412s, %d given up\n",
		o.ids[0], o.ids[len(o.ids)-1], harness.DefaultOutsideInterval, harness.DefaultOutsideInterval+harness.DefaultOutsideJitter,
		o.counts.Edits, o.counts.Conflicts, o.counts.GaveUp)
	var toOperator, toOutside []string
	var opTotal, outTotal int64
	known := true
	for _, p := range s.phases {
		if p.store.Agents == nil {
			known = false
			break
		}
		op, out := p.store.Agents[operatorAgent][412], p.store.Agents[harness.OutsideAgent][412]
		opTotal, outTotal = opTotal+op, outTotal+out
		toOperator = append(toOperator, fmt.Sprintf("%s %d", p.name, op))
		toOutside = append(toOutside, fmt.Sprintf("%s %d", p.name, out))
	}
	if known {
		fmt.Fprintf(w, "412s answered to listkeeper: %d (%s); answered to the outside writer: %d (%s)\n",
			opTotal, strings.Join(toOperator, ", "), outTotal, strings.Join(toOutside, ", "))
	} else {
		fmt.Fprintf(w, "412s: the store cannot tell its clients apart; see the phase table for the total\n")
	}
	f := s.final
	if f == nil {
		fmt.Fprintf(w, "the outside writer's IDs: not checked, the phases did not all finish\n")
		return
	}
	left := "none"
	if len(f.outsideLeft) > 0 {
		left = strings.Join(f.outsideLeft, ", ")
	}
	verdict := "all still there, and none of the IDs it removed came back"
	if len(f.outsideMissing)+len(f.outsideUnexpected) > 0 {
		verdict = fmt.Sprintf("WRONG: %d gone%s, %d it removed are back%s",
			len(f.outsideMissing), harness.IDList(f.outsideMissing), len(f.outsideUnexpected), harness.IDList(f.outsideUnexpected))
	}
	fmt.Fprintf(w, "it left on the list: %s; %s\n", left, verdict)
}
