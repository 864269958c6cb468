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
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// action runs one action on a request's parameters and returns the answer
// to encode.
type action func(p params) (stamper, *Error)

func (s *Server) action(name string) (action, bool) {
	switch name {
	case ActionDescribeManagedPrefixLists:
		return s.describePrefixLists, true
	case ActionGetManagedPrefixListEntries:
		return s.getEntries, true
	case ActionModifyManagedPrefixList:
		return s.modifyPrefixList, true
	case ActionCreateManagedPrefixList:
		return s.createPrefixList, true
	}
	return nil, false
}

// pageSize reads MaxResults: 1 to MaxResults, MaxResults when absent.
func pageSize(p params) (int, *Error) {
	n, e := p.int32("MaxResults")
	switch {
	case e != nil:
		return 0, e
	case n == nil:
		return MaxResults, nil
	case *n < 1 || *n > MaxResults:
		return 0, errInvalidParameterValue(fmt.Sprintf("Value (%d) for parameter maxResults is invalid. Expecting a value between 1 and %d.", *n, MaxResults))
	}
	return int(*n), nil
}

// A NextToken is opaque to a client; here it is the base64 of the scope
// it pages ("lists", or a list's ID and the TargetVersion it was given,
// 0 for none) and the offset of the next page. A token for another scope
// is not valid.

func encodeToken(scope string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(scope + "#" + strconv.Itoa(offset)))
}

func decodeToken(p params, scope string) (int, *Error) {
	tok := p.str("NextToken")
	if tok == nil {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*tok)
	if err != nil {
		return 0, errInvalidPaginationToken(*tok)
	}
	sc, off, ok := strings.Cut(string(raw), "#")
	offset, err := strconv.Atoi(off)
	if !ok || err != nil || sc != scope || offset < 0 {
		return 0, errInvalidPaginationToken(*tok)
	}
	return offset, nil
}

// page returns the items [offset, offset+size) of n, and the offset of the
// next page, -1 when this one is the last.
func page(n, offset, size int) (from, to, next int) {
	from = min(offset, n)
	to = min(from+size, n)
	if to < n {
		return from, to, to
	}
	return from, to, -1
}

// describePrefixLists answers DescribeManagedPrefixLists: the lists named
// by PrefixListId.N (all of them when none is named; one that is not there
// is InvalidPrefixListID.NotFound), that match every Filter.N
// (prefix-list-id, prefix-list-name, owner-id), ordered by ID, a page at
// a time.
func (s *Server) describePrefixLists(p params) (stamper, *Error) {
	ids := p.strings("PrefixListId")
	filters, e := p.filters()
	if e != nil {
		return nil, e
	}
	for _, f := range filters {
		if !slices.Contains([]string{"prefix-list-id", "prefix-list-name", "owner-id"}, f.name) {
			return nil, errInvalidParameterValue(fmt.Sprintf("The filter '%s' is invalid", f.name))
		}
	}
	size, e := pageSize(p)
	if e != nil {
		return nil, e
	}
	offset, e := decodeToken(p, "lists")
	if e != nil {
		return nil, e
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.now()
	var lists []PrefixList
	for _, id := range ids {
		if _, ok := s.lists[id]; !ok {
			return nil, errPrefixListNotFound(id)
		}
	}
	for id, pl := range s.lists {
		if len(ids) > 0 && !slices.Contains(ids, id) {
			continue
		}
		snap := pl.snapshot(now)
		if matches(snap, filters) {
			lists = append(lists, snap)
		}
	}
	slices.SortFunc(lists, func(a, b PrefixList) int { return strings.Compare(a.ID, b.ID) })
	from, to, next := page(len(lists), offset, size)
	out := &describeResponse{}
	for _, pl := range lists[from:to] {
		out.PrefixLists = append(out.PrefixLists, toXML(pl))
	}
	if next >= 0 {
		out.NextToken = encodeToken("lists", next)
	}
	return out, nil
}

// matches reports whether a list matches every filter.
func matches(pl PrefixList, filters []filter) bool {
	for _, f := range filters {
		var v string
		switch f.name {
		case "prefix-list-id":
			v = pl.ID
		case "prefix-list-name":
			v = pl.Name
		case "owner-id":
			v = pl.OwnerID
		}
		if !slices.Contains(f.values, v) {
			return false
		}
	}
	return true
}

// getEntries answers GetManagedPrefixListEntries: the entries of the list
// at TargetVersion (the current version when absent; every version the
// list has had can be read), ordered by CIDR block, a page at a time.
//
// A token from a read with a TargetVersion pages that version. A token
// from a read without one pages whatever version is current when the next
// page is asked for, so a client that reads page by page while another
// writer changes the list can see an entry twice or miss one: a client
// that means to read one version pins it with TargetVersion.
func (s *Server) getEntries(p params) (stamper, *Error) {
	id := p.str("PrefixListId")
	if id == nil {
		return nil, errMissingParameter("PrefixListId")
	}
	target, e := p.int64("TargetVersion")
	if e != nil {
		return nil, e
	}
	size, e := pageSize(p)
	if e != nil {
		return nil, e
	}
	var pinned int64
	if target != nil {
		pinned = *target
	}
	offset, e := decodeToken(p, fmt.Sprintf("%s/%d", *id, pinned))
	if e != nil {
		return nil, e
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	pl, ok := s.lists[*id]
	if !ok {
		return nil, errPrefixListNotFound(*id)
	}
	version := pl.version()
	if target != nil {
		if *target < 1 || *target > version {
			return nil, errInvalidParameterValue(fmt.Sprintf("The prefix list %s has no version %d.", *id, *target))
		}
		version = *target
	}
	entries := pl.versions[version-1]
	from, to, next := page(len(entries), offset, size)
	out := &entriesResponse{}
	for _, en := range entries[from:to] {
		out.Entries = append(out.Entries, xmlEntry{Cidr: en.CIDR, Description: en.Description})
	}
	if next >= 0 {
		out.NextToken = encodeToken(fmt.Sprintf("%s/%d", *id, pinned), next)
	}
	return out, nil
}

// modifyPrefixList answers ModifyManagedPrefixList (see modify for the
// rules) with the list as the modification left it.
func (s *Server) modifyPrefixList(p params) (stamper, *Error) {
	in := modifyRequest{id: deref(p.str("PrefixListId")), name: p.str("PrefixListName")}
	var e *Error
	if in.currentVersion, e = p.int64("CurrentVersion"); e != nil {
		return nil, e
	}
	if in.maxEntries, e = p.int32("MaxEntries"); e != nil {
		return nil, e
	}
	if in.add, e = p.entries("AddEntry"); e != nil {
		return nil, e
	}
	removes, e := p.entries("RemoveEntry")
	if e != nil {
		return nil, e
	}
	for _, r := range removes {
		in.remove = append(in.remove, r.cidr)
	}
	pl, e := s.modify(in)
	if e != nil {
		return nil, e
	}
	return &modifyResponse{PrefixList: toXML(pl)}, nil
}

// createPrefixList answers CreateManagedPrefixList (see create for the
// rules) with the new list. ClientToken is accepted and not remembered.
func (s *Server) createPrefixList(p params) (stamper, *Error) {
	in := createRequest{name: p.str("PrefixListName"), family: p.str("AddressFamily"), tags: p.tags()}
	var e *Error
	if in.maxEntries, e = p.int32("MaxEntries"); e != nil {
		return nil, e
	}
	if in.entries, e = p.entries("Entry"); e != nil {
		return nil, e
	}
	pl, e := s.create(in, true)
	if e != nil {
		return nil, e
	}
	return &createResponse{PrefixList: toXML(pl)}, nil
}
