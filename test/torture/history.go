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

package torture

import (
	"sync"
	"time"
)

// OpKind is what an operation did.
type OpKind uint8

// The operations of a round.
const (
	OpAdd OpKind = iota
	OpRemove
	OpRead
)

func (k OpKind) String() string {
	switch k {
	case OpAdd:
		return "add"
	case OpRemove:
		return "remove"
	default:
		return "read"
	}
}

// Outcome is what the caller of an operation learned.
type Outcome uint8

// The outcomes of an operation.
const (
	// OutcomeOK: the change was committed (or already held); the read
	// returned a list.
	OutcomeOK Outcome = iota
	// OutcomeAmbiguous: the call returned an error that does not prove the
	// change was not applied (a deadline while in flight, a write with no
	// answer, retries exhausted after a write). It may take effect at any
	// time after its call, or never.
	OutcomeAmbiguous
	// OutcomeFailed: the change provably was not applied (it was refused
	// before it was queued); for a read, the read returned an error.
	OutcomeFailed
)

func (o Outcome) String() string {
	switch o {
	case OutcomeOK:
		return "ok"
	case OutcomeAmbiguous:
		return "ambiguous"
	default:
		return "failed"
	}
}

// Record is one operation of a round as its caller saw it.
type Record struct {
	Kind    OpKind  `json:"kind"`
	List    int     `json:"list"`
	ID      string  `json:"id,omitempty"` // add and remove
	Replica int     `json:"replica"`
	Worker  int     `json:"worker"` // -1 for the reads between phases and at the end
	Outcome Outcome `json:"outcome"`
	Err     string  `json:"err,omitempty"`
	// Call and Return are nanoseconds since the start of the round, on the
	// monotonic clock.
	Call   int64 `json:"call"`
	Return int64 `json:"return"`
	// Items is what a read returned.
	Items []string `json:"items,omitempty"`
	// Quiescent marks a read made while no worker was running (between
	// phases, or at the end after the faults stopped).
	Quiescent bool `json:"quiescent,omitempty"`
	// Final marks the reads made at the end.
	Final bool `json:"final,omitempty"`
	// Hot marks a change of a hot ID (see hot.go).
	Hot bool `json:"hot,omitempty"`
	// Submitted marks a change made with Client.Submit rather than Update.
	Submitted bool `json:"submitted,omitempty"`
	// Seq is the change's place, from 1, in the order in which its
	// replica's client received the changes of its ID; 0 when that order
	// was not recorded. Only changes of IDs that one replica owns carry it.
	Seq int64 `json:"seq,omitempty"`
}

// recorder collects the records of a round. It is safe for concurrent use.
type recorder struct {
	start time.Time

	mu      sync.Mutex
	records []Record
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

// now returns the time since the start of the round.
func (r *recorder) now() int64 { return int64(time.Since(r.start)) }

// at converts an absolute time (with a monotonic reading) to the round's
// time base.
func (r *recorder) at(t time.Time) int64 { return int64(t.Sub(r.start)) }

func (r *recorder) add(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec)
}

// snapshot returns the records so far.
func (r *recorder) snapshot() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.records...)
}
