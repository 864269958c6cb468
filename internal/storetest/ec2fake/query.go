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
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// params are the parameters of a Query API request, from its form-encoded
// body. Lists are flattened with 1-based indices, as the EC2 protocol
// flattens them: PrefixListId.1, AddEntry.2.Cidr, Filter.1.Value.3.
type params url.Values

// str returns a parameter, nil when the request does not give it.
func (p params) str(key string) *string {
	vs, ok := p[key]
	if !ok || len(vs) == 0 {
		return nil
	}
	return &vs[0]
}

func (p params) int64(key string) (*int64, *Error) {
	v := p.str(key)
	if v == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(*v, 10, 64)
	if err != nil {
		return nil, errInvalidParameterValue(fmt.Sprintf("Value (%s) for parameter %s is invalid.", *v, key))
	}
	return &n, nil
}

func (p params) int32(key string) (*int32, *Error) {
	v := p.str(key)
	if v == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(*v, 10, 32)
	if err != nil {
		return nil, errInvalidParameterValue(fmt.Sprintf("Value (%s) for parameter %s is invalid.", *v, key))
	}
	n32 := int32(n)
	return &n32, nil
}

// indices returns, in ascending order, every N of the keys prefix.N and
// prefix.N.<member> that the request gives.
func (p params) indices(prefix string) []int {
	var out []int
	for k := range p {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ".")
		if i, err := strconv.Atoi(n); err == nil && i > 0 && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// strings returns the list prefix.1, prefix.2, ... in index order.
func (p params) strings(prefix string) []string {
	var out []string
	for _, i := range p.indices(prefix) {
		if v := p.str(fmt.Sprintf("%s.%d", prefix, i)); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// entries returns the entries prefix.N.Cidr with prefix.N.Description;
// an entry without a Cidr is a missing parameter.
func (p params) entries(prefix string) ([]rawEntry, *Error) {
	var out []rawEntry
	for _, i := range p.indices(prefix) {
		key := fmt.Sprintf("%s.%d", prefix, i)
		cidr := p.str(key + ".Cidr")
		if cidr == nil {
			return nil, errMissingParameter(key + ".Cidr")
		}
		out = append(out, rawEntry{cidr: *cidr, description: p.str(key + ".Description")})
	}
	return out, nil
}

// filter is one Filter.N of a Describe request: a name and the values any
// of which matches.
type filter struct {
	name   string
	values []string
}

func (p params) filters() ([]filter, *Error) {
	var out []filter
	for _, i := range p.indices("Filter") {
		key := fmt.Sprintf("Filter.%d", i)
		name := p.str(key + ".Name")
		if name == nil {
			return nil, errMissingParameter(key + ".Name")
		}
		out = append(out, filter{name: *name, values: p.strings(key + ".Value")})
	}
	return out, nil
}

// tags returns the tags of the TagSpecification.N whose ResourceType is
// prefix-list.
func (p params) tags() []Tag {
	var out []Tag
	for _, i := range p.indices("TagSpecification") {
		key := fmt.Sprintf("TagSpecification.%d", i)
		if rt := p.str(key + ".ResourceType"); rt == nil || *rt != "prefix-list" {
			continue
		}
		for _, j := range p.indices(key + ".Tag") {
			tk := fmt.Sprintf("%s.Tag.%d", key, j)
			if k := p.str(tk + ".Key"); k != nil {
				out = append(out, Tag{Key: *k, Value: deref(p.str(tk + ".Value"))})
			}
		}
	}
	return out
}
