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

package ipgroupfake_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// TestManyWriters: writers that each add their own address by
// read-modify-write with If-Match, and read again after a 412, all land:
// the etag check and the write are one step, so no update is lost. Run
// with -race, it also checks the Server's locking.
func TestManyWriters(t *testing.T) {
	const writers = 6
	s := start(t)
	if _, err := s.CreateGroup(rg, "shared", "westeurope", nil); err != nil {
		t.Fatal(err)
	}
	c := client(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			mine := fmt.Sprintf("198.51.100.%d", i)
			for range 50 {
				read, err := c.Get(t.Context(), rg, "shared", nil)
				if err != nil {
					errs <- err
					return
				}
				next := group("westeurope", append(addresses(read.IPGroup), mine)...)
				_, err = put(ifMatch(t.Context(), str(read.Etag)), c, "shared", next)
				var re *azcore.ResponseError
				if errors.As(err, &re) && re.StatusCode == http.StatusPreconditionFailed {
					continue
				}
				errs <- err
				return
			}
			errs <- fmt.Errorf("writer %d never got its write in", i)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	g, _ := s.Group(rg, "shared")
	slices.Sort(g.Addresses)
	var want []string
	for i := range writers {
		want = append(want, fmt.Sprintf("198.51.100.%d", i))
	}
	slices.Sort(want)
	if !equal(g.Addresses, want) {
		t.Errorf("addresses = %v, want every writer's: %v", g.Addresses, want)
	}
	st := s.Stats()
	if st.Writes != writers {
		t.Errorf("%d writes accepted, want %d", st.Writes, writers)
	}
	t.Logf("%d writers: %d writes, %d refused with 412", writers, st.Writes, st.PreconditionFailures())
}
