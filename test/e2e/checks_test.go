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

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// checkSettled waits a moment and checks that the list still holds
// exactly the bystanders, in order, with the document's other field.
func (e *env) checkSettled(ctx context.Context) {
	e.t.Helper()
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		e.t.Fatal(ctx.Err())
	}
	doc, err := e.lists.Document(ctx, e.list.Path)
	if err != nil {
		e.t.Fatal(err)
	}
	if !slices.Equal(doc.Items, e.bystanders) {
		e.t.Errorf("%v after the last phase the list is %v, want exactly the bystanders %v", settle, doc.Items, e.bystanders)
	}
	if owner := doc.Field("owner"); owner != docOwner {
		e.t.Errorf("the list document's field \"owner\" is %q, want %q", owner, docOwner)
	}
	if n, err := e.entries.Count(ctx); err != nil || n != 0 {
		e.t.Errorf("%d entries left (%v), want none", n, err)
	}
}

// checkHistory checks every recorded version of the first list: each parses and
// holds the bystanders first and in order, and no ID comes back onto the
// list after it left it during the deletion.
func (e *env) checkHistory(ctx context.Context, names []string, deleteStart time.Time) {
	e.t.Helper()
	h, err := e.fullHistory(ctx, e.list.Path)
	if err != nil {
		e.t.Errorf("read the list's history: %v", err)
		return
	}
	wanted := make(map[string]bool, len(names))
	for _, n := range names {
		wanted[n] = true
	}
	left := map[string]bool{}
	var back []string
	for _, v := range h {
		var doc harness.Document
		if err := json.Unmarshal(v.Body, &doc); err != nil {
			e.t.Errorf("version %d (%s) does not parse: %v", v.Seq, v.ETag, err)
			continue
		}
		if len(doc.Items) < len(e.bystanders) || !slices.Equal(doc.Items[:len(e.bystanders)], e.bystanders) {
			e.t.Errorf("version %d (%s) at %s lost or moved a bystander: %v", v.Seq, v.ETag, v.Time.Format(time.StampMilli), headOf(doc.Items, len(e.bystanders)))
		}
		if v.Time.Before(deleteStart) {
			continue
		}
		on := make(map[string]bool, len(doc.Items))
		for _, id := range doc.Items {
			on[id] = true
		}
		for id := range wanted {
			switch {
			case !on[id]:
				left[id] = true
			case left[id]:
				back = append(back, fmt.Sprintf("%s (version %d)", id, v.Seq))
				delete(left, id)
			}
		}
	}
	e.t.Logf("history: %d versions recorded across list server restarts (%d before the restart)", len(h), len(e.history))
	// Every entry was Synced before the deletion began, and an ID leaves
	// the list only once its one holder is being deleted: after that
	// nothing holds it, and the one replica that writes the document never
	// adds it again. An ID that comes back is a write made before the
	// removal that landed after it (a late write), or an add for an entry
	// that was gone; either briefly grants an ID nobody holds.
	if len(back) > 0 {
		e.t.Errorf("%d IDs came back onto the list after they had left it during the deletion, while no live entry held them: %s",
			len(back), strings.Join(back[:min(len(back), 10)], ", "))
	}
}

func headOf(items []string, n int) []string { return items[:min(len(items), n)] }

// checkNoPanics fails the test when a process's log shows a panic.
func (e *env) checkNoPanics() {
	e.t.Helper()
	found, err := harness.FindPanics(e.sup.Logs(), 20)
	if err != nil {
		e.t.Errorf("scan the logs: %v", err)
	}
	if len(found) > 0 {
		e.t.Errorf("the logs show panics:\n%s", strings.Join(found, "\n"))
	}
}

// converged reports whether a snapshot shows the operator at rest: no
// entry being deleted, every entry Synced, and each list exactly the
// bystanders, first and in order, then the IDs of its live entries (each
// ID once, however many entries hold it). why says what is still off.
func (e *env) converged(s snapshot) (ok bool, why string) {
	if s.err != nil {
		return false, s.err.Error()
	}
	var terminating []string
	for i := range s.entries {
		if s.entries[i].DeletionTimestamp != nil {
			terminating = append(terminating, s.entries[i].Name)
		}
	}
	switch {
	case len(terminating) > 0:
		return false, fmt.Sprintf("%d entries being deleted%s", len(terminating), harness.IDList(terminating))
	case s.synced != len(s.entries):
		return false, fmt.Sprintf("%d of %d entries Synced", s.synced, len(s.entries))
	}
	var off []string
	for i, d := range e.docs {
		items := s.docs[i].Items
		missing, leftover := harness.DiffItems(e.wantItemsOf(d.list.Name, s.entries), items)
		switch {
		case len(missing)+len(leftover) > 0:
			off = append(off, fmt.Sprintf("list %s misses %d IDs%s and has %d it should not%s", d.list.Name,
				len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover)))
		case !slices.Equal(headOf(items, len(e.bystanders)), e.bystanders):
			off = append(off, fmt.Sprintf("on list %s the bystanders are not first and in order: %v", d.list.Name, headOf(items, len(e.bystanders))))
		}
	}
	return len(off) == 0, strings.Join(off, "; ")
}

// wantItemsOf is what the env's ExternalList called list must hold at
// rest with these entries: the bystanders, then the ID of every live entry
// that names it.
func (e *env) wantItemsOf(list string, entries []v1alpha1.ListEntry) []string {
	want := slices.Clone(e.bystanders)
	seen := map[string]bool{}
	for i := range entries {
		le := &entries[i]
		if le.Namespace != e.namespace || le.Spec.ListRef.Name != list ||
			(le.Spec.ListRef.Kind != "" && le.Spec.ListRef.Kind != v1alpha1.ListKindExternalList) {
			continue
		}
		if id := le.Spec.ID; le.DeletionTimestamp == nil && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	return want
}

// awaitConverged polls until converged holds, bounded by timeout, and
// then checks that it still holds settle later. It returns the last
// snapshot.
func (e *env) awaitConverged(ctx context.Context, timeout time.Duration) snapshot {
	e.t.Helper()
	var last snapshot
	var why string
	var lastErr error
	err := harness.Poll(ctx, e.sup, timeout, pollInterval, func(ctx context.Context) (bool, error) {
		s := e.observe(ctx, nil)
		if s.err != nil {
			lastErr = s.err     // keep the last complete look
			return false, s.err // not fatal: Poll tries again
		}
		last, lastErr = s, nil
		ok, w := e.converged(last)
		why = w
		return ok, nil
	})
	if err != nil {
		if lastErr != nil {
			why += fmt.Sprintf(" (a later look failed: %v)", lastErr)
		}
		e.t.Fatalf("not converged: %v: %s%s", err, why, stuckOf(last))
	}
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		e.t.Fatal(ctx.Err())
	}
	again := e.observe(ctx, nil)
	if ok, why := e.converged(again); !ok {
		e.t.Fatalf("converged, but %v later no longer: %s%s", settle, why, stuckOf(again))
	}
	for i, d := range again.docs {
		if owner := d.Field("owner"); owner != docOwner {
			e.t.Errorf("the field \"owner\" of list %s's document is %q, want %q", e.docs[i].list.Name, owner, docOwner)
		}
	}
	return again
}

// stuckOf describes up to five entries that are not at rest.
func stuckOf(s snapshot) string {
	var b strings.Builder
	for _, adding := range []bool{false, true} {
		var some []v1alpha1.ListEntry
		for i := range s.entries {
			if (s.entries[i].DeletionTimestamp == nil) == adding {
				some = append(some, s.entries[i])
			}
		}
		for _, line := range harness.StuckEntries(some, adding, 5) {
			b.WriteString("\n    " + line)
		}
	}
	return b.String()
}

// checkBystandersKept checks that every recorded version of every list
// parses and starts with the bystanders, in order.
func (e *env) checkBystandersKept(ctx context.Context) {
	e.t.Helper()
	n, bad := 0, 0
	for _, d := range e.docs {
		h, err := e.fullHistory(ctx, d.list.Path)
		if err != nil {
			e.t.Errorf("read the history of list %s: %v", d.list.Name, err)
			return
		}
		n += len(h)
		for _, v := range h {
			var doc harness.Document
			if err := json.Unmarshal(v.Body, &doc); err != nil {
				bad++
				e.t.Errorf("list %s: version %d (%s) does not parse: %v", d.list.Name, v.Seq, v.ETag, err)
				continue
			}
			if !slices.Equal(headOf(doc.Items, len(e.bystanders)), e.bystanders) {
				bad++
				e.t.Errorf("list %s: version %d (%s) at %s lost or moved a bystander: %v", d.list.Name, v.Seq, v.ETag, v.Time.Format(time.StampMilli), headOf(doc.Items, len(e.bystanders)))
			}
		}
	}
	if bad == 0 {
		e.t.Logf("history: %d versions of %d lists, each with the %d bystanders first and in order", n, len(e.docs), len(e.bystanders))
	}
}
