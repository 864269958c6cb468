package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// CacheTransform is the manager cache's transform (cache.Options
// DefaultTransform): it drops what the operator never reads before an
// object is cached. Every object loses its managed fields. A metadata-only
// object loses its annotations too: the only ones the operator caches are
// Secrets', whose annotations can hold a copy of their data
// (kubectl.kubernetes.io/last-applied-configuration).
func CacheTransform(obj any) (any, error) {
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata:
		o.ManagedFields = nil
		o.Annotations = nil
	case metav1.Object:
		o.SetManagedFields(nil)
	}
	return obj, nil
}

var _ toolscache.TransformFunc = CacheTransform
