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
	"errors"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// flight is a change an entry has submitted and not yet seen completed.
type flight struct {
	uid     types.UID               // the entry that submitted it
	add     bool                    // add or remove
	id      string                  // the entry's ID
	key     string                  // the list client it went to
	placed  *v1alpha1.ListPlacement // an add's: where it puts the ID (see placeAt)
	pending *etagclient.Pending
}

// flights tracks the changes in flight per entry, so a reconcile can hand its
// change to the combining client and return, and the next reconcile (queued
// when the change completes) picks up the outcome. Safe for concurrent use.
//
// Flights are keyed by the entry's namespace and name, not by its UID: the
// reconcile that follows a completion may find the entry gone (another
// replica released it), and only the name tells which flight is left over
// (Reconcile forgets the flight of an entry it finds gone).
type flights struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*flight
}

// take returns the outcome of the entry's flight for (uid, add, id, key), if
// one was submitted: done reports whether it completed (and the flight is
// then forgotten), found whether one exists. A flight for anything else is
// dropped: the new decision replaces it.
func (f *flights) take(name types.NamespacedName, uid types.UID, add bool, id, key string) (res etagclient.Result, found, done bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.m[name]
	if !ok {
		return etagclient.Result{}, false, false, nil
	}
	if fl.uid != uid || fl.add != add || fl.id != id || fl.key != key {
		delete(f.m, name)
		return etagclient.Result{}, false, false, nil
	}
	res, err = fl.pending.Result()
	if errors.Is(err, etagclient.ErrNotDone) {
		return etagclient.Result{}, true, false, nil
	}
	delete(f.m, name)
	return res, true, true, err
}

// addOf returns the entry's add of id in flight or not yet taken, under
// any key, or nil.
func (f *flights) addOf(name types.NamespacedName, uid types.UID, id string) *flight {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.m[name]
	if !ok || !fl.add || fl.placed == nil || fl.uid != uid || fl.id != id {
		return nil
	}
	return fl
}

func (f *flights) put(name types.NamespacedName, fl *flight) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[types.NamespacedName]*flight{}
	}
	f.m[name] = fl
}

// forget drops the entry's flight and reports whether there was one.
func (f *flights) forget(name types.NamespacedName) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.m[name]
	delete(f.m, name)
	return ok
}
