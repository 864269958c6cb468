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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Entry is one entry of a prefix list: a CIDR block, in the canonical
// form the list keeps, and its description ("" when it has none).
type Entry struct {
	CIDR        string
	Description string
}

// Tag is a tag of a prefix list.
type Tag struct {
	Key, Value string
}

// PrefixList is a managed prefix list as the Server holds it, at its
// current version. Server.PrefixList returns a copy.
type PrefixList struct {
	ID            string
	Name          string
	ARN           string
	OwnerID       string
	AddressFamily string // IPv4 or IPv6
	MaxEntries    int32
	// Version counts the changes of the entries: 1 when the list was
	// created, one more after every change of them. A change of the name
	// or of MaxEntries keeps it.
	Version int64
	// State is one of the State constants, by the Server's clock.
	State string
	Tags  []Tag
	// Entries are the entries of Version, ordered by CIDR block.
	Entries []Entry
}

// prefixList is a list and every version of its entries. Its fields are
// guarded by Server.mu.
type prefixList struct {
	id, name, arn, owner, family string
	maxEntries                   int32
	tags                         []Tag
	// versions[v-1] are the entries of version v, ordered by CIDR block;
	// a version, once made, never changes.
	versions [][]Entry
	// settling is "create" or "modify": what the list last did, and so
	// which of the states it is in; settleAt is when it settles.
	settling string
	settleAt time.Time
}

func (pl *prefixList) version() int64   { return int64(len(pl.versions)) }
func (pl *prefixList) current() []Entry { return pl.versions[len(pl.versions)-1] }

// state is the list's state at now: in progress until settleAt, complete
// from then on.
func (pl *prefixList) state(now time.Time) string {
	if now.Before(pl.settleAt) {
		return pl.settling + "-in-progress"
	}
	return pl.settling + "-complete"
}

// snapshot copies the list at now.
func (pl *prefixList) snapshot(now time.Time) PrefixList {
	return PrefixList{ID: pl.id, Name: pl.name, ARN: pl.arn, OwnerID: pl.owner, AddressFamily: pl.family,
		MaxEntries: pl.maxEntries, Version: pl.version(), State: pl.state(now),
		Tags: slices.Clone(pl.tags), Entries: slices.Clone(pl.current())}
}

// newPrefixListID returns an ID of the form EC2 gives: "pl-" and 17 hex
// digits.
func newPrefixListID() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return "pl-" + hex.EncodeToString(b[:])[:17]
}

// newRequestID returns a random (version 4) UUID, the form of EC2's
// request IDs.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// arn returns the ARN of a list.
func (s *Server) arn(id string) string {
	partition := "aws"
	if strings.HasPrefix(s.cfg.region, "cn-") {
		partition = "aws-cn"
	}
	return fmt.Sprintf("arn:%s:ec2:%s:%s:prefix-list/%s", partition, s.cfg.region, s.cfg.accountID, id)
}

// CreatePrefixList adds a list without a request, to seed a test, and
// returns its ID. It is create-complete at once, whatever the settle
// delay. family is IPv4 or IPv6; entries are checked as
// CreateManagedPrefixList checks them, except that there may be more than
// MaxEntryChanges of them. It fails as that action would.
func (s *Server) CreatePrefixList(name, family string, maxEntries int32, entries ...Entry) (string, error) {
	in := createRequest{name: &name, family: &family, maxEntries: &maxEntries}
	for _, e := range entries {
		in.entries = append(in.entries, rawEntry{cidr: e.CIDR, description: optional(e.Description)})
	}
	pl, e := s.create(in, false)
	if e != nil {
		return "", e
	}
	return pl.ID, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// PrefixList returns a copy of the list with this ID at its current
// version, and whether there is one.
func (s *Server) PrefixList(id string) (PrefixList, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pl, ok := s.lists[id]
	if !ok {
		return PrefixList{}, false
	}
	return pl.snapshot(s.cfg.now()), true
}

// EntriesAt returns a copy of the entries of the list with this ID at
// this version, and whether the list has that version.
func (s *Server) EntriesAt(id string, version int64) ([]Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pl, ok := s.lists[id]
	if !ok || version < 1 || version > pl.version() {
		return nil, false
	}
	return slices.Clone(pl.versions[version-1]), true
}

// ModifyEntries changes the entries of a list without a request, as
// another writer sharing the list would, behind the back of the client
// under test: it adds entries (with their descriptions) and removes CIDR
// blocks, makes a new version and returns it. It is judged as a
// ModifyManagedPrefixList without CurrentVersion: it fails as that would
// (IncorrectState while the list is in progress, an entry that is there
// or not there), and like it, it leaves the list modify-in-progress for
// the settle delay. A FaultHook may call it, to slip a change in between
// a client's read and its write.
func (s *Server) ModifyEntries(id string, add []Entry, remove []string) (int64, error) {
	in := modifyRequest{id: id, remove: remove}
	for _, e := range add {
		in.add = append(in.add, rawEntry{cidr: e.CIDR, description: optional(e.Description)})
	}
	pl, e := s.modify(in)
	if e != nil {
		return 0, e
	}
	s.mu.Lock()
	s.foreignModifies++
	s.mu.Unlock()
	return pl.Version, nil
}
