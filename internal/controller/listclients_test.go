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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

func TestHeadersFrom(t *testing.T) {
	const secretValue = "s3cr3t-VALUE-never-printed"
	tests := []struct {
		name    string
		data    map[string]string
		want    map[string]string // canonical header -> value
		wantErr bool
	}{
		{name: "empty secret", data: map[string]string{}, want: map[string]string{}},
		{name: "authorization", data: map[string]string{"Authorization": "Bearer " + secretValue},
			want: map[string]string{"Authorization": "Bearer " + secretValue}},
		{name: "key is canonicalized", data: map[string]string{"x-api-key": secretValue},
			want: map[string]string{"X-Api-Key": secretValue}},
		{name: "value is trimmed (a trailing newline from echo)", data: map[string]string{"X-Token": secretValue + "\n"},
			want: map[string]string{"X-Token": secretValue}},
		{name: "several keys", data: map[string]string{"A": "1", "B": "2"}, want: map[string]string{"A": "1", "B": "2"}},
		{name: "key with space", data: map[string]string{"Bad Key": secretValue}, wantErr: true},
		{name: "key with colon", data: map[string]string{"X-Token:": secretValue}, wantErr: true},
		{name: "key with slash", data: map[string]string{"a/b": secretValue}, wantErr: true},
		{name: "non-ASCII key", data: map[string]string{"Tökén": secretValue}, wantErr: true},
		{name: "value with CRLF injection", data: map[string]string{"X-Token": secretValue + "\r\nX-Evil: 1"}, wantErr: true},
		{name: "value with LF in the middle", data: map[string]string{"X-Token": "a\n" + secretValue}, wantErr: true},
		{name: "value with NUL", data: map[string]string{"X-Token": secretValue + "\x00x"}, wantErr: true},
		{name: "value with another control character", data: map[string]string{"X-Token": secretValue + "\x01x"}, wantErr: true},
		{name: "value with DEL", data: map[string]string{"X-Token": secretValue + "\x7fx"}, wantErr: true},
		{name: "one bad key among good ones", data: map[string]string{"Authorization": "Bearer " + secretValue, "bad key": "x"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hdrs", Namespace: "ns"}, Data: map[string][]byte{}}
			for k, v := range tc.data {
				s.Data[k] = []byte(v)
			}
			h, err := headersFrom(s)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got headers %v", h)
				}
				if strings.Contains(err.Error(), secretValue) || strings.Contains(err.Error(), "s3cr3t") {
					t.Fatalf("error reveals the secret value: %v", err)
				}
				var cfgErr *configError
				if !errors.As(err, &cfgErr) || cfgErr.reason != v1alpha1.ReasonInvalidSpec {
					t.Fatalf("want a configError with reason InvalidSpec, got %#v", err)
				}
				if !strings.Contains(err.Error(), `"hdrs"`) {
					t.Errorf("error %q does not name the Secret", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(h) != len(tc.want) {
				t.Errorf("headers = %v, want %v", h, tc.want)
			}
			for k, v := range tc.want {
				if got := h.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
				if _, ok := h[k]; !ok {
					t.Errorf("header %s is not stored under its canonical name: %v", k, h)
				}
			}
		})
	}
}

func TestSpecOrDeletionChanged(t *testing.T) {
	p := specOrDeletionChanged()
	now := metav1.Now()
	base := func(mut func(*v1alpha1.ListEntry)) *v1alpha1.ListEntry {
		e := &v1alpha1.ListEntry{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns", Generation: 1, ResourceVersion: "1"}}
		if mut != nil {
			mut(e)
		}
		return e
	}
	tests := []struct {
		name     string
		old, new *v1alpha1.ListEntry
		want     bool
	}{
		{name: "nothing changed (resync)", old: base(nil), new: base(nil), want: false},
		{name: "status changed", old: base(nil), new: base(func(e *v1alpha1.ListEntry) {
			e.ResourceVersion = "2"
			e.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionSynced, Status: metav1.ConditionTrue}}
		}), want: false},
		{name: "finalizer added", old: base(nil), new: base(func(e *v1alpha1.ListEntry) {
			e.ResourceVersion = "2"
			e.Finalizers = []string{v1alpha1.FinalizerName}
		}), want: false},
		{name: "labels changed", old: base(nil), new: base(func(e *v1alpha1.ListEntry) {
			e.ResourceVersion = "2"
			e.Labels = map[string]string{"a": "b"}
		}), want: false},
		{name: "generation changed", old: base(nil), new: base(func(e *v1alpha1.ListEntry) { e.Generation = 2 }), want: true},
		{name: "deletion started", old: base(nil), new: base(func(e *v1alpha1.ListEntry) { e.DeletionTimestamp = &now }), want: true},
		{name: "finalizer removed while deleting", old: base(func(e *v1alpha1.ListEntry) {
			e.DeletionTimestamp = &now
			e.Finalizers = []string{v1alpha1.FinalizerName}
		}), new: base(func(e *v1alpha1.ListEntry) { e.DeletionTimestamp = &now }), want: false},
		{name: "missing old object", old: nil, new: base(nil), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := event.UpdateEvent{ObjectNew: tc.new}
			if tc.old != nil {
				ev.ObjectOld = tc.old
			}
			if got := p.Update(ev); got != tc.want {
				t.Errorf("Update = %t, want %t", got, tc.want)
			}
		})
	}
	e := base(nil)
	if !p.Create(event.CreateEvent{Object: e}) {
		t.Error("Create must pass")
	}
	if !p.Delete(event.DeleteEvent{Object: e}) {
		t.Error("Delete must pass")
	}
	if !p.Generic(event.GenericEvent{Object: e}) {
		t.Error("Generic must pass")
	}
}

// TestSweepClosesClientsOfDocumentsNotOwned: a replica keeps a client, and
// with it a copy of the document, only for the documents it owns; the
// client of a document whose bucket moved away is closed once idle.
func TestSweepClosesClientsOfDocumentsNotOwned(t *testing.T) {
	t.Parallel()
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/mine", []string{})
	setDoc(t, lists.srv, "/theirs", []string{})
	owner := &keyOwner{keys: map[string]int{}, owned: map[int]bool{}}
	lc := newTestListClients(nil, nil, owner)
	t.Cleanup(lc.Close)
	clientOf := func(path string) *etagclient.Client {
		t.Helper()
		l := newExternalList("ns", strings.TrimPrefix(path, "/"), lists.url+path)
		cfg, err := lc.resolve(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		c, err := lc.Client(cfg, refOf(l))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		return c
	}
	mine, theirs := clientOf("/mine"), clientOf("/theirs")
	owner.owned[owner.Bucket(DocumentBucketKey(DocumentIDOfURL(lists.url+"/mine")))] = true
	// A client is closed once idle: its cycle goroutine ends a batch
	// interval after its last read.
	eventually(t, 5*time.Second, "the client of a document another replica owns to be closed", func() error {
		lc.Sweep()
		if !theirs.Idle() {
			return errors.New("not idle yet")
		}
		if _, err := theirs.Read(context.Background()); !errors.Is(err, etagclient.ErrClosed) {
			return fmt.Errorf("read: %w, want ErrClosed", err)
		}
		return nil
	})
	if _, err := mine.Read(context.Background()); err != nil {
		t.Errorf("the client of an owned document was closed: %v", err)
	}
}
