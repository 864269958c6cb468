package reconcile

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// flight is a change an entry has submitted and not yet seen completed.
type flight struct {
	add     bool   // add or remove
	id      string // the entry's ID
	key     string // the list client it went to
	pending *etagclient.Pending
}

// flights tracks the changes in flight per entry, so a reconcile can hand its
// change to the combining client and return, and the next reconcile (queued
// when the change completes) picks up the outcome. Safe for concurrent use.
type flights struct {
	mu sync.Mutex
	m  map[types.UID]*flight
}

// take returns the outcome of the entry's flight for (add, id, key), if one
// was submitted: done reports whether it completed (and the flight is then
// forgotten), found whether one exists. A flight for anything else is
// dropped: the new decision replaces it.
func (f *flights) take(uid types.UID, add bool, id, key string) (res etagclient.Result, err error, found, done bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.m[uid]
	if !ok {
		return etagclient.Result{}, nil, false, false
	}
	if fl.add != add || fl.id != id || fl.key != key {
		delete(f.m, uid)
		return etagclient.Result{}, nil, false, false
	}
	res, err = fl.pending.Result()
	if err == etagclient.ErrNotDone {
		return etagclient.Result{}, nil, true, false
	}
	delete(f.m, uid)
	return res, err, true, true
}

func (f *flights) put(uid types.UID, fl *flight) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[types.UID]*flight{}
	}
	f.m[uid] = fl
}

// forget drops the entry's flight and reports whether there was one.
func (f *flights) forget(uid types.UID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.m[uid]
	delete(f.m, uid)
	return ok
}
