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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// ListObject describes an ExternalList to create for a list server's
// document, with the Secret that carries the server's token.
type ListObject struct {
	Namespace string
	Name      string
	// Server and Path are the list server and the document's URL path.
	Server *ListServer
	Path   string
	// ItemsPointer is spec.itemsPointer; default "/items", what Document
	// reads.
	ItemsPointer string
	// ResyncInterval is spec.resyncInterval; 0 leaves the default.
	ResyncInterval time.Duration
}

// EnsureNamespace creates the namespace unless it exists.
func EnsureNamespace(ctx context.Context, c client.Client, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// Create creates the ExternalList and, when the server has a token, a
// Secret <name>-auth with its Authorization header.
func (o ListObject) Create(ctx context.Context, c client.Client) error {
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec:       v1alpha1.ExternalListSpec{URL: o.Server.URL(o.Path), ItemsPointer: orDefault(o.ItemsPointer, "/items")},
	}
	if o.ResyncInterval > 0 {
		xl.Spec.ResyncInterval = &metav1.Duration{Duration: o.ResyncInterval}
	}
	if token := o.Server.Token(); token != "" {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name + "-auth"},
			StringData: map[string]string{"Authorization": "Bearer " + token},
		}
		if err := c.Create(ctx, secret); err != nil {
			return fmt.Errorf("create Secret %s: %w", secret.Name, err)
		}
		xl.Spec.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: secret.Name}}
		// The harness's list servers speak plain http on loopback.
		xl.Spec.AllowInsecureHTTP = true
	}
	if err := c.Create(ctx, xl); err != nil {
		return fmt.Errorf("create ExternalList %s: %w", o.Name, err)
	}
	return nil
}

// WaitReady waits until the ExternalList is Ready=True, a child of sup
// exits early, ctx ends or timeout passes.
func (o ListObject) WaitReady(ctx context.Context, c client.Client, sup *Supervisor, timeout time.Duration) error {
	var last string
	err := Poll(ctx, sup, timeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		var xl v1alpha1.ExternalList
		if err := c.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, &xl); err != nil {
			last = err.Error()
			return false, err // not fatal: Poll tries again
		}
		cond := meta.FindStatusCondition(xl.Status.Conditions, v1alpha1.ConditionReady)
		if cond == nil {
			last = "no Ready condition"
			return false, nil
		}
		last = fmt.Sprintf("Ready=%s %s: %s", cond.Status, cond.Reason, cond.Message)
		return cond.Status == metav1.ConditionTrue, nil
	})
	if err != nil {
		return fmt.Errorf("ExternalList %s/%s not Ready: %w (%s)", o.Namespace, o.Name, err, last)
	}
	return nil
}
