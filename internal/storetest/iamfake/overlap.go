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

package iamfake

import (
	"sync"
	"sync/atomic"
	"time"
)

// Overlap makes two setIamPolicy calls race for certain: its Hold (a
// WriteHook) keeps the first call that reaches the Server in flight until
// a second one has arrived (its Meet, an OverlapHook, saw it), then lets
// both go on. No write was judged in between, so at most one etag of the
// two is the policy's: they are judged one after the other, and one of
// them at least is refused (409 ABORTED, 412 conditionNotMet), unless it
// is refused for another reason first. A test that names a lost race makes
// it happen this way, rather than by luck of scheduling. When no second
// call comes within patience, the first goes on alone, and Met reports
// false, so that the test can say no race happened.
//
//	o := iamfake.NewOverlap(5 * time.Second)
//	s, err := iamfake.New(iamfake.WithWriteHook(o.Hold), iamfake.WithOverlapHook(o.Meet))
//
// It is safe for concurrent use.
type Overlap struct {
	patience time.Duration
	writes   atomic.Int32
	met      atomic.Bool
	second   chan struct{}
	once     sync.Once
}

// NewOverlap returns an Overlap that waits at most patience for the
// second call.
func NewOverlap(patience time.Duration) *Overlap {
	return &Overlap{patience: patience, second: make(chan struct{})}
}

// Hold is the WriteHook: it holds the first write until Meet has seen a
// second one, its request's context ends, or patience runs out.
func (o *Overlap) Hold(c Call) {
	if o.writes.Add(1) != 1 {
		return
	}
	timer := time.NewTimer(o.patience)
	defer timer.Stop()
	select {
	case <-o.second:
	case <-timer.C:
	case <-c.Request.Context().Done():
	}
}

// Meet is the OverlapHook: a write that finds another in flight releases
// the held one.
func (o *Overlap) Meet(Call) {
	o.once.Do(func() {
		o.met.Store(true)
		close(o.second)
	})
}

// Met reports whether a second write met a held one.
func (o *Overlap) Met() bool { return o.met.Load() }
