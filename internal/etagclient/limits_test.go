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
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// idArray returns a JSON array of n distinct IDs.
func idArray(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"id-%d"`, i)
	}
	b.WriteByte(']')
	return b.String()
}

// TestItemLimit checks that a document with more items than the client's
// limit is refused on read, whatever the change, with ErrTooManyItems, and
// that nothing is written; and that a document at the limit is served.
func TestItemLimit(t *testing.T) {
	tests := []struct {
		name     string
		opts     []etagclient.Option
		items    int
		wantErr  error
		wantText string
	}{
		{name: "at the limit", opts: []etagclient.Option{etagclient.WithMaxItems(3)}, items: 3},
		{name: "one over the limit", opts: []etagclient.Option{etagclient.WithMaxItems(3)}, items: 4,
			wantErr: etagclient.ErrTooManyItems, wantText: "more than 3, the limit (--max-items raises it)"},
		{name: "over the default limit", items: etagclient.DefaultMaxItems + 1,
			wantErr: etagclient.ErrTooManyItems, wantText: fmt.Sprintf("more than %d", etagclient.DefaultMaxItems)},
		{name: "over the size limit", opts: []etagclient.Option{etagclient.WithMaxBodyBytes(20)}, items: 4,
			wantErr: etagclient.ErrTooLarge, wantText: "the limit (--max-body-bytes raises it)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFake(t)
			e.set(t, idArray(tt.items))
			c := newClient(t, e.url, tt.opts...)
			ctx := context.Background()
			snap, err := c.Read(ctx)
			_, uerr := c.Update(ctx, etagclient.Change{Remove: []string{"id-0"}})
			if tt.wantErr == nil {
				if err != nil || uerr != nil || len(snap.Items) != tt.items {
					t.Fatalf("Read = %d items, %v; Update: %v; want %d items", len(snap.Items), err, uerr, tt.items)
				}
				return
			}
			for _, err := range []error{err, uerr} {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, etagclient.ErrInvalidDocument) {
					t.Errorf("error %v, want %v, an ErrInvalidDocument", err, tt.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error %q does not say %q", err, tt.wantText)
				}
				checkNoSecrets(t, err)
			}
			if e.puts() != 0 {
				t.Errorf("%d PUTs, want none", e.puts())
			}
		})
	}
}

// TestItemLimitRefusedDocumentIsNotKept checks that a client that refused
// the server's document keeps nothing of it, nor of the copy it had: the
// next read is a full one, and once the document is back under the limit
// the client serves it.
func TestItemLimitRefusedDocumentIsNotKept(t *testing.T) {
	e := startFake(t)
	e.set(t, idArray(2))
	c := newClient(t, e.url, etagclient.WithMaxItems(3))
	ctx := context.Background()
	if _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	e.set(t, idArray(5))
	if _, err := c.Read(ctx); !errors.Is(err, etagclient.ErrTooManyItems) {
		t.Fatalf("Read of 5 items with a limit of 3: %v, want ErrTooManyItems", err)
	}
	e.set(t, idArray(3))
	snap, err := c.Read(ctx)
	if err != nil || !slices.Equal(snap.Items, []string{"id-0", "id-1", "id-2"}) {
		t.Fatalf("Read = %q, %v, want the 3 items", snap.Items, err)
	}
	reqs := e.rec.requests()
	if got := reqs[len(reqs)-1].Header.Get("If-None-Match"); got != "" {
		t.Errorf("the read after a refused document revalidated %q: the client kept its old copy", got)
	}
	if codes := e.api.Stats().Requests[http.MethodGet]; codes[http.StatusNotModified] != 0 {
		t.Errorf("GET answers %v, want no 304", codes)
	}
}
