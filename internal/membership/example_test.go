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

package membership_test

import (
	"context"
	"fmt"
	"time"

	"github.com/listkeeper/listkeeper/internal/membership"
)

// member stands for a started Member: membership.New, added to the
// manager, which calls Start.
var member *membership.Member

// putList stands for one conditional HTTP write of a document.
func putList(ctx context.Context) error { return ctx.Err() }

// A writer fences every write with the member: it admits the work (the
// bucket cannot move away while it is admitted), and before each attempt
// it asks whether it may still act and until when, and ends the attempt
// by then. ActUntil carries the Clock's monotonic reading, so a context
// deadline set from it is not fooled by a wall clock that jumps.
func ExampleMember_ActUntil() {
	b := member.Bucket("https://lists.example.com/allow.json")
	release, ok := member.Acquire(b)
	if !ok {
		return // another replica owns the document
	}
	defer release()
	for range 3 {
		until, ok := member.ActUntil(b)
		if !ok {
			return // the right to act has ended: no attempt may be sent
		}
		ctx, cancel := context.WithDeadline(context.Background(), until)
		err := putList(ctx)
		cancel()
		if err == nil {
			return
		}
	}
}

// After an ungraceful takeover the previous holder's writes may still land
// until SettleAfter. A change found already in the list before then may be
// undone by such a write: it is not settled on that, and the document is
// read again once after it.
func ExampleMember_SettleAfter() {
	b := member.Bucket("https://lists.example.com/allow.json")
	if settle := member.SettleAfter(b); time.Now().Before(settle) {
		fmt.Printf("verify the document again in %s\n", time.Until(settle).Round(time.Second))
	}
}
