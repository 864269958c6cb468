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
	"net/netip"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// Placements. An entry whose ID was added records where, in its status
// (status.addedTo: the claim, a document and an items pointer or role).
// That record, kept in the API server, is what the entry's ID is taken off
// when the entry goes, when its list no longer admits it (another list
// took the claim, or a ClusterExternalList stopped selecting its
// namespace) and when its list names another document; it is taken off
// through whichever list holds that claim by then, with that list's
// credentials. A replica that restarts, or takes the entry's bucket over,
// finds the record where every replica does.
//
// The ID stays when another holder keeps it: a live entry of the claim's
// holder, admitted by it, with the finalizer, that recorded its ID under
// that very claim. Only that record makes good the promise that the
// holder takes the ID off when it stops holding it, since an entry takes
// off only what its record names. Such a holder that has not recorded the
// ID yet (its add in flight, or not made yet) is waited for: the removal
// is neither written nor given up, and the entry keeps its record and its
// finalizer until the holder records the ID or stops holding it (an entry
// that let go in its favour while it had recorded nothing would leave the
// ID where nothing accounts for it once that entry lost admission or its
// list moved). One that recorded its ID under another claim (its list
// moved here) keeps nothing: it adds its ID here only after it took it off
// there, after this removal. That is decided on the API server's state,
// never only on the cache, which may trail it (a bucket that just moved,
// an entry whose finalizer patch the cache has not shown yet): once when
// the removal is decided, and again by the list client right before it
// builds each write that would carry it (etagclient.SubmitChecked). A
// holder that appears after that check adds its ID after the removal, in
// the order the document's one client applies changes.

// errHeld withdraws a removal: another entry holds the ID and recorded it
// (see holds).
var errHeld = errors.New("another live entry holds the ID")

// errHeldUnrecorded withdraws a removal until another entry that holds
// the ID has recorded it, or stopped holding it (see holds).
var errHeldUnrecorded = errors.New("another live entry holds the ID and has not recorded it yet")

// holderRecordRequeue is how soon an entry whose removal waits for another
// holder to record the ID looks again.
const holderRecordRequeue = time.Second

// heldCheckTimeout bounds the API reads of one check that an ID has no
// other holder, made on the list client's goroutine.
const heldCheckTimeout = 10 * time.Second

// claimHolder returns the list that holds the claim with the given ID
// (listconfig.ClaimID), as the cache shows the lists that name it; nil when none does.
func claimHolder(ctx context.Context, c client.Reader, claim string) (v1alpha1.List, error) {
	lists, err := allLists(ctx, c, client.MatchingFields{claimIDField: claim})
	if err != nil {
		return nil, err
	}
	return listconfig.ClaimHolder(lists), nil
}

// placementOf returns the claim an entry's ID was added under, "" when it
// was not (or was taken off again).
func placementOf(e *v1alpha1.ListEntry) string {
	if e.Status.AddedTo == nil {
		return ""
	}
	return e.Status.AddedTo.Claim
}

// placeAt records that e's ID is on l's document, under l's claim.
func placeAt(e *v1alpha1.ListEntry, l v1alpha1.List) {
	e.Status.AddedTo = &v1alpha1.ListPlacement{DocumentID: listconfig.DocumentOf(l), Claim: listconfig.ClaimID(l)}
}

// placementMoved reports whether e's ID was added under a claim that its
// list l no longer names (its URL, items pointer or role changed). A list
// whose document is not known yet names none, and moves nothing.
func placementMoved(e *v1alpha1.ListEntry, l v1alpha1.List) bool {
	claim := placementOf(e)
	current := listconfig.ClaimID(l)
	return claim != "" && current != "" && claim != current
}

// heldFresh reports whether an entry other than self holds id on the claim
// that list holder holds (see holds), as the API server shows it now. The entries are
// found by spec.id in the spellings that an address may have (see
// idSpellings), and by whatever other spelling the cache knows of (read
// again from the API server).
func (r *EntryReconciler) heldFresh(ctx context.Context, holder v1alpha1.List, spell func(string) string, id string, self types.UID) (holding, error) {
	ref := listconfig.RefOf(holder)
	var opts []client.ListOption
	if ref.Kind == v1alpha1.ListKindExternalList {
		opts = append(opts, client.InNamespace(ref.Namespace))
	}
	seen := map[types.UID]bool{}
	var found []v1alpha1.ListEntry
	for _, spelling := range idSpellings(id) {
		var list v1alpha1.ListEntryList
		if err := r.APIReader.List(ctx, &list, append(opts, client.MatchingFields{idField: spelling,
			listRefField: ref.Name, listKindField: string(ref.Kind)})...); err != nil {
			return heldByNone, fmt.Errorf("list entries with ID %q: %w", spelling, err)
		}
		for _, e := range list.Items {
			if !seen[e.UID] {
				seen[e.UID] = true
				found = append(found, e)
			}
		}
	}
	// Spellings the queries above do not name ("10.0.0.0/8" written
	// "10.0.0.1/8" is refused, but an IPv6 address has many): whatever the
	// cache knows, read again.
	var cached v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &cached, client.MatchingFields{listIDField: listIDKey(ref, id)}); err != nil {
		return heldByNone, fmt.Errorf("list entries with ID %q: %w", id, err)
	}
	for i := range cached.Items {
		e := &cached.Items[i]
		if seen[e.UID] || e.UID == self {
			continue
		}
		fresh := &v1alpha1.ListEntry{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(e), fresh); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return heldByNone, fmt.Errorf("get entry %s: %w", client.ObjectKeyFromObject(e), err)
		}
		if !seen[fresh.UID] {
			seen[fresh.UID] = true
			found = append(found, *fresh)
		}
	}
	return holds(found, ref, listconfig.ClaimID(holder), spellID(id, spell), spell, self, listAdmitter(ctx, r.Client, holder)), nil
}

// heldCached reports whether the cache shows an entry other than self
// that holds id on holder's claim (see heldFresh).
func (r *EntryReconciler) heldCached(ctx context.Context, holder v1alpha1.List, spell func(string) string, id string, self types.UID) (holding, error) {
	ref := listconfig.RefOf(holder)
	var same v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &same, client.MatchingFields{listIDField: listIDKey(ref, id)}); err != nil {
		return heldByNone, fmt.Errorf("list entries with ID %q: %w", id, err)
	}
	return holds(same.Items, ref, listconfig.ClaimID(holder), spellID(id, spell), spell, self, listAdmitter(ctx, r.Client, holder)), nil
}

// holding is what the other entries of a claim's holder do with an ID
// that one entry is about to take off (see holds).
type holding int

const (
	// heldByNone: no other entry keeps the ID; it may come off.
	heldByNone holding = iota
	// heldUnrecorded: another entry holds the ID and has not recorded it
	// under the claim yet; the removal waits for it.
	heldUnrecorded
	// heldRecorded: another entry holds the ID and recorded it under the
	// claim; the ID stays, and that entry takes it off in its turn.
	heldRecorded
)

// holds reports whether one of entries, other than self, holds the ID
// spelled want on claim, the claim of the list ref: a live entry of ref
// that carries the finalizer and that the list admits, and that recorded
// its ID under claim (heldRecorded) or nowhere yet (heldUnrecorded). One
// that recorded it under another claim holds nothing here: its list moved
// here, and it adds its ID only once it took it off the other claim.
func holds(entries []v1alpha1.ListEntry, ref listconfig.Ref, claim, want string, spell func(string) string, self types.UID, admitted func(*v1alpha1.ListEntry) bool) holding {
	h := heldByNone
	for i := range entries {
		e := &entries[i]
		if e.UID == self || entryListRef(e) != ref || spellID(e.Spec.ID, spell) != want {
			continue
		}
		if !isLive(e) || !hasFinalizer(e) || !admitted(e) {
			continue
		}
		switch placementOf(e) {
		case claim:
			return heldRecorded
		case "":
			h = heldUnrecorded
		}
	}
	return h
}

// idSpellings are the spellings of id that name one address on an IP
// set: as written, and for a single address with and without its prefix
// length. Any other ID is spelled one way.
func idSpellings(id string) []string {
	out := []string{id}
	add := func(s string) {
		for _, have := range out {
			if have == s {
				return
			}
		}
		out = append(out, s)
	}
	if p, err := netip.ParsePrefix(id); err == nil && p.IsSingleIP() {
		add(p.Addr().String())
		add(p.String())
	} else if a, err := netip.ParseAddr(id); err == nil {
		add(a.String())
		add(netip.PrefixFrom(a, a.BitLen()).String())
	}
	return out
}

// heldCheck is the check a removal of self's ID from the claim of list
// holder is submitted with (etagclient.SubmitChecked): asked again right
// before each write that would carry it, it withdraws the removal once
// another entry holds the ID (errHeld, or errHeldUnrecorded while that
// entry has not recorded it; see holds). Who holds the claim is asked
// again too: an entry of a list that has lost the claim since (another
// list took it) is not admitted and holds nothing, while an entry of the
// list that took it does. The removals of one batch share one read of the
// holder's entries from the API server (entriesOfHolder), made after each
// of them was queued: a mass deletion costs a read per write, not one per
// ID.
func (r *EntryReconciler) heldCheck(holder v1alpha1.List, spell func(string) string, id string, self types.UID) func(*etagclient.CheckRound) error {
	claim := listconfig.ClaimID(holder)
	return func(round *etagclient.CheckRound) error {
		ctx, cancel := context.WithTimeout(context.Background(), heldCheckTimeout)
		defer cancel()
		now, err := claimHolder(ctx, r.Client, claim)
		if err != nil {
			return err
		}
		if now == nil {
			// No list holds the claim any more: its client is fenced,
			// and nothing holds the ID.
			return nil
		}
		ref := listconfig.RefOf(now)
		v, err := round.Share(ref, func() (any, error) { return r.entriesOfHolder(ctx, ref) })
		if err != nil {
			return err
		}
		switch holds(v.([]v1alpha1.ListEntry), ref, claim, spellID(id, spell), spell, self, listAdmitter(ctx, r.Client, now)) {
		case heldRecorded:
			return errHeld
		case heldUnrecorded:
			return errHeldUnrecorded
		}
		return nil
	}
}

// entriesOfHolder reads every entry of the list ref from the API server,
// whatever the spelling of its ID.
func (r *EntryReconciler) entriesOfHolder(ctx context.Context, ref listconfig.Ref) ([]v1alpha1.ListEntry, error) {
	opts := []client.ListOption{client.MatchingFields{listRefField: ref.Name, listKindField: string(ref.Kind)}}
	if ref.Kind == v1alpha1.ListKindExternalList {
		opts = append(opts, client.InNamespace(ref.Namespace))
	}
	var list v1alpha1.ListEntryList
	if err := r.APIReader.List(ctx, &list, opts...); err != nil {
		return nil, fmt.Errorf("list the entries of %s: %w", ref, err)
	}
	return list.Items, nil
}
