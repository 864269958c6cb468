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

package stores

import (
	"slices"

	crm "google.golang.org/api/cloudresourcemanager/v3"
	storage "google.golang.org/api/storage/v1"
)

// iamPolicy is an IAM allow policy as read from Resource Manager or Cloud
// Storage, in one shape for both: what the backend keeps as the
// etagclient.Version of a read (its Data) and writes back with one
// binding changed. It is never modified once read; writes work on a clone.
type iamPolicy struct {
	Version  int64
	Etag     string
	Bindings []iamBinding
	// AuditConfigs are Resource Manager's, carried back as read (the
	// write's default update mask, "bindings, etag", leaves the stored ones
	// as they are anyway); a bucket's policy has none.
	AuditConfigs []*crm.AuditConfig
}

// iamBinding grants Role to Members, under Condition when it is not nil.
type iamBinding struct {
	Role      string
	Members   []string
	Condition *iamCondition
}

// iamCondition is a binding's condition, with every field IAM has.
type iamCondition struct {
	Expression, Title, Description, Location string
}

// clone returns a deep copy of p.
func (p *iamPolicy) clone() *iamPolicy {
	out := &iamPolicy{Version: p.Version, Etag: p.Etag}
	for _, b := range p.Bindings {
		c := iamBinding{Role: b.Role, Members: slices.Clone(b.Members)}
		if b.Condition != nil {
			cond := *b.Condition
			c.Condition = &cond
		}
		out.Bindings = append(out.Bindings, c)
	}
	for _, a := range p.AuditConfigs {
		c := &crm.AuditConfig{Service: a.Service, ForceSendFields: slices.Clone(a.ForceSendFields), NullFields: slices.Clone(a.NullFields)}
		for _, l := range a.AuditLogConfigs {
			lc := *l
			lc.ExemptedMembers = slices.Clone(l.ExemptedMembers)
			c.AuditLogConfigs = append(c.AuditLogConfigs, &lc)
		}
		out.AuditConfigs = append(out.AuditConfigs, c)
	}
	return out
}

// memberCount returns how many members p names in all: those of every
// binding, whatever its role or condition, and the exempted members of its
// audit configs, each as often as it appears. It is what a read of p
// decoded and keeps (the whole policy is the version a write carries
// back), so it is what the item limit bounds.
func (p *iamPolicy) memberCount() int {
	n := 0
	for _, b := range p.Bindings {
		n += len(b.Members)
	}
	for _, a := range p.AuditConfigs {
		for _, l := range a.AuditLogConfigs {
			n += len(l.ExemptedMembers)
		}
	}
	return n
}

// hasConditions reports whether a binding of p has a condition.
func (p *iamPolicy) hasConditions() bool {
	return slices.ContainsFunc(p.Bindings, func(b iamBinding) bool { return b.Condition != nil })
}

// membersOf returns the list that p keeps for role: the members of role's
// bindings without a condition. The API allows several such bindings of
// one role; their members are merged in the order seen, each once (a
// member twice in the list would mean nothing more to IAM). No binding is
// an empty list. Conditional bindings of the role are not the list.
func membersOf(p *iamPolicy, role string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, b := range p.Bindings {
		if b.Role != role || b.Condition != nil {
			continue
		}
		for _, m := range b.Members {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// withMembers returns a copy of p whose unconditional binding of role has
// exactly members: the first such binding keeps its place and gets them,
// and any other unconditional binding of role is folded into it (removed);
// without one, a binding is appended; with no members, every
// unconditional binding of role goes. Every other binding, the
// conditional bindings of role included, the audit configs, the version
// and the etag are p's, unchanged.
func withMembers(p *iamPolicy, role string, members []string) *iamPolicy {
	out := p.clone()
	out.Bindings = out.Bindings[:0:0]
	placed := false
	for _, b := range p.clone().Bindings {
		if b.Role != role || b.Condition != nil {
			out.Bindings = append(out.Bindings, b)
			continue
		}
		if !placed && len(members) > 0 {
			b.Members = slices.Clone(members)
			out.Bindings = append(out.Bindings, b)
		}
		placed = true
	}
	if !placed && len(members) > 0 {
		out.Bindings = append(out.Bindings, iamBinding{Role: role, Members: slices.Clone(members)})
	}
	return out
}

// fromCRM is a Resource Manager policy in the shared shape.
func fromCRM(p *crm.Policy) *iamPolicy {
	out := &iamPolicy{Version: p.Version, Etag: p.Etag, AuditConfigs: p.AuditConfigs}
	for _, b := range p.Bindings {
		if b == nil {
			continue
		}
		nb := iamBinding{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			nb.Condition = &iamCondition{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		out.Bindings = append(out.Bindings, nb)
	}
	return out.clone()
}

// toCRM is p as Resource Manager's setIamPolicy takes it. The version is
// always sent; an empty bindings list is sent as [] (the default update
// mask then writes the policy without bindings, as asked).
func toCRM(p *iamPolicy) *crm.Policy {
	q := p.clone()
	out := &crm.Policy{Version: q.Version, Etag: q.Etag, AuditConfigs: q.AuditConfigs, ForceSendFields: []string{"Version", "Bindings"}}
	out.Bindings = []*crm.Binding{}
	for _, b := range q.Bindings {
		nb := &crm.Binding{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			nb.Condition = &crm.Expr{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		out.Bindings = append(out.Bindings, nb)
	}
	return out
}

// fromStorage is a Cloud Storage policy in the shared shape (its kind and
// resourceId are output only, and dropped).
func fromStorage(p *storage.Policy) *iamPolicy {
	out := &iamPolicy{Version: p.Version, Etag: p.Etag}
	for _, b := range p.Bindings {
		if b == nil {
			continue
		}
		nb := iamBinding{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			nb.Condition = &iamCondition{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		out.Bindings = append(out.Bindings, nb)
	}
	return out.clone()
}

// toStorage is p as Cloud Storage's setIamPolicy takes it.
func toStorage(p *iamPolicy) *storage.Policy {
	q := p.clone()
	out := &storage.Policy{Version: q.Version, Etag: q.Etag, ForceSendFields: []string{"Version", "Bindings"}}
	out.Bindings = []*storage.PolicyBindings{}
	for _, b := range q.Bindings {
		nb := &storage.PolicyBindings{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			nb.Condition = &storage.Expr{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		out.Bindings = append(out.Bindings, nb)
	}
	return out
}
