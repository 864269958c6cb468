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
	"time"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// conflictRequeue is how soon an object whose write met a newer version (an
// optimistic-lock conflict) is reconciled again, from a fresher cache.
const conflictRequeue = 200 * time.Millisecond

// requeueOnConflict turns an optimistic-lock conflict into a prompt retry
// from a fresher cache instead of an error.
func requeueOnConflict(err error) (ctrl.Result, error) {
	if err != nil && apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	}
	return ctrl.Result{}, err
}

// controllerOptions are a controller's options: workers (at least one),
// the deadline of each reconcile (timeout; none when 0) and the work
// queue's rate limiter, when newRateLimiter is set.
func controllerOptions(workers int, timeout time.Duration, newRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]) crcontroller.Options {
	o := crcontroller.Options{MaxConcurrentReconciles: max(1, workers), ReconciliationTimeout: timeout}
	if newRateLimiter != nil {
		o.RateLimiter = newRateLimiter()
	}
	return o
}

// statusRefreshInterval is how often a list's status (reachability, ETag,
// counts) is refreshed between resyncs. A refresh costs one conditional
// GET, usually answered 304.
const statusRefreshInterval = time.Minute

// listRateLimiter is the list controllers' default work-queue rate limiter:
// controller-runtime's (per-item exponential backoff from 5 ms, and an
// overall 10/s, burst 100), but with the backoff capped at
// statusRefreshInterval instead of 1,000 s. A list that failed for a while
// keeps being checked every minute, so it sees the end of an outage within
// a minute; its entries, queued when it turns Ready, follow at once.
func listRateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, statusRefreshInterval),
		&workqueue.TypedBucketRateLimiter[reconcile.Request]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}
