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
