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
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// readOnlyTop and readOnlyProps are the fields a client may send back
// from a read and the Server ignores.
var (
	readOnlyTop   = []string{"id", "name", "type", "etag", "properties"}
	readOnlyProps = []string{"provisioningState", "firewalls", "firewallPolicies"}
)

// document is the group as ARM serves it: the read-only fields, then what
// the last write sent, each value byte for byte as sent.
func (s *Server) document(g *group) []byte {
	var b bytes.Buffer
	field := func(first bool, k string, v []byte) {
		if !first {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	str := func(v string) []byte { out, _ := json.Marshal(v); return out }
	b.WriteByte('{')
	field(true, "id", str(s.resourceID(g.rg, g.name)))
	field(false, "name", str(g.name))
	field(false, "type", str(ResourceType))
	field(false, "etag", str(g.etag))
	for _, k := range sortedKeys(g.top) {
		field(false, k, g.top[k])
	}
	b.WriteString(`,"properties":{`)
	field(true, "provisioningState", str(g.state))
	if _, ok := g.props["ipAddresses"]; !ok {
		field(false, "ipAddresses", []byte("[]"))
	}
	for _, k := range sortedKeys(g.props) {
		field(false, k, g.props[k])
	}
	field(false, "firewalls", []byte("[]"))
	field(false, "firewallPolicies", []byte("[]"))
	b.WriteString("}}")
	return b.Bytes()
}

// sortedKeys returns m's keys in the order the document shows them:
// location and tags first at the top level, ipAddresses first among the
// properties, as ARM orders them, then the others by name.
func sortedKeys(m map[string]json.RawMessage) []string {
	rank := func(k string) int {
		switch k {
		case "location":
			return 0
		case "tags":
			return 1
		case "ipAddresses":
			return 0
		}
		return 2
	}
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return keys
}

// body is a write's body, checked: the fields to keep, and what they say.
type body struct {
	top       map[string]json.RawMessage
	props     map[string]json.RawMessage
	location  string
	addresses []string
}

// parseBody checks a CreateOrUpdate body as the service does: a JSON
// object with a location, tags that are an object, properties that are an
// object, and ipAddresses, when present, a list of valid entries within
// the limit.
func (s *Server) parseBody(name string, raw []byte) (body, *Error) {
	var b body
	if err := json.Unmarshal(raw, &b.top); err != nil || b.top == nil {
		return b, errInvalidRequestFormat("the body is not a JSON object")
	}
	for _, k := range readOnlyTop {
		if k != "properties" {
			delete(b.top, k)
		}
	}
	propsRaw := b.top["properties"]
	delete(b.top, "properties")
	if err := json.Unmarshal(b.top["location"], &b.location); err != nil || strings.TrimSpace(b.location) == "" {
		return b, errLocationRequired()
	}
	if tags, ok := b.top["tags"]; ok {
		var m map[string]string
		if err := json.Unmarshal(tags, &m); err != nil {
			return b, errInvalidRequestFormat("tags is not an object of strings")
		}
	}
	b.props = map[string]json.RawMessage{}
	if len(propsRaw) > 0 && !bytes.Equal(propsRaw, []byte("null")) {
		if err := json.Unmarshal(propsRaw, &b.props); err != nil {
			return b, errInvalidRequestFormat("properties is not an object")
		}
	}
	for _, k := range readOnlyProps {
		delete(b.props, k)
	}
	if list, ok := b.props["ipAddresses"]; ok && !bytes.Equal(list, []byte("null")) {
		if err := json.Unmarshal(list, &b.addresses); err != nil {
			return b, errInvalidRequestFormat("properties.ipAddresses is not a list of strings")
		}
	} else {
		delete(b.props, "ipAddresses")
	}
	if e := s.checkAddresses(name, b.addresses); e != nil {
		return b, e
	}
	return b, nil
}

// checkAddresses applies the limit, then checks each entry.
func (s *Server) checkAddresses(name string, addresses []string) *Error {
	if len(addresses) > s.cfg.maxAddresses {
		return errTooManyAddresses(name, len(addresses), s.cfg.maxAddresses)
	}
	if len(addresses) == 0 && s.cfg.refuseEmpty {
		return errNoAddresses(name)
	}
	for _, a := range addresses {
		if !validAddress(a) {
			return errInvalidAddress(name, a)
		}
	}
	return nil
}
