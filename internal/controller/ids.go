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
	"fmt"
	"slices"
	"strings"
)

// Sets of IDs, and how messages name them.

// missing returns the IDs of want that are not in have, in want's order.
func missing(want, have []string) []string {
	h := make(map[string]struct{}, len(have))
	for _, id := range have {
		h[id] = struct{}{}
	}
	var out []string
	for _, id := range want {
		if _, ok := h[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// intersect returns the IDs of a that are in b, in a's order.
func intersect(a, b []string) []string {
	return missing(a, missing(a, b))
}

// foreignIDs returns the distinct IDs on the list that no ID of keep (the
// live entries of the claim's holder) holds, in list order.
func foreignIDs(onList, keep []string) []string {
	out := missing(onList, keep)
	seen := make(map[string]struct{}, len(out))
	return slices.DeleteFunc(out, func(id string) bool {
		if _, dup := seen[id]; dup {
			return true
		}
		seen[id] = struct{}{}
		return false
	})
}

// maxNamedIDs is how many IDs an event names per direction before it says
// "and N more", so an event stays readable and small.
const maxNamedIDs = 10

// namedIDs lists ids for an event: quoted, comma-separated, at most
// maxNamedIDs of them, then "and N more".
func namedIDs(ids []string) string {
	n := min(len(ids), maxNamedIDs)
	quoted := make([]string, n)
	for i, id := range ids[:n] {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	s := strings.Join(quoted, ", ")
	if rest := len(ids) - n; rest > 0 {
		s += fmt.Sprintf(" and %d more", rest)
	}
	return s
}

// driftMessage is the note of a DriftCorrected event: how many IDs were
// added and removed, naming them (bounded by namedIDs). Foreign IDs are
// removed only from a document the list synced before (see firstSight),
// whose items it may name.
func driftMessage(added, removed []string) string {
	msg := fmt.Sprintf("drift corrected: added %d IDs", len(added))
	if len(added) > 0 {
		msg += " (" + namedIDs(added) + ")"
	}
	msg += fmt.Sprintf(", removed %d", len(removed))
	if len(removed) > 0 {
		msg += " (" + namedIDs(removed) + ")"
	}
	return msg
}
