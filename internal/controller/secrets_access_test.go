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
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestSecretsCachedWithoutAnnotations: the operator watches Secrets'
// metadata, and the cache kept their annotations, which can hold a copy of
// their data (kubectl apply's last-applied-configuration). The cache now
// keeps neither annotations nor managed fields of Secrets.
func TestSecretsCachedWithoutAnnotations(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	rep := startManager(t, managerConfig{namespace: ns})
	const planted = `{"data":{"Authorization":"QmVhcmVyIGxlYWtlZA=="}}`
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "auth", Namespace: ns,
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": planted}},
		StringData: map[string]string{"Authorization": "Bearer x"}})
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	eventually(t, waitTimeout, "the Secret in the manager's cache", func() error {
		return rep.mgr.GetCache().Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "auth"}, meta)
	})
	if len(meta.Annotations) != 0 || len(meta.ManagedFields) != 0 {
		t.Fatalf("the cache keeps a Secret's annotations %v and %d managed fields", meta.Annotations, len(meta.ManagedFields))
	}
	if meta.ResourceVersion == "" {
		t.Fatal("the cached metadata has no resourceVersion: rotations could not be noticed")
	}
}

// secretRequests records the verbs the manager used on Secrets.
type secretRequests struct {
	mu    sync.Mutex
	verbs map[string]int
}

func (s *secretRequests) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.Contains(r.URL.Path, "/secrets") {
			verb := r.Method
			switch {
			case r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true":
				verb = "WATCH"
			case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/secrets"):
				verb = "LIST"
			}
			s.mu.Lock()
			s.verbs[verb]++
			s.mu.Unlock()
		}
		return next.RoundTrip(r)
	})
}

func (s *secretRequests) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprint(s.verbs)
}

// TestSecretAccessGet: in the least-privilege mode the operator only gets
// the Secrets lists name: no list, no watch. A rotated Secret is used within
// the refresh interval.
func TestSecretAccessGet(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	rec := &secretRequests{verbs: map[string]int{}}
	cfg := rest.CopyConfig(restConfig)
	cfg.WrapTransport = rec.wrap
	startManager(t, managerConfig{namespace: ns, restConfig: cfg, secretAccess: SecretAccessGet, secretRefresh: 2 * time.Second})
	var (
		mu   sync.Mutex
		seen []string
	)
	lists := newFakeServer(t, fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		return fakeapi.Fault{}
	}))
	setDoc(t, lists.srv, "/list", []string{})
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "key", Namespace: ns}, StringData: map[string]string{"X-Api-Key": "one"}})
	xl := newExternalList(ns, "allow", lists.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "key"}}
		s.AllowInsecureHTTP = true
	})
	create(t, xl)
	createSynced(t, ns, "allow", "a")

	secret := &corev1.Secret{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKey{Namespace: ns, Name: "key"}, secret); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(secret.DeepCopy())
	secret.Data = map[string][]byte{"X-Api-Key": []byte("two")}
	if err := k8sClient.Patch(ctxFor(t), secret, patch); err != nil {
		t.Fatal(err)
	}
	rotated := time.Now()
	eventually(t, waitTimeout, "the rotated key in use", func() error {
		e := newListEntry(ns, fmt.Sprintf("e-%d", time.Now().UnixNano()), "allow", fmt.Sprintf("id-%d", time.Now().UnixNano()))
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		mu.Lock()
		defer mu.Unlock()
		if seen[len(seen)-1] != "two" {
			return errors.New("still the old key")
		}
		return nil
	})
	t.Logf("the rotated key was used %v after the rotation; Secret requests: %s", time.Since(rotated).Round(time.Millisecond), rec)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.verbs["LIST"] != 0 || rec.verbs["WATCH"] != 0 {
		t.Errorf("the manager listed or watched Secrets in get mode: %v", rec.verbs)
	}
	if rec.verbs[http.MethodGet] == 0 {
		t.Errorf("the manager never got a Secret: %v", rec.verbs)
	}
}
