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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// Reconcile requests, as `flux reconcile` makes them: the plugin sets
// v1alpha1.ReconcileRequestedAtAnnotation to the time, and the operator
// records the value it handled in status.lastHandledReconcileAt. A list
// records it once the resync it asked for succeeded; an entry once its
// change was submitted again, which an entry whose list is missing or does
// not admit it never is (internal/controller/entry_controller.go).

// Defaults of reconcileOptions.
const (
	// defaultReconcileTimeout is how long `reconcile` waits (--timeout).
	defaultReconcileTimeout = time.Minute
	// defaultPollInterval is how often `reconcile` reads the object while
	// it waits.
	defaultPollInterval = 500 * time.Millisecond
)

// reconcileOptions are the flags of `reconcile`.
type reconcileOptions struct {
	// Timeout bounds the wait; default defaultReconcileTimeout.
	Timeout time.Duration
	// Interval is the polling period; default defaultPollInterval.
	Interval time.Duration
}

// observed is what `reconcile` reads of the object while it waits.
type observed struct {
	handled string
	ready   *metav1.Condition
	stalled *metav1.Condition
}

func observe(obj any) observed {
	var conds []metav1.Condition
	var o observed
	switch x := obj.(type) {
	case *v1alpha1.ListEntry:
		conds, o.handled = x.Status.Conditions, x.Status.LastHandledReconcileAt
	case v1alpha1.List:
		conds, o.handled = x.ListStatus().Conditions, x.ListStatus().LastHandledReconcileAt
	}
	o.ready = meta.FindStatusCondition(conds, v1alpha1.ConditionReady)
	o.stalled = meta.FindStatusCondition(conds, v1alpha1.ConditionStalled)
	return o
}

func (o observed) isStalled() bool {
	return o.stalled != nil && o.stalled.Status == metav1.ConditionTrue
}

// done reports whether the request with value was handled and has an
// outcome: an entry whose change is still in flight (Ready=Unknown) is
// waited for.
func (o observed) done(value string) bool {
	return o.handled == value && (o.ready == nil || o.ready.Status != metav1.ConditionUnknown)
}

// runReconcile asks the operator to reconcile the object r names now, and
// waits until it has.
func runReconcile(ctx context.Context, e *env, r ref, o reconcileOptions) error {
	if o.Timeout <= 0 {
		o.Timeout = defaultReconcileTimeout
	}
	if o.Interval <= 0 {
		o.Interval = defaultPollInterval
	}
	obj := r.object()
	if err := e.c.Get(ctx, r.key(), obj); err != nil {
		return fmt.Errorf("get %s: %w", r, err)
	}
	before := observe(obj)
	value := e.now().UTC().Format(time.RFC3339Nano)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, v1alpha1.ReconcileRequestedAtAnnotation, value)
	if err := e.c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("annotate %s: %w", r, err)
	}
	fmt.Fprintf(e.out, "annotated %s with %s=%s\n", r, v1alpha1.ReconcileRequestedAtAnnotation, value)
	if before.isStalled() {
		fmt.Fprintf(e.out, "note: it is Stalled (%s) and may record the request only once the cause is fixed; this waits up to --timeout\n", before.stalled.Reason)
	}
	fmt.Fprintf(e.out, "waiting up to %s for status.lastHandledReconcileAt\n", o.Timeout)

	start := time.Now()
	// last is what the last successful read saw; readErr is the last
	// read's error while none has succeeded since the request (after one
	// has, a failing read is transient: the wait goes on).
	last, read := before, false
	var readErr error
	err := wait.PollUntilContextTimeout(ctx, o.Interval, o.Timeout, true, func(ctx context.Context) (bool, error) {
		obj := r.object()
		if err := e.c.Get(ctx, r.key(), obj); err != nil {
			if apierrors.IsNotFound(err) {
				return false, fmt.Errorf("%s was deleted while waiting: %w", r, err)
			}
			if !read {
				readErr = err
			}
			return false, nil
		}
		last, read, readErr = observe(obj), true, nil
		return last.done(value), nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("stopped waiting for %s: %w", r, context.Cause(ctx))
		}
		return waitError(r, value, o.Timeout, last, readErr, err)
	}
	fmt.Fprintf(e.out, "handled after %s\n", time.Since(start).Round(time.Millisecond))
	return outcome(e.out, r, last.ready)
}

// outcome prints Ready, and returns an error when it is not True.
func outcome(w io.Writer, r ref, ready *metav1.Condition) error {
	if ready == nil {
		fmt.Fprintln(w, "Ready: no condition yet")
		return nil
	}
	fmt.Fprintf(w, "Ready: %s (%s): %s\n", ready.Status, ready.Reason, ready.Message)
	if ready.Status == metav1.ConditionTrue {
		return nil
	}
	return fmt.Errorf("%s is not ready (%s); kubectl listkeeper why %s says more", r, ready.Reason, r.arg())
}

// waitError says why the wait ended without an answer, with what was seen
// last, and readErr when the object could not be read since the request.
func waitError(r ref, value string, timeout time.Duration, last observed, readErr, err error) error {
	if !wait.Interrupted(err) {
		return err
	}
	var b strings.Builder
	if last.handled == value {
		fmt.Fprintf(&b, "timed out after %s: %s handled the request, but its change is still in flight", timeout, r)
	} else {
		fmt.Fprintf(&b, "timed out after %s: %s has status.lastHandledReconcileAt %q, not %q", timeout, r, last.handled, value)
	}
	if last.ready != nil {
		fmt.Fprintf(&b, "; Ready is %s (%s): %s", last.ready.Status, last.ready.Reason, last.ready.Message)
	}
	if readErr != nil {
		fmt.Fprintf(&b, "; reading it failed: %v", readErr)
	}
	switch {
	case last.handled == value:
	case r.Kind != kindListEntry:
		b.WriteString("; a list records the request only once the resync it asked for succeeds")
	case last.isStalled():
		b.WriteString("; an entry whose list is missing or does not admit it records the request only once that is fixed")
	}
	return fmt.Errorf("%s: %w", b.String(), err)
}
