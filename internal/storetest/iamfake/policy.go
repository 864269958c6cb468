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

package iamfake

import (
	"fmt"
	"slices"
	"strings"
)

// Policy is an IAM allow policy as a Server keeps it for one resource.
// SetPolicy seeds one, and Policy returns what a getIamPolicy asking for
// version 3 would show.
type Policy struct {
	// Version is the policy's format: 1 without conditions, 3 with them.
	// The Server derives it from the bindings when it serves a policy, as
	// IAM does; SetPolicy refuses a policy with conditions and a version
	// below 3.
	Version int
	// Etag is the policy's version for optimistic concurrency: base64 of
	// random bytes, new on every successful write. SetPolicy ignores it
	// and returns the new one.
	Etag string
	// Bindings grant Role to Members, under Condition when it is not nil.
	Bindings []Binding
	// AuditConfigs are the audit logging settings of a Resource Manager
	// resource (projects, folders, organizations); a bucket has none.
	AuditConfigs []AuditConfig
}

// Binding grants a role to principals, optionally under a condition.
type Binding struct {
	Role      string
	Members   []string
	Condition *Expr
}

// Expr is an IAM condition: a CEL expression with a title and an optional
// description and location.
type Expr struct {
	Expression  string
	Title       string
	Description string
	Location    string
}

// AuditConfig is the audit logging configuration of one service.
type AuditConfig struct {
	Service         string
	AuditLogConfigs []AuditLogConfig
}

// AuditLogConfig is one kind of audit log and who is exempted from it.
type AuditLogConfig struct {
	LogType         string
	ExemptedMembers []string
}

// Clone returns a deep copy of p.
func (p Policy) Clone() Policy {
	out := Policy{Version: p.Version, Etag: p.Etag}
	for _, b := range p.Bindings {
		c := Binding{Role: b.Role, Members: slices.Clone(b.Members)}
		if b.Condition != nil {
			e := *b.Condition
			c.Condition = &e
		}
		out.Bindings = append(out.Bindings, c)
	}
	for _, a := range p.AuditConfigs {
		c := AuditConfig{Service: a.Service}
		for _, l := range a.AuditLogConfigs {
			c.AuditLogConfigs = append(c.AuditLogConfigs, AuditLogConfig{LogType: l.LogType, ExemptedMembers: slices.Clone(l.ExemptedMembers)})
		}
		out.AuditConfigs = append(out.AuditConfigs, c)
	}
	return out
}

// hasConditions reports whether a binding of p carries a condition.
func (p Policy) hasConditions() bool {
	return slices.ContainsFunc(p.Bindings, func(b Binding) bool { return b.Condition != nil })
}

// derivedVersion is the version IAM shows for p: 3 when it has
// conditions, else 1.
func (p Policy) derivedVersion() int {
	if p.hasConditions() {
		return 3
	}
	return 1
}

// Limits of a policy, from the reference of the Policy type ("The bindings
// in a Policy can refer to up to 1,500 principals; up to 250 of these
// principals can be Google groups. Each occurrence of a principal counts
// towards these limits").
const (
	// MaxMembers is how many principals the bindings of a policy may name,
	// counting each occurrence.
	MaxMembers = 1500
	// MaxGroups is how many of those may be Google groups.
	MaxGroups = 250
)

// invalidPolicy is why a policy that a request carried is refused (400):
// a message in IAM's words, which may quote the request, as IAM's do.
type invalidPolicy struct{ msg string }

func (e *invalidPolicy) Error() string { return e.msg }

func invalid(format string, args ...any) error {
	return &invalidPolicy{msg: fmt.Sprintf(format, args...)}
}

// validate checks p as IAM checks a policy to be written: a known version,
// conditions only in version 3, roles of a known shape, every binding with
// principals of a known kind, and the limits. api decides the principal
// kinds (Cloud Storage adds its convenience values).
func validate(p Policy, api API) error {
	switch p.Version {
	case 0, 1, 3:
	default:
		return invalid("Invalid policy version %d: valid values are 0, 1 and 3.", p.Version)
	}
	if p.hasConditions() && p.Version < 3 {
		return invalid("Policies with conditions must specify version 3; found version %d.", p.Version)
	}
	members, groups := 0, 0
	for _, b := range p.Bindings {
		if !validRole(b.Role) {
			return invalid("Role %q is not a valid role name.", b.Role)
		}
		if len(b.Members) == 0 {
			return invalid("The binding for role %q has no principals: each binding must contain at least one principal.", b.Role)
		}
		if b.Condition != nil && strings.TrimSpace(b.Condition.Expression) == "" {
			return invalid("The condition of the binding for role %q has no expression.", b.Role)
		}
		if b.Condition != nil && b.Condition.Title == "" {
			return invalid("The condition of the binding for role %q has no title.", b.Role)
		}
		for _, m := range b.Members {
			if !validMember(m, api) {
				return invalid("Invalid principal %q in the binding for role %q.", m, b.Role)
			}
			members++
			if strings.HasPrefix(m, "group:") {
				groups++
			}
		}
	}
	if members > MaxMembers {
		return invalid("The number of principals in the policy (%d) is larger than the maximum allowed size %d.", members, MaxMembers)
	}
	if groups > MaxGroups {
		return invalid("The number of Google groups in the policy (%d) is larger than the maximum allowed size %d.", groups, MaxGroups)
	}
	for _, a := range p.AuditConfigs {
		if a.Service == "" {
			return invalid("An audit config must name a service.")
		}
		for _, l := range a.AuditLogConfigs {
			switch l.LogType {
			case "ADMIN_READ", "DATA_WRITE", "DATA_READ":
			default:
				return invalid("Invalid audit log type %q.", l.LogType)
			}
			for _, m := range l.ExemptedMembers {
				if !validMember(m, api) {
					return invalid("Invalid exempted principal %q.", m)
				}
			}
		}
	}
	return nil
}

// validRole reports whether r is shaped like a predefined role
// (roles/NAME) or a custom one (projects/P/roles/NAME,
// organizations/O/roles/NAME). A role name that IAM's version 1 view made
// of a conditional binding (_withcond_) cannot be written back.
func validRole(r string) bool {
	if strings.Contains(r, "_withcond_") {
		return false
	}
	parts := strings.Split(r, "/")
	name := parts[len(parts)-1]
	switch {
	case len(parts) == 2 && parts[0] == "roles":
	case len(parts) == 4 && (parts[0] == "projects" || parts[0] == "organizations") && parts[1] != "" && parts[2] == "roles":
	default:
		return false
	}
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == ""
}
