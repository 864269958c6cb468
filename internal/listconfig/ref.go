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

package listconfig

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/metrics"
)

// Ref names a list of either kind: an ExternalList (in a namespace) or a
// ClusterExternalList (Namespace "").
type Ref struct {
	Kind v1alpha1.ListKind
	types.NamespacedName
}

// RefOf returns the reference of l.
func RefOf(l v1alpha1.List) Ref {
	return Ref{Kind: l.ListKind(), NamespacedName: types.NamespacedName{Namespace: l.GetNamespace(), Name: l.GetName()}}
}

// Key is the reference as an index value: kind, namespace and name.
func (r Ref) Key() string { return string(r.Kind) + "/" + r.Namespace + "/" + r.Name }

// String names the list for messages: `ExternalList "name"` or
// `ClusterExternalList "name"` (an entry's ExternalList is in its own
// namespace).
func (r Ref) String() string { return fmt.Sprintf("%s %q", r.Kind, r.Name) }

// metric names the list in the per-list metrics.
func (r Ref) metric() metrics.List {
	return metrics.List{Namespace: r.Namespace, Name: r.Name, Kind: string(r.Kind)}
}
