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

package controller

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// workQueue keeps a controller's work queue, which controller-runtime hands
// over through a raw source when the controller starts, so that events from
// outside its watches (a change's completion, buckets taken over) can queue
// objects. It is safe for concurrent use.
type workQueue struct {
	q atomic.Pointer[workqueue.TypedRateLimitingInterface[reconcile.Request]]
}

// source captures the queue; pass it to WatchesRawSource.
func (w *workQueue) source() source.TypedSource[reconcile.Request] {
	return source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		w.q.Store(&q)
		return nil
	})
}

// add queues req; before the controller started it does nothing (its
// initial list queues every object anyway).
func (w *workQueue) add(req reconcile.Request) {
	if q := w.q.Load(); q != nil {
		(*q).Add(req)
	}
}

// addAfter queues req after d (see add).
func (w *workQueue) addAfter(req reconcile.Request, d time.Duration) {
	if q := w.q.Load(); q != nil {
		(*q).AddAfter(req, d)
	}
}

// started reports whether the controller handed its queue over.
func (w *workQueue) started() bool { return w.q.Load() != nil }

// addInBuckets queues, of n objects, those whose bucket is one of gained.
// object(i) returns the bucket and the request of object i.
func (w *workQueue) addInBuckets(gained []int, n int, object func(i int) (int, reconcile.Request)) {
	want := make(map[int]bool, len(gained))
	for _, b := range gained {
		want[b] = true
	}
	for i := range n {
		if b, req := object(i); want[b] {
			w.add(req)
		}
	}
}
