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

package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// entryCounts counts a list's ListEntries by their Ready condition.
type entryCounts struct {
	// Total counts every entry that refers to the list, Terminating ones
	// included.
	Total int `json:"total"`
	// Ready counts the entries that are not being deleted, by Ready's
	// status and reason.
	Ready []readyCount `json:"ready"`
	// NoStatus counts the entries that are not being deleted and have no
	// Ready condition yet.
	NoStatus int `json:"noStatus"`
	// Terminating counts the entries being deleted (their finalizer holds
	// them until their ID is off the list), and TerminatingSince is when
	// the oldest of them was deleted.
	Terminating      int        `json:"terminating"`
	TerminatingSince *time.Time `json:"terminatingSince,omitempty"`
	// Note says what could not be read.
	Note string `json:"note,omitempty"`
}

// readyCount is the number of entries whose Ready has one status and
// reason.
type readyCount struct {
	Status metav1.ConditionStatus `json:"status"`
	Reason string                 `json:"reason"`
	Count  int                    `json:"count"`
}

// statusOrder puts True before False before Unknown.
var statusOrder = map[metav1.ConditionStatus]int{metav1.ConditionTrue: 0, metav1.ConditionFalse: 1, metav1.ConditionUnknown: 2}

// countEntries counts those of entries that refer to list.
func countEntries(entries []v1alpha1.ListEntry, list ref) entryCounts {
	var n entryCounts
	by := map[readyCount]int{}
	for i := range entries {
		e := &entries[i]
		if listRefOf(e) != list {
			continue
		}
		n.Total++
		if t := e.DeletionTimestamp; t != nil {
			n.Terminating++
			if n.TerminatingSince == nil || t.Time.Before(*n.TerminatingSince) {
				since := t.Time
				n.TerminatingSince = &since
			}
			continue
		}
		c := meta.FindStatusCondition(e.Status.Conditions, v1alpha1.ConditionReady)
		if c == nil {
			n.NoStatus++
			continue
		}
		by[readyCount{Status: c.Status, Reason: c.Reason}]++
	}
	for k, c := range by {
		k.Count = c
		n.Ready = append(n.Ready, k)
	}
	slices.SortFunc(n.Ready, func(a, b readyCount) int {
		if c := cmp.Compare(statusOrder[a.Status], statusOrder[b.Status]); c != 0 {
			return c
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	return n
}

// readEntries reads the ListEntries that may refer to list: those of its
// namespace for an ExternalList; for a ClusterExternalList those of every
// namespace, or of namespace when the user may not list them all (note
// says so).
func readEntries(ctx context.Context, c client.Reader, list ref, namespace string) (entries []v1alpha1.ListEntry, note string, err error) {
	var les v1alpha1.ListEntryList
	if list.Kind != kindClusterExternalList {
		if err := c.List(ctx, &les, client.InNamespace(list.Namespace)); err != nil {
			return nil, "", fmt.Errorf("list ListEntries in namespace %s: %w", list.Namespace, err)
		}
		return les.Items, "", nil
	}
	err = c.List(ctx, &les)
	if apierrors.IsForbidden(err) {
		note = fmt.Sprintf("only the entries of namespace %s: you may not list ListEntries in every namespace", namespace)
		err = c.List(ctx, &les, client.InNamespace(namespace))
	}
	if err != nil {
		return nil, "", fmt.Errorf("list ListEntries: %w", err)
	}
	return les.Items, note, nil
}
