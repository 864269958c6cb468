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

package ipgroupfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// IPGroup is a group as the Server holds it, as Server.Group returns it.
type IPGroup struct {
	// ID is the ARM resource ID,
	// /subscriptions/S/resourceGroups/RG/providers/Microsoft.Network/ipGroups/NAME.
	ID            string
	ResourceGroup string
	Name          string
	// Location is the location as the last write sent it.
	Location string
	// Tags are the tags the last write sent; nil when it sent none.
	Tags map[string]string
	// Addresses are the entries of ipAddresses, as sent.
	Addresses []string
	// Etag is W/"<uuid>", new after every accepted write.
	Etag string
	// ProvisioningState is StateUpdating while the last write's operation
	// runs, then StateSucceeded or StateFailed.
	ProvisioningState string
}

// groupKey names a group. ARM's names are not case-sensitive: the key is
// lower-case, the group keeps the case it was created with.
type groupKey struct{ rg, name string }

func keyOf(rg, name string) groupKey { return groupKey{strings.ToLower(rg), strings.ToLower(name)} }

// group is a group's state. Its fields are guarded by Server.mu.
type group struct {
	rg, name string
	// top are the fields the last write sent at the top level, raw, but
	// for the read-only ones the Server sets (id, name, type, etag) and
	// properties; location is among them.
	top map[string]json.RawMessage
	// props are the properties the last write sent, raw, but for the
	// read-only ones (provisioningState, firewalls, firewallPolicies).
	props     map[string]json.RawMessage
	location  string
	addresses []string
	etag      string
	state     string
	// op is the operation of the last accepted write, until it is done.
	op *operation
}

func newEtag() string { return `W/"` + newUUID() + `"` }

// resourceID is the ARM ID of a group of this Server.
func (s *Server) resourceID(rg, name string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/%s/%s", s.cfg.subscriptionID, rg, ResourceType, name)
}

// view is the IPGroup of g; the caller holds Server.mu.
func (s *Server) view(g *group) IPGroup {
	out := IPGroup{ID: s.resourceID(g.rg, g.name), ResourceGroup: g.rg, Name: g.name, Location: g.location,
		Addresses: slices.Clone(g.addresses), Etag: g.etag, ProvisioningState: g.state}
	if raw, ok := g.top["tags"]; ok {
		_ = json.Unmarshal(raw, &out.Tags)
	}
	return out
}

// sameLocation compares locations as ARM does: "West US" is westus.
func sameLocation(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return norm(a) == norm(b)
}

// get answers IpGroups_Get.
func (s *Server) get(c target) (answer, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[keyOf(c.ResourceGroup, c.Group)]
	if !ok {
		return answer{}, errNotFound(c.Group, c.ResourceGroup)
	}
	s.settle(g)
	return answer{status: http.StatusOK, body: s.document(g)}, nil
}

// createOrUpdate answers IpGroups_CreateOrUpdate. The checks come in this
// order: the body (400), the WriteHook, then under the lock the group's
// operation (409, or 429 under BusyRetryable), If-None-Match and If-Match
// (412), and the location (400). An accepted write replaces everything
// the client may set, gets a new etag, and starts an operation: 201 for a
// new group, 200 for an existing one, with provisioningState Updating and
// the operation's URL in Azure-AsyncOperation. fail, when not nil, is the
// error the operation will end with.
func (s *Server) createOrUpdate(r *http.Request, c target, raw []byte, fail *Error) (answer, *Error) {
	b, e := s.parseBody(c.Group, raw)
	if e != nil {
		return answer{}, e
	}
	if s.cfg.writeHook != nil {
		s.cfg.writeHook(c.ResourceGroup, c.Group, r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := keyOf(c.ResourceGroup, c.Group)
	g, exists := s.groups[key]
	if exists {
		s.settle(g)
		if g.op != nil {
			return answer{}, errBusy(s.cfg.busy, g.op, s.resourceID(g.rg, g.name), g.op.url)
		}
	}
	if e := checkPreconditions(r, g); e != nil {
		return answer{}, e
	}
	if exists && !sameLocation(g.location, b.location) {
		return answer{}, errInvalidLocation(g.name, g.rg, g.location, b.location)
	}
	status := http.StatusOK
	if !exists {
		g = &group{rg: c.ResourceGroup, name: c.Group}
		s.groups[key] = g
		status = http.StatusCreated
	}
	g.top, g.props, g.location, g.addresses = b.top, b.props, b.location, b.addresses
	g.etag, g.state = newEtag(), StateUpdating
	op := s.startOperation(g, baseURL(r), fail)
	s.writes++
	h := http.Header{}
	h.Set("Azure-AsyncOperation", op.url)
	if s.cfg.pollAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(s.cfg.pollAfter))
	}
	return answer{status: status, body: s.document(g), header: h}, nil
}

// checkPreconditions judges If-None-Match: * (no group yet) and If-Match
// (* or the group's etag, compared as sent); g is nil when there is no
// group.
func checkPreconditions(r *http.Request, g *group) *Error {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if strings.TrimSpace(inm) == "*" && g != nil {
			return errPreconditionFailed("The resource already exists; If-None-Match: * does not hold.")
		}
	}
	im := strings.TrimSpace(r.Header.Get("If-Match"))
	switch {
	case im == "":
		return nil
	case g == nil:
		return errPreconditionFailed(fmt.Sprintf("Etag provided in if-match header %s does not match etag of resource, which does not exist.", im))
	case im == "*" || im == g.etag:
		return nil
	}
	return errPreconditionFailed(fmt.Sprintf("Etag provided in if-match header %s does not match etag %s of resource.", im, g.etag))
}

// CreateGroup adds a group without a request, to seed a test, as a
// finished write of this location and addresses would leave it:
// provisioningState Succeeded, no tags. It returns the group's etag. It
// fails for a group that exists or addresses the service refuses.
func (s *Server) CreateGroup(resourceGroup, name, location string, addresses []string) (string, error) {
	if resourceGroup == "" || name == "" || location == "" {
		return "", errors.New("ipgroupfake: a group needs a resource group, a name and a location")
	}
	if e := s.checkAddresses(name, addresses); e != nil {
		return "", e
	}
	loc, _ := json.Marshal(location)
	list, _ := json.Marshal(addressesOrEmpty(addresses))
	s.mu.Lock()
	defer s.mu.Unlock()
	key := keyOf(resourceGroup, name)
	if _, ok := s.groups[key]; ok {
		return "", fmt.Errorf("ipgroupfake: group %s/%s exists", resourceGroup, name)
	}
	g := &group{rg: resourceGroup, name: name, location: location, addresses: slices.Clone(addresses),
		top: map[string]json.RawMessage{"location": loc}, props: map[string]json.RawMessage{"ipAddresses": list},
		etag: newEtag(), state: StateSucceeded}
	s.groups[key] = g
	return g.etag, nil
}

func addressesOrEmpty(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// Group returns the group, as it is now, and whether there is one.
func (s *Server) Group(resourceGroup, name string) (IPGroup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[keyOf(resourceGroup, name)]
	if !ok {
		return IPGroup{}, false
	}
	s.settle(g)
	return s.view(g), true
}

// GroupJSON returns the body a GET of the group would answer now, byte
// for byte, and whether there is one.
func (s *Server) GroupJSON(resourceGroup, name string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[keyOf(resourceGroup, name)]
	if !ok {
		return nil, false
	}
	s.settle(g)
	return s.document(g), true
}

// SetAddresses replaces a group's addresses without a request, as another
// writer would behind the client's back, and returns the new etag. The
// rest of the group, and an operation in progress, stay. The addresses
// are checked as a write's are.
func (s *Server) SetAddresses(resourceGroup, name string, addresses []string) (string, error) {
	if e := s.checkAddresses(name, addresses); e != nil {
		return "", e
	}
	list, _ := json.Marshal(addressesOrEmpty(addresses))
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[keyOf(resourceGroup, name)]
	if !ok {
		return "", errNotFound(name, resourceGroup)
	}
	s.settle(g)
	g.addresses = slices.Clone(addresses)
	g.props["ipAddresses"] = list
	g.etag = newEtag()
	return g.etag, nil
}
