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
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

const (
	// workers is how many goroutines create or delete entries at once.
	workers = 16
	// demoLabel marks the ListEntries the demo creates.
	demoLabel      = "listkeeper.dev/demo"
	demoLabelValue = "true"
)

// entryNames returns the names of n demo entries, demo-0000 onwards; each
// entry's ID is its name.
func entryNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("demo-%04d", i)
	}
	return names
}

// bystanderIDs returns the IDs that are on the list before the operator
// touches it and must stay there.
func bystanderIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("bystander-%02d", i)
	}
	return ids
}

// createEntries creates a ListEntry for each name, on list, concurrently.
// An entry that already exists counts as created.
func createEntries(ctx context.Context, c client.Client, namespace, list string, names []string) error {
	return forEach(ctx, names, func(ctx context.Context, name string) error {
		e := &v1alpha1.ListEntry{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{demoLabel: demoLabelValue}},
			Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: list}, ID: name},
		}
		if err := c.Create(ctx, e); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create ListEntry %s: %w", name, err)
		}
		return nil
	})
}

// deleteEntries deletes the named ListEntries concurrently. One that is
// already gone counts as deleted.
func deleteEntries(ctx context.Context, c client.Client, namespace string, names []string) error {
	return forEach(ctx, names, func(ctx context.Context, name string) error {
		e := &v1alpha1.ListEntry{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		if err := c.Delete(ctx, e); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete ListEntry %s: %w", name, err)
		}
		return nil
	})
}

// demoEntries lists the demo's ListEntries in namespace.
func demoEntries(ctx context.Context, c client.Client, namespace string) ([]v1alpha1.ListEntry, error) {
	var list v1alpha1.ListEntryList
	if err := c.List(ctx, &list, client.InNamespace(namespace), client.MatchingLabels{demoLabel: demoLabelValue}); err != nil {
		return nil, fmt.Errorf("list ListEntries: %w", err)
	}
	return list.Items, nil
}

// forEach calls fn for every name from workers goroutines. After the first
// error it hands out no more names, and returns that error.
func forEach(ctx context.Context, names []string, fn func(context.Context, string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for name := range work {
				if err := fn(ctx, name); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, name := range names {
		select {
		case work <- name:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return context.Cause(ctx)
}
