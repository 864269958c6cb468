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

package iamfake_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	crm "google.golang.org/api/cloudresourcemanager/v3"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestOverlap: two writers read the same etag and write; Overlap holds
// the first write until the second has reached the Server, so the race
// happens for certain: one write commits, the other is 409 ABORTED.
func TestOverlap(t *testing.T) {
	o := iamfake.NewOverlap(10 * time.Second)
	e := start(t, iamfake.WithWriteHook(o.Hold), iamfake.WithOverlapHook(o.Meet))
	seed(t, e.srv, "projects/p", projectPolicy())
	read := getV3(t, e, "projects/p")

	codes := make(chan int, 2)
	var wg sync.WaitGroup
	for _, m := range []string{"user:a@example.com", "user:b@example.com"} {
		wg.Go(func() {
			p := *read
			p.Bindings = append([]*crm.Binding{{Role: "roles/editor", Members: []string{m}}}, read.Bindings...)
			_, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: &p})
			if err == nil {
				codes <- http.StatusOK
				return
			}
			codes <- apiError(t, err, http.StatusConflict).Code
		})
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for c := range codes {
		got[c]++
	}
	if got[http.StatusOK] != 1 || got[http.StatusConflict] != 1 {
		t.Errorf("answers %v, want one 200 and one 409", got)
	}
	if !o.Met() {
		t.Error("the second write never met the held one")
	}
	if c := e.srv.Commits(); c != 1 {
		t.Errorf("%d commits, want 1", c)
	}
}
