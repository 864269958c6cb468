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

package ownership

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/membership"
)

// ListDocumentID returns the document ID of the ExternalList at key (see
// internal/listconfig/document.go): its status.documentID once the
// operator has published one, else the ID of its spec.url
// (listconfig.DocumentIDOfURL), "" when that is not an http or https URL.
// It reads the object unstructured, so that it finds status.documentID
// whether or not the Go types it was built with know the field.
func ListDocumentID(ctx context.Context, c client.Client, key client.ObjectKey) (string, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("ExternalList"))
	if err := c.Get(ctx, key, u); err != nil {
		return "", fmt.Errorf("get ExternalList %s: %w", key, err)
	}
	return DocumentIDOf(u.Object), nil
}

// DocumentIDOf is ListDocumentID of an ExternalList already read as a
// map (unstructured content).
func DocumentIDOf(obj map[string]any) string {
	if id, _, _ := unstructured.NestedString(obj, "status", "documentID"); id != "" {
		return id
	}
	url, _, _ := unstructured.NestedString(obj, "spec", "url")
	return listconfig.DocumentIDOfURL(url)
}

// Bucket is the bucket, of n, that the work of the document with
// documentID falls in: whoever holds it writes the document.
func Bucket(documentID string, n int) int {
	return membership.Bucket(listconfig.DocumentBucketKey(documentID), n)
}
