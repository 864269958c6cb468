package controller

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// Field names. listRefField and idField are both cache indexes and CRD
// selectable fields, so the same name works against the cache and, as a
// field selector, against the API server. secretRefField indexes
// ExternalLists by the Secret they read headers from.
const (
	listRefField   = "spec.listRef.name"
	idField        = "spec.id"
	secretRefField = "spec.headersFrom.secretRef.name"
	// documentField indexes ExternalLists by the document they name
	// (documentKey), for the lists that share a document's reference
	// counts. It exists only in the cache.
	documentField = "listkeeper.dev/document"
)

func indexEntries(ctx context.Context, idx client.FieldIndexer) error {
	if err := idx.IndexField(ctx, &v1alpha1.ListEntry{}, listRefField, func(o client.Object) []string {
		return []string{o.(*v1alpha1.ListEntry).Spec.ListRef.Name}
	}); err != nil {
		return fmt.Errorf("index %s: %w", listRefField, err)
	}
	if err := idx.IndexField(ctx, &v1alpha1.ListEntry{}, idField, func(o client.Object) []string {
		return []string{o.(*v1alpha1.ListEntry).Spec.ID}
	}); err != nil {
		return fmt.Errorf("index %s: %w", idField, err)
	}
	return nil
}

func indexLists(ctx context.Context, idx client.FieldIndexer) error {
	if err := idx.IndexField(ctx, &v1alpha1.ExternalList{}, secretRefField, func(o client.Object) []string {
		return o.(*v1alpha1.ExternalList).SecretNames()
	}); err != nil {
		return fmt.Errorf("index %s: %w", secretRefField, err)
	}
	if err := idx.IndexField(ctx, &v1alpha1.ExternalList{}, documentField, func(o client.Object) []string {
		return []string{documentKey(o.(*v1alpha1.ExternalList))}
	}); err != nil {
		return fmt.Errorf("index %s: %w", documentField, err)
	}
	return nil
}
