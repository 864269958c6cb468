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

package wafv2fake

import (
	"cmp"
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// IPSet is an IP set as the Server holds it. Server.IPSet returns a copy.
type IPSet struct {
	Name        string
	ID          string
	ARN         string
	Scope       string
	Description string // "" when the set has none (WAF's minimum length is 1)
	// IPAddressVersion is IPv4 or IPv6.
	IPAddressVersion string
	// Addresses are the CIDR blocks, in the order they were given, each
	// in the form the set stores (see the package doc).
	Addresses []string
	// LockToken is the token an UpdateIPSet must present: a fresh random
	// UUID after every change.
	LockToken string
}

// ipSet is a set and the lock its updates hold while they are in flight.
// The fields of IPSet are guarded by Server.mu; update orders the updates
// of the set, so that a test can hold one (UpdateHook) and see another
// meet it (OverlapHook).
type ipSet struct {
	IPSet
	update sync.Mutex
}

type setKey struct{ scope, id string }

// newUUID returns a random (version 4) UUID, the form of WAF's IDs and
// lock tokens.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// The API model's constraints on the members the Server reads.
var (
	namePattern  = regexp.MustCompile(`^[\w\-]+$`)
	uuidPattern  = regexp.MustCompile(`^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$`)
	descPattern  = regexp.MustCompile(`^[\w+=:#@/\-,\.][\w+=:#@/\-,\.\s]+[\w+=:#@/\-,\.]$`)
	scopeValues  = []string{ScopeCloudFront, ScopeRegional}
	ipVersionSet = []string{IPv4, IPv6}
)

// member checks one string member against the model: present when
// required, of a length in [lo, hi], matching pattern (when not nil), and
// one of enum (when not nil).
type member struct {
	name     string
	value    *string
	required bool
	lo, hi   int
	pattern  *regexp.Regexp
	enum     []string
}

func (m member) check() *Error {
	if m.value == nil {
		if m.required {
			return errValidation(m.name, "null", "Member must not be null")
		}
		return nil
	}
	v := *m.value
	quoted := "'" + v + "'"
	switch n := len([]rune(v)); {
	case m.enum != nil && !slices.Contains(m.enum, v):
		return errValidation(m.name, quoted, "Member must satisfy enum value set: ["+strings.Join(m.enum, ", ")+"]")
	case m.hi > 0 && n > m.hi:
		return errValidation(m.name, quoted, "Member must have length less than or equal to "+strconv.Itoa(m.hi))
	case n < m.lo:
		return errValidation(m.name, quoted, "Member must have length greater than or equal to "+strconv.Itoa(m.lo))
	case m.pattern != nil && !m.pattern.MatchString(v):
		return errValidation(m.name, quoted, "Member must satisfy regular expression pattern: "+m.pattern.String())
	}
	return nil
}

func checkMembers(ms ...member) *Error {
	for _, m := range ms {
		if e := m.check(); e != nil {
			return e
		}
	}
	return nil
}

func nameMember(v *string) member {
	return member{name: "name", value: v, required: true, lo: 1, hi: 128, pattern: namePattern}
}

func scopeMember(v *string) member {
	return member{name: "scope", value: v, required: true, enum: scopeValues}
}

func idMember(v *string) member {
	return member{name: "id", value: v, required: true, lo: 1, hi: 36, pattern: uuidPattern}
}

func descriptionMember(v *string) member {
	return member{name: "description", value: v, lo: 1, hi: 256, pattern: descPattern}
}

// checkAddressMembers applies the model's constraint on each address (1
// to 50 characters) before WAF looks at what they say.
func checkAddressMembers(addresses *[]string) *Error {
	if addresses == nil {
		return errValidation("addresses", "null", "Member must not be null")
	}
	for i, a := range *addresses {
		if n := len([]rune(a)); n < 1 || n > 50 {
			return errValidation(fmt.Sprintf("addresses.%d.member", i+1), "'"+a+"'", "Member must have length between 1 and 50")
		}
	}
	return nil
}

// checkScope refuses CLOUDFRONT outside us-east-1: CloudFront's sets live
// there, and every call about them goes to that region's endpoint.
func (s *Server) checkScope(scope string) *Error {
	if scope == ScopeCloudFront && s.cfg.region != "us-east-1" {
		return errInvalidParameter("SCOPE_VALUE", scope, "The scope is not valid.")
	}
	return nil
}

// arn returns the ARN of a set.
func (s *Server) arn(scope, name, id string) string {
	partition, where := "aws", "regional"
	if strings.HasPrefix(s.cfg.region, "cn-") {
		partition = "aws-cn"
	}
	if scope == ScopeCloudFront {
		where = "global"
	}
	return fmt.Sprintf("arn:%s:wafv2:%s:%s:%s/ipset/%s/%s", partition, s.cfg.region, s.cfg.accountID, where, name, id)
}

// find returns the set with this scope, name and ID: WAF names a set by
// all three, and one that does not match is not there.
func (s *Server) find(scope, name, id string) (*ipSet, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.sets[setKey{scope, id}]
	if !ok || set.Name != name {
		return nil, errNonexistentItem()
	}
	return set, nil
}

// CreateIPSet adds a set without a request, to seed a test, and returns
// its ID. description "" means none; version is IPv4 or IPv6; addresses
// must be CIDR blocks of that family, as for UpdateIPSet. It fails as the
// CreateIPSet operation would.
func (s *Server) CreateIPSet(scope, name, description, version string, addresses []string) (string, error) {
	var desc *string
	if description != "" {
		desc = &description
	}
	sum, e := s.create(scope, name, desc, version, addresses)
	if e != nil {
		return "", e
	}
	return sum.ID, nil
}

// create checks and adds a set.
func (s *Server) create(scope, name string, description *string, version string, addresses []string) (summary, *Error) {
	if e := checkMembers(nameMember(&name), scopeMember(&scope), descriptionMember(description),
		member{name: "iPAddressVersion", value: &version, required: true, enum: ipVersionSet}); e != nil {
		return summary{}, e
	}
	if e := checkAddressMembers(&addresses); e != nil {
		return summary{}, e
	}
	if e := s.checkScope(scope); e != nil {
		return summary{}, e
	}
	if len(addresses) > s.cfg.maxAddresses {
		return summary{}, errLimitsExceeded()
	}
	addrs, e := canonicalAddresses(version, addresses)
	if e != nil {
		return summary{}, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, set := range s.sets {
		if k.scope == scope && set.Name == name {
			return summary{}, errDuplicateItem()
		}
	}
	id := newUUID()
	set := &ipSet{IPSet: IPSet{Name: name, ID: id, ARN: s.arn(scope, name, id), Scope: scope,
		IPAddressVersion: version, Addresses: addrs, LockToken: newUUID()}}
	if description != nil {
		set.Description = *description
	}
	s.sets[setKey{scope, id}] = set
	return set.summary(), nil
}

// IPSet returns a copy of the set with this scope and ID, and whether
// there is one.
func (s *Server) IPSet(scope, id string) (IPSet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.sets[setKey{scope, id}]
	if !ok {
		return IPSet{}, false
	}
	out := set.IPSet
	out.Addresses = slices.Clone(set.Addresses)
	return out, true
}

// SetAddresses replaces the addresses of a set without a request, as
// another writer would (the description stays), and returns the new lock
// token. It waits for an update in flight, as a request would.
func (s *Server) SetAddresses(scope, id string, addresses []string) (string, error) {
	s.mu.Lock()
	set, ok := s.sets[setKey{scope, id}]
	s.mu.Unlock()
	if !ok {
		return "", errNonexistentItem()
	}
	if len(addresses) > s.cfg.maxAddresses {
		return "", errLimitsExceeded()
	}
	addrs, e := canonicalAddresses(set.IPAddressVersion, addresses)
	if e != nil {
		return "", e
	}
	set.update.Lock()
	defer set.update.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	set.Addresses = addrs
	set.LockToken = newUUID()
	return set.LockToken, nil
}

// The bodies of the operations.

type ipSetBody struct {
	Name             string   `json:"Name"`
	ID               string   `json:"Id"`
	ARN              string   `json:"ARN"`
	Description      *string  `json:"Description,omitempty"`
	IPAddressVersion string   `json:"IPAddressVersion"`
	Addresses        []string `json:"Addresses"`
}

type summary struct {
	ARN         string  `json:"ARN"`
	Description *string `json:"Description,omitempty"`
	ID          string  `json:"Id"`
	LockToken   string  `json:"LockToken"`
	Name        string  `json:"Name"`
}

// summary returns the IPSetSummary of a set; the caller holds Server.mu.
func (set *ipSet) summary() summary {
	return summary{ARN: set.ARN, Description: optional(set.Description), ID: set.ID, LockToken: set.LockToken, Name: set.Name}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type getIPSetInput struct {
	Name  *string `json:"Name"`
	Scope *string `json:"Scope"`
	ID    *string `json:"Id"`
}

type getIPSetOutput struct {
	IPSet     ipSetBody `json:"IPSet"`
	LockToken string    `json:"LockToken"`
}

// getIPSet answers GetIPSet: the set and its current lock token.
func (s *Server) getIPSet(_ *http.Request, body []byte) (any, *Error) {
	var in getIPSetInput
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkMembers(nameMember(in.Name), scopeMember(in.Scope), idMember(in.ID)); e != nil {
		return nil, e
	}
	if e := s.checkScope(*in.Scope); e != nil {
		return nil, e
	}
	set, e := s.find(*in.Scope, *in.Name, *in.ID)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return getIPSetOutput{
		IPSet: ipSetBody{Name: set.Name, ID: set.ID, ARN: set.ARN, Description: optional(set.Description),
			IPAddressVersion: set.IPAddressVersion, Addresses: slices.Clone(set.Addresses)},
		LockToken: set.LockToken,
	}, nil
}

type updateIPSetInput struct {
	Name        *string   `json:"Name"`
	Scope       *string   `json:"Scope"`
	ID          *string   `json:"Id"`
	Description *string   `json:"Description"`
	Addresses   *[]string `json:"Addresses"`
	LockToken   *string   `json:"LockToken"`
}

type updateIPSetOutput struct {
	NextLockToken string `json:"NextLockToken"`
}

// updateIPSet answers UpdateIPSet. It replaces the set's mutable fields,
// the description included: an update without one leaves the set without
// one. The checks come in this order: the model's constraints, the scope,
// the set's existence, the address quota, each address, and last, under
// the set's update lock, the lock token.
func (s *Server) updateIPSet(r *http.Request, body []byte) (any, *Error) {
	var in updateIPSetInput
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkMembers(nameMember(in.Name), scopeMember(in.Scope), idMember(in.ID), descriptionMember(in.Description)); e != nil {
		return nil, e
	}
	if e := checkAddressMembers(in.Addresses); e != nil {
		return nil, e
	}
	if e := checkMembers(member{name: "lockToken", value: in.LockToken, required: true, lo: 1, hi: 36, pattern: uuidPattern}); e != nil {
		return nil, e
	}
	if e := s.checkScope(*in.Scope); e != nil {
		return nil, e
	}
	set, e := s.find(*in.Scope, *in.Name, *in.ID)
	if e != nil {
		return nil, e
	}
	if len(*in.Addresses) > s.cfg.maxAddresses {
		return nil, errLimitsExceeded()
	}
	addrs, e := canonicalAddresses(set.IPAddressVersion, *in.Addresses)
	if e != nil {
		return nil, e
	}

	if !set.update.TryLock() {
		if s.cfg.overlapHook != nil {
			s.cfg.overlapHook(r)
		}
		set.update.Lock()
	}
	defer set.update.Unlock()
	s.mu.Lock()
	current := set.LockToken
	s.mu.Unlock()
	if *in.LockToken != current {
		return nil, errOptimisticLock()
	}
	if s.cfg.updateHook != nil {
		s.cfg.updateHook(r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set.Addresses = addrs
	set.Description = ""
	if in.Description != nil {
		set.Description = *in.Description
	}
	set.LockToken = newUUID()
	return updateIPSetOutput{NextLockToken: set.LockToken}, nil
}

type createIPSetInput struct {
	Name             *string   `json:"Name"`
	Scope            *string   `json:"Scope"`
	Description      *string   `json:"Description"`
	IPAddressVersion *string   `json:"IPAddressVersion"`
	Addresses        *[]string `json:"Addresses"`
}

type createIPSetOutput struct {
	Summary summary `json:"Summary"`
}

// createIPSet answers CreateIPSet. Tags are accepted and not kept.
func (s *Server) createIPSet(_ *http.Request, body []byte) (any, *Error) {
	var in createIPSetInput
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkMembers(nameMember(in.Name), scopeMember(in.Scope),
		member{name: "iPAddressVersion", value: in.IPAddressVersion, required: true, enum: ipVersionSet}); e != nil {
		return nil, e
	}
	if e := checkAddressMembers(in.Addresses); e != nil {
		return nil, e
	}
	sum, e := s.create(*in.Scope, *in.Name, in.Description, *in.IPAddressVersion, *in.Addresses)
	if e != nil {
		return nil, e
	}
	return createIPSetOutput{Summary: sum}, nil
}

type listIPSetsInput struct {
	Scope      *string `json:"Scope"`
	NextMarker *string `json:"NextMarker"`
	Limit      *int    `json:"Limit"`
}

type listIPSetsOutput struct {
	IPSets     []summary `json:"IPSets"`
	NextMarker *string   `json:"NextMarker,omitempty"`
}

// listIPSets answers ListIPSets: the sets of a scope by name, Limit (1 to
// 100, default 100) at a time. The marker is the name of the next set.
func (s *Server) listIPSets(_ *http.Request, body []byte) (any, *Error) {
	var in listIPSetsInput
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkMembers(scopeMember(in.Scope),
		member{name: "nextMarker", value: in.NextMarker, lo: 1, hi: 256}); e != nil {
		return nil, e
	}
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, errValidation("limit", strconv.Itoa(*in.Limit), "Member must have value between 1 and 100")
		}
		limit = *in.Limit
	}
	if e := s.checkScope(*in.Scope); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var sets []*ipSet
	for k, set := range s.sets {
		if k.scope == *in.Scope && (in.NextMarker == nil || set.Name >= *in.NextMarker) {
			sets = append(sets, set)
		}
	}
	slices.SortFunc(sets, func(a, b *ipSet) int { return cmp.Compare(a.Name, b.Name) })
	out := listIPSetsOutput{IPSets: []summary{}}
	for i, set := range sets {
		if i == limit {
			next := set.Name
			out.NextMarker = &next
			break
		}
		out.IPSets = append(out.IPSets, set.summary())
	}
	return out, nil
}
