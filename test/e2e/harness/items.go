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

package harness

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// DiffItems compares a list's items with the wanted set: missing are
// wanted IDs not on the list, leftover are IDs on the list not wanted, and
// every repeat of an ID on the list.
func DiffItems(want, items []string) (missing, leftover []string) {
	wanted := make(map[string]bool, len(want))
	for _, id := range want {
		wanted[id] = true
	}
	seen := make(map[string]bool, len(items))
	for _, id := range items {
		if !wanted[id] || seen[id] {
			leftover = append(leftover, id)
		}
		seen[id] = true
	}
	for _, id := range want {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	return missing, leftover
}

// KeepsOrder reports whether the IDs of want that are on items appear
// there in the order of want: the operator never reorders what it does not
// add.
func KeepsOrder(want, items []string) bool {
	rank := make(map[string]int, len(want))
	for i, id := range want {
		rank[id] = i
	}
	last := -1
	for _, id := range items {
		r, ok := rank[id]
		if !ok {
			continue
		}
		if r <= last {
			return false
		}
		last = r
	}
	return true
}

// Count returns how many of ids are on items.
func Count(ids, items []string) int {
	on := make(map[string]bool, len(items))
	for _, id := range items {
		on[id] = true
	}
	n := 0
	for _, id := range ids {
		if on[id] {
			n++
		}
	}
	return n
}

// IDList renders up to five IDs as " (a, b, ...)", and nothing for none.
func IDList(ids []string) string {
	switch {
	case len(ids) == 0:
		return ""
	case len(ids) > 5:
		return " (" + strings.Join(ids[:5], ", ") + ", ...)"
	default:
		return " (" + strings.Join(ids, ", ") + ")"
	}
}

// CountSynced returns how many of entries are Synced=True.
func CountSynced(entries []v1alpha1.ListEntry) int {
	n := 0
	for i := range entries {
		if meta.IsStatusConditionTrue(entries[i].Status.Conditions, v1alpha1.ConditionSynced) {
			n++
		}
	}
	return n
}

// StuckEntries describes up to n entries that hold a phase up: not Synced
// after a create (adding), still there after a delete.
func StuckEntries(entries []v1alpha1.ListEntry, adding bool, n int) []string {
	var out []string
	for i := range entries {
		e := &entries[i]
		c := meta.FindStatusCondition(e.Status.Conditions, v1alpha1.ConditionSynced)
		if adding && c != nil && c.Status == "True" {
			continue
		}
		cond := "no Synced condition"
		if c != nil {
			cond = fmt.Sprintf("Synced=%s %s: %s", c.Status, c.Reason, c.Message)
		}
		deleting := ""
		if e.DeletionTimestamp != nil {
			deleting = fmt.Sprintf(" deleting since %s, finalizers %v,", e.DeletionTimestamp.Format(time.TimeOnly), e.Finalizers)
		}
		out = append(out, fmt.Sprintf("ListEntry %s:%s %s", e.Name, deleting, cond))
		if len(out) == n {
			out = append(out, "...")
			break
		}
	}
	return out
}
