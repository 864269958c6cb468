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

package etagclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// ExampleNew changes a list document served by the bundled fake server:
// one Update removes and adds IDs, a second one that already holds costs no
// write, and everything outside the items array is kept as it was.
func ExampleNew() {
	api, err := fakeapi.New()
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(api)
	defer ts.Close()
	if _, err := api.Set("/lists/allow", []byte(`{"owner":"team-a","items":["web-1","web-2"],"ttl":1.50}`)); err != nil {
		panic(err)
	}

	c, err := etagclient.New(ts.URL+"/lists/allow", etagclient.WithItemsPointer("/items"))
	if err != nil {
		panic(err)
	}
	defer c.Close()

	ctx := context.Background()
	res, err := c.Update(ctx, etagclient.Change{Add: []string{"web-3"}, Remove: []string{"web-1"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("written:", res.Written, "items:", res.Items)

	res, err = c.Update(ctx, etagclient.Change{Remove: []string{"web-1"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("written:", res.Written, "items:", res.Items)

	body, _, _ := api.Get("/lists/allow")
	fmt.Println(string(body))
	// Output:
	// written: true items: 2
	// written: false items: 2
	// {"owner":"team-a","items":["web-2","web-3"],"ttl":1.50}
}

// ExampleApply shows the pure decision at the heart of every cycle: the
// changes of several callers applied, in order, to the items of one read.
func ExampleApply() {
	items := []string{"a", "b", "c"}
	out, changed := etagclient.Apply(items,
		etagclient.Change{Remove: []string{"b"}},
		etagclient.Change{Add: []string{"d", "a"}},
		etagclient.Change{Remove: []string{"x"}},
	)
	fmt.Println(out, changed)

	out, changed = etagclient.Apply(out, etagclient.Change{Add: []string{"d"}, Remove: []string{"b"}})
	fmt.Println(out, changed)
	// Output:
	// [a c d] true
	// [a c d] false
}
