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
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestWritePreservesDocument checks that a write changes the items array
// and nothing else, byte for byte: other keys, their order, nested objects,
// number spellings such as 1.50, string escapes and white space. Removal
// keeps the order of what remains; additions go at the end.
func TestWritePreservesDocument(t *testing.T) {
	tests := []struct {
		name    string
		pointer string
		doc     string
		change  etagclient.Change
		want    string
	}{
		{
			name:   "the document is the array",
			doc:    `["a","b","c"]`,
			change: etagclient.Change{Remove: []string{"b"}, Add: []string{"d"}},
			want:   `["a","c","d"]`,
		},
		{
			name:   "white space around the array survives",
			doc:    " \n\t[ \"a\" ,\n  \"b\" ]  \n",
			change: etagclient.Change{Add: []string{"c"}},
			want:   " \n\t[\"a\",\"b\",\"c\"]  \n",
		},
		{
			name:    "other keys, nested objects and number spellings",
			pointer: "/items",
			doc: `{"name": "fw-1", "price": 1.50, "big": 1e3, "neg": -0.0, "esc": "caf\u00e9 \"q\" \/",` + "\n" +
				`  "items" : [ "a", "b", "c" ] ,` + "\n" +
				`  "meta": {"nested": {"n": [1, 2.0, 3.000], "t": true, "f": false, "z": null}, "items": ["b"]}}` + "\n",
			change: etagclient.Change{Remove: []string{"b"}, Add: []string{"d"}},
			want: `{"name": "fw-1", "price": 1.50, "big": 1e3, "neg": -0.0, "esc": "caf\u00e9 \"q\" \/",` + "\n" +
				`  "items" : ["a","c","d"] ,` + "\n" +
				`  "meta": {"nested": {"n": [1, 2.0, 3.000], "t": true, "f": false, "z": null}, "items": ["b"]}}` + "\n",
		},
		{
			name:    "a nested pointer touches only its array",
			pointer: "/spec/allow",
			doc:     `{"spec":{"deny":["b"],"allow":["a","b","c"],"ttl":1.50},"status":{"items":["b"]}}`,
			change:  etagclient.Change{Remove: []string{"b"}},
			want:    `{"spec":{"deny":["b"],"allow":["a","c"],"ttl":1.50},"status":{"items":["b"]}}`,
		},
		{
			name:    "escaped pointer tokens",
			pointer: "/a~1b/m~0n",
			doc:     `{"a/b":{"m~n":["x"],"mn":["y"]},"a":{"b":["z"]}}`,
			change:  etagclient.Change{Add: []string{"w"}},
			want:    `{"a/b":{"m~n":["x","w"],"mn":["y"]},"a":{"b":["z"]}}`,
		},
		{
			name:    "a pointer through an array index",
			pointer: "/lists/1",
			doc:     `{"lists":[["a"],["b","c"],["d"]]}`,
			change:  etagclient.Change{Remove: []string{"c"}, Add: []string{"a"}},
			want:    `{"lists":[["a"],["b","a"],["d"]]}`,
		},
		{
			name:   "removal keeps the order of what remains",
			doc:    `["e","d","c","b","a"]`,
			change: etagclient.Change{Remove: []string{"d", "b"}},
			want:   `["e","c","a"]`,
		},
		{
			name:   "removal drops every duplicate",
			doc:    `["x","a","x","b","x"]`,
			change: etagclient.Change{Remove: []string{"x"}},
			want:   `["a","b"]`,
		},
		{
			name:   "additions go at the end, in order",
			doc:    `["z"]`,
			change: etagclient.Change{Add: []string{"m", "a", "z"}},
			want:   `["z","m","a"]`,
		},
		{
			name:    "into an empty array",
			pointer: "/items",
			doc:     `{"items":[],"v":2}`,
			change:  etagclient.Change{Add: []string{"x", "y"}},
			want:    `{"items":["x","y"],"v":2}`,
		},
		{
			name:    "removing the last ID leaves an empty array",
			pointer: "/items",
			doc:     `{"v":2,"items":["x"]}`,
			change:  etagclient.Change{Remove: []string{"x"}},
			want:    `{"v":2,"items":[]}`,
		},
		{
			name:   "IDs are written without HTML escaping",
			doc:    `["a"]`,
			change: etagclient.Change{Add: []string{"<b>&c", "é"}},
			want:   `["a","<b>&c","é"]`,
		},
		{
			name:    "RetainOnly removes the rest, then Add appends",
			doc:     `{"items":["a","b","c"],"x":1.50}`,
			pointer: "/items",
			change:  etagclient.Change{RetainOnly: []string{"c", "a"}, Add: []string{"d"}},
			want:    `{"items":["a","c","d"],"x":1.50}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFake(t)
			e.set(t, tt.doc)
			c := newClient(t, e.url, etagclient.WithItemsPointer(tt.pointer))
			res, err := c.Update(context.Background(), tt.change)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if got := e.body(t); got != tt.want {
				t.Errorf("stored document:\n got %q\nwant %q", got, tt.want)
			}
			if want := len(itemsOf(t, []byte(tt.want), tt.pointer)); res.Items != want || !res.Written {
				t.Errorf("Result = %+v, want Written with %d items", res, want)
			}
			// The client's cached copy is what it wrote: the next read
			// revalidates it with 304 and sees the same items.
			snap, err := c.Read(context.Background())
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got, want := jsonArray(snap.Items), jsonArray(itemsOf(t, []byte(tt.want), tt.pointer)); got != want {
				t.Errorf("Read items = %s, want %s", got, want)
			}
			if snap.Bytes != len(tt.want) {
				t.Errorf("Read Bytes = %d, want %d", snap.Bytes, len(tt.want))
			}
		})
	}
}
