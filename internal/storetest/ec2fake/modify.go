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

package ec2fake

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// rawEntry is an entry as a request gives it: a CIDR block not yet
// checked, and a description, nil when the request gives none.
type rawEntry struct {
	cidr        string
	description *string
}

// modifyRequest is a ModifyManagedPrefixList, or a change by another
// writer (Server.ModifyEntries). nil members were not given.
type modifyRequest struct {
	id             string
	currentVersion *int64
	name           *string
	maxEntries     *int32
	add            []rawEntry
	remove         []string
}

// listView is what planModify needs to know of a list.
type listView struct {
	id, family string
	version    int64
	maxEntries int32
	state      string
	entries    []Entry
}

// modifyPlan is what a modification changes: the entries of the new
// version (nil when the entries stay), a new MaxEntries, a new name.
type modifyPlan struct {
	entries    []Entry
	maxEntries *int32
	name       *string
}

// checkModifyRequest applies the checks that need no list, in order: the
// ID, the number of changes, entries and MaxEntries together, MaxEntries'
// range, the name, each description, a request that changes nothing, and
// a CIDR block named twice.
func checkModifyRequest(in modifyRequest) *Error {
	changes := len(in.add) + len(in.remove)
	switch {
	case in.id == "":
		return errMissingParameter("PrefixListId")
	case changes > MaxEntryChanges:
		return errInvalidParameterValue(fmt.Sprintf("The request cannot contain more than %d entry additions or removals.", MaxEntryChanges))
	case in.maxEntries != nil && changes > 0:
		return errInvalidParameterCombination("You cannot modify the entries and the maximum entries for the prefix list in the same request.")
	case in.maxEntries != nil && (*in.maxEntries < 1 || *in.maxEntries > MaxEntriesLimit):
		return errMaxEntriesRange()
	case changes == 0 && in.maxEntries == nil && in.name == nil:
		return &Error{Status: 400, Code: "InvalidRequest", Message: "The request received was invalid."}
	}
	if in.name != nil {
		if e := checkName(*in.name); e != nil {
			return e
		}
	}
	for _, a := range in.add {
		if e := checkDescription(a); e != nil {
			return e
		}
	}
	if e := checkNamedOnce(in.add, "AddPrefixListEntries"); e != nil {
		return e
	}
	removes := make([]rawEntry, len(in.remove))
	for i, c := range in.remove {
		removes[i] = rawEntry{cidr: c}
	}
	if e := checkNamedOnce(removes, "RemovePrefixListEntries"); e != nil {
		return e
	}
	for _, a := range in.add {
		if slices.ContainsFunc(in.remove, func(c string) bool { return cidrKey(c) == cidrKey(a.cidr) }) {
			return errInvalidParameterValue(fmt.Sprintf("Request cannot contain Cidr %s in both AddPrefixListEntries and RemovePrefixListEntries", a.cidr))
		}
	}
	return nil
}

// planModify judges a modification that passed checkModifyRequest against
// the list, in order: a list in progress (IncorrectState), a stale
// CurrentVersion (PrefixListVersionMismatch; without one, none is
// checked), a MaxEntries below the entries there are, each CIDR block to
// remove (of the list's family, and there), each to add (of the family,
// and not there), and last the entries that would result against
// MaxEntries. It changes nothing; a refused modification changes nothing.
func planModify(l listView, in modifyRequest) (modifyPlan, *Error) {
	if strings.HasSuffix(l.state, "-in-progress") {
		return modifyPlan{}, errIncorrectState(l.id, l.state)
	}
	if in.currentVersion != nil && *in.currentVersion != l.version {
		return modifyPlan{}, errVersionMismatch()
	}
	if in.maxEntries != nil && int(*in.maxEntries) < len(l.entries) {
		return modifyPlan{}, errInvalidParameterValue(fmt.Sprintf("The maximum number of entries cannot be less than the number of entries in the prefix list (%d).", len(l.entries)))
	}
	plan := modifyPlan{maxEntries: in.maxEntries, name: in.name}
	if len(in.add) == 0 && len(in.remove) == 0 {
		return plan, nil
	}
	have := make(map[string]Entry, len(l.entries))
	for _, e := range l.entries {
		have[e.CIDR] = e
	}
	for _, c := range in.remove {
		p, e := canonicalCIDR(l.family, c)
		if e != nil {
			return modifyPlan{}, e
		}
		if _, ok := have[p.String()]; !ok {
			return modifyPlan{}, errEntryAbsent(c)
		}
		delete(have, p.String())
	}
	for _, a := range in.add {
		p, e := canonicalCIDR(l.family, a.cidr)
		if e != nil {
			return modifyPlan{}, e
		}
		if _, ok := have[p.String()]; ok {
			return modifyPlan{}, errEntryPresent(a.cidr)
		}
		have[p.String()] = Entry{CIDR: p.String(), Description: deref(a.description)}
	}
	if len(have) > int(l.maxEntries) {
		return modifyPlan{}, errMaxEntriesExceeded(l.maxEntries)
	}
	plan.entries = make([]Entry, 0, len(have))
	for _, e := range have {
		plan.entries = append(plan.entries, e)
	}
	sortEntries(plan.entries)
	return plan, nil
}

// modify checks and applies a modification under the Server's lock, and
// returns the list as it left it. A change of the entries makes a new
// version; a change of the entries or of MaxEntries leaves the list
// modify-in-progress for the settle delay; a new name alone does neither.
func (s *Server) modify(in modifyRequest) (PrefixList, *Error) {
	if e := checkModifyRequest(in); e != nil {
		return PrefixList{}, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pl, ok := s.lists[in.id]
	if !ok {
		return PrefixList{}, errPrefixListNotFound(in.id)
	}
	now := s.cfg.now()
	plan, e := planModify(listView{id: pl.id, family: pl.family, version: pl.version(), maxEntries: pl.maxEntries,
		state: pl.state(now), entries: pl.current()}, in)
	if e != nil {
		return PrefixList{}, e
	}
	if plan.entries != nil {
		pl.versions = append(pl.versions, plan.entries)
	}
	if plan.maxEntries != nil {
		pl.maxEntries = *plan.maxEntries
	}
	if plan.name != nil {
		pl.name = *plan.name
	}
	if plan.entries != nil || plan.maxEntries != nil {
		pl.settling, pl.settleAt = "modify", now.Add(s.cfg.settleDelay)
	}
	return pl.snapshot(now), nil
}

// createRequest is a CreateManagedPrefixList, or a list seeded by
// Server.CreatePrefixList. nil members were not given.
type createRequest struct {
	name, family *string
	maxEntries   *int32
	entries      []rawEntry
	tags         []Tag
}

// create checks and adds a list, in order: the required members, the
// family, MaxEntries' range, the name, the number of entries (only for a
// request: a seeded list may bring more), each description, a CIDR block
// named twice, each CIDR block, and the entries against MaxEntries. A list
// made by a request is create-in-progress for the settle delay; a seeded
// one is create-complete at once.
func (s *Server) create(in createRequest, request bool) (PrefixList, *Error) {
	switch {
	case in.name == nil:
		return PrefixList{}, errMissingParameter("PrefixListName")
	case in.maxEntries == nil:
		return PrefixList{}, errMissingParameter("MaxEntries")
	case in.family == nil:
		return PrefixList{}, errMissingParameter("AddressFamily")
	case *in.family != IPv4 && *in.family != IPv6:
		return PrefixList{}, errInvalidParameterValue(fmt.Sprintf("The address family %s is not valid. Valid values are %s and %s.", *in.family, IPv4, IPv6))
	case *in.maxEntries < 1 || *in.maxEntries > MaxEntriesLimit:
		return PrefixList{}, errMaxEntriesRange()
	case request && len(in.entries) > MaxEntryChanges:
		return PrefixList{}, errInvalidParameterValue(fmt.Sprintf("The number of entries per request cannot exceeds limit (%d).", MaxEntryChanges))
	}
	if e := checkName(*in.name); e != nil {
		return PrefixList{}, e
	}
	for _, a := range in.entries {
		if e := checkDescription(a); e != nil {
			return PrefixList{}, e
		}
	}
	if e := checkNamedOnce(in.entries, "Entries"); e != nil {
		return PrefixList{}, e
	}
	entries := make([]Entry, len(in.entries))
	for i, a := range in.entries {
		p, e := canonicalCIDR(*in.family, a.cidr)
		if e != nil {
			return PrefixList{}, e
		}
		entries[i] = Entry{CIDR: p.String(), Description: deref(a.description)}
	}
	if len(entries) > int(*in.maxEntries) {
		return PrefixList{}, errMaxEntriesExceeded(*in.maxEntries)
	}
	sortEntries(entries)
	id := newPrefixListID()
	pl := &prefixList{id: id, name: *in.name, arn: s.arn(id), owner: s.cfg.accountID, family: *in.family,
		maxEntries: *in.maxEntries, tags: slices.Clone(in.tags), versions: [][]Entry{entries}, settling: "create"}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.now()
	if request {
		pl.settleAt = now.Add(s.cfg.settleDelay)
	}
	s.lists[id] = pl
	return pl.snapshot(now), nil
}

func errMaxEntriesRange() *Error {
	return errInvalidParameterValue(fmt.Sprintf("Must specify a max size between 1 and %d", MaxEntriesLimit))
}

// checkName applies the constraints on a list's name: 1 to 255
// characters, and not the prefix of the lists AWS manages.
func checkName(name string) *Error {
	switch n := len([]rune(name)); {
	case n < 1 || n > 255:
		return errInvalidParameterValue("The prefix list name must be between 1 and 255 characters long.")
	case strings.HasPrefix(name, "com.amazonaws"):
		return errInvalidParameterValue("The prefix list name cannot start with com.amazonaws.")
	}
	return nil
}

// checkDescription applies the constraint on an entry's description: up
// to MaxDescriptionLength characters.
func checkDescription(a rawEntry) *Error {
	if a.description != nil && len([]rune(*a.description)) > MaxDescriptionLength {
		return errInvalidParameterValue(fmt.Sprintf("The description of the entry %s is longer than %d characters.", a.cidr, MaxDescriptionLength))
	}
	return nil
}

// checkNamedOnce refuses a list of entries that names a CIDR block twice.
func checkNamedOnce(entries []rawEntry, member string) *Error {
	seen := make(map[string]bool, len(entries))
	for _, a := range entries {
		k := cidrKey(a.cidr)
		if seen[k] {
			return errInvalidParameterValue(fmt.Sprintf("Request cannot contain Cidr %s more than once in %s", a.cidr, member))
		}
		seen[k] = true
	}
	return nil
}

// cidrKey is what two CIDR blocks of a request are compared by before the
// list's family is known: the canonical form when the block parses, the
// text otherwise.
func cidrKey(cidr string) string {
	if p, err := netip.ParsePrefix(cidr); err == nil {
		return p.String()
	}
	return cidr
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
