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

package harness

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// DefaultWorkers is how many goroutines create or delete entries at once.
const DefaultWorkers = 16

// Entries is a set of ListEntries that a run creates and deletes: they
// live in Namespace, point at the list List (of kind Kind) and carry
// Labels; the ID of each one that Create makes is ID(name), its name
// unless ID says otherwise, and CreateHolder takes any. It is safe for
// concurrent use.
type Entries struct {
	Client    client.Client
	Namespace string
	List      string
	// Kind is the kind of List: an ExternalList in Namespace (the
	// default) or a ClusterExternalList.
	Kind v1alpha1.ListKind
	// Labels mark the entries; Existing and Count select by them. Required.
	Labels map[string]string
	// Workers is how many goroutines create or delete at once; default
	// DefaultWorkers.
	Workers int
	// ID maps an entry's name to the ID that Create gives it, for a list
	// whose IDs have a form of their own that a name cannot take (a WAF IP
	// set holds CIDRs). It must give distinct names distinct IDs, and be
	// safe for concurrent use. Default: the name itself.
	ID func(name string) string
}

// IDOf returns the ID that Create gives the entry called name.
func (e Entries) IDOf(name string) string {
	if e.ID == nil {
		return name
	}
	return e.ID(name)
}

// IDsOf returns the IDs that Create gives the entries called names, in
// their order.
func (e Entries) IDsOf(names []string) []string {
	ids := make([]string, len(names))
	for i, name := range names {
		ids[i] = e.IDOf(name)
	}
	return ids
}

// Create creates a ListEntry for each name concurrently, holding
// IDOf(name). An entry that already exists counts as created.
func (e Entries) Create(ctx context.Context, names []string) error {
	return ForEach(ctx, orDefault(e.Workers, DefaultWorkers), names, func(ctx context.Context, name string) error {
		_, err := e.CreateHolder(ctx, name, e.IDOf(name))
		return err
	})
}

// Delete deletes the named ListEntries concurrently. One that is already
// gone counts as deleted.
func (e Entries) Delete(ctx context.Context, names []string) error {
	return ForEach(ctx, orDefault(e.Workers, DefaultWorkers), names, func(ctx context.Context, name string) error {
		_, err := e.DeleteOne(ctx, name)
		return err
	})
}

// CreateHolder creates one ListEntry called name that holds id (several
// entries may hold one ID). created is false when an entry of that name
// exists already, perhaps still being deleted.
func (e Entries) CreateHolder(ctx context.Context, name, id string) (created bool, err error) {
	le := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace, Labels: e.Labels},
		Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Kind: e.Kind, Name: e.List}, ID: id},
	}
	switch err := e.Client.Create(ctx, le); {
	case apierrors.IsAlreadyExists(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("create ListEntry %s: %w", name, err)
	}
	return true, nil
}

// DeleteOne deletes the named ListEntry. deleted is false when it was
// already gone; an entry that is already being deleted counts as deleted.
func (e Entries) DeleteOne(ctx context.Context, name string) (deleted bool, err error) {
	le := &v1alpha1.ListEntry{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace}}
	switch err := e.Client.Delete(ctx, le); {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("delete ListEntry %s: %w", name, err)
	}
	return true, nil
}

// DeleteUnchanged deletes the named ListEntry as it reads it now: the
// deletion carries the entry's UID and resourceVersion as preconditions,
// and is tried again, on a fresh read, when the entry changed meanwhile.
// The API server decides whether a deletion waits for finalizers on the
// object it read first; without a precondition, a finalizer that another
// client's patch put on the entry after that read does not hold the
// deletion up. deleted is false when the entry was already gone; an
// entry already being deleted counts as deleted.
func (e Entries) DeleteUnchanged(ctx context.Context, name string) (deleted bool, err error) {
	for {
		le := &v1alpha1.ListEntry{}
		switch err := e.Client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: name}, le); {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("get ListEntry %s: %w", name, err)
		}
		if le.DeletionTimestamp != nil {
			return true, nil
		}
		uid, rv := le.UID, le.ResourceVersion
		switch err := e.Client.Delete(ctx, le, client.Preconditions{UID: &uid, ResourceVersion: &rv}); {
		case err == nil:
			return true, nil
		case apierrors.IsNotFound(err):
			return false, nil
		case apierrors.IsConflict(err):
			continue // changed since the read: read it again
		default:
			return false, fmt.Errorf("delete ListEntry %s: %w", name, err)
		}
	}
}

// Gone reports whether the named ListEntry does not exist (an entry
// being deleted still exists).
func (e Entries) Gone(ctx context.Context, name string) (bool, error) {
	le := &v1alpha1.ListEntry{}
	switch err := e.Client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: name}, le); {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("get ListEntry %s: %w", name, err)
	}
	return false, nil
}

// Existing returns the set's ListEntries that exist, including those
// being deleted.
func (e Entries) Existing(ctx context.Context) ([]v1alpha1.ListEntry, error) {
	var list v1alpha1.ListEntryList
	if err := e.Client.List(ctx, &list, client.InNamespace(e.Namespace), client.MatchingLabels(e.Labels)); err != nil {
		return nil, fmt.Errorf("list ListEntries: %w", err)
	}
	return list.Items, nil
}

// Count counts the set's ListEntries that exist, reading only their
// metadata, which is cheaper than List for large sets.
func (e Entries) Count(ctx context.Context) (int, error) {
	var list metav1.PartialObjectMetadataList
	list.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("ListEntryList"))
	if err := e.Client.List(ctx, &list, client.InNamespace(e.Namespace), client.MatchingLabels(e.Labels)); err != nil {
		return 0, fmt.Errorf("list ListEntries: %w", err)
	}
	return len(list.Items), nil
}

// EntryNames returns n names prefix-0000 onwards.
func EntryNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return names
}

// BystanderIDs returns n IDs bystander-00 onwards: IDs that are on a list
// before the operator touches it and must stay there, in order.
func BystanderIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("bystander-%02d", i)
	}
	return ids
}

// ForEach calls fn for every name from workers goroutines. After the first
// error it hands out no more names, and returns that error.
func ForEach(ctx context.Context, workers int, names []string, fn func(context.Context, string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan string)
	var wg sync.WaitGroup
	for range max(workers, 1) {
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
