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
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestHungServersDoNotHoldTheWorkers: reconciles had no deadline, so a few
// lists on a server that never answers (or behind a token endpoint that
// never answers) held every ExternalList worker until the request timeout,
// and a healthy list waited behind them. Every reconcile now ends by its
// deadline.
func TestHungServersDoNotHoldTheWorkers(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	hung := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hung:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(hung) }) // runs first: Close waits for handlers
	startManager(t, managerConfig{namespace: ns, maxConcurrent: 2, reconcileTimeout: time.Second,
		clientOptions: []etagclient.Option{etagclient.WithRequestTimeout(time.Minute)}})
	for _, name := range []string{"hung-1", "hung-2", "hung-3", "hung-4", "hung-5", "hung-6"} {
		create(t, newExternalList(ns, name, hs.URL+"/"+name))
	}
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/ok", []string{})
	start := time.Now()
	ok := newExternalList(ns, "healthy", lists.url+"/ok")
	create(t, ok)
	waitCondition(t, ok, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, 20*time.Second)
	t.Logf("the healthy list was Ready %v after it was created, beside 6 lists on a server that never answers, with 2 workers",
		time.Since(start).Round(time.Millisecond))
	c := waitCondition(t, newExternalList(ns, "hung-1", ""), v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, 20*time.Second)
	t.Logf("a hung list says: %s", c.Message)
}
