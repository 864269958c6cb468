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
	"net/mail"
	"strings"
)

// validMember reports whether m is a principal of a kind IAM knows, in
// its shape (the Binding.members reference lists them):
//
//   - allUsers, allAuthenticatedUsers;
//   - user:, serviceAccount:, group: with an email address (a service
//     account may also be a Kubernetes service account,
//     PROJECT.svc.id.goog[NAMESPACE/KSA]);
//   - domain: with a domain name;
//   - principal:// and principalSet:// identifiers of iam.googleapis.com;
//   - deleted:user:, deleted:serviceAccount:, deleted:group: with an email
//     address and ?uid=, and deleted:principal://;
//   - for Cloud Storage, its convenience values projectOwner:,
//     projectEditor: and projectViewer: with a project ID.
//
// Whether the account exists is not checked.
func validMember(m string, api API) bool {
	switch m {
	case "allUsers", "allAuthenticatedUsers":
		return true
	}
	kind, rest, ok := strings.Cut(m, ":")
	if !ok || rest == "" {
		return false
	}
	switch kind {
	case "user", "group":
		return validEmail(rest)
	case "serviceAccount":
		return validEmail(rest) || validKubernetesSA(rest)
	case "domain":
		return validDomain(rest)
	case "principal", "principalSet":
		return strings.HasPrefix(rest, "//iam.googleapis.com/") && len(rest) > len("//iam.googleapis.com/")
	case "deleted":
		return validDeleted(rest)
	case "projectOwner", "projectEditor", "projectViewer":
		return api == Storage && validDomainLabel(rest)
	}
	return false
}

// validEmail reports whether s is a bare email address.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	_, domain, ok := strings.Cut(s, "@")
	return ok && validDomain(domain)
}

// validKubernetesSA reports whether s is PROJECT.svc.id.goog[NS/KSA].
func validKubernetesSA(s string) bool {
	pool, rest, ok := strings.Cut(s, "[")
	if !ok || !strings.HasSuffix(pool, ".svc.id.goog") || !strings.HasSuffix(rest, "]") {
		return false
	}
	ns, ksa, ok := strings.Cut(strings.TrimSuffix(rest, "]"), "/")
	return ok && validDomainLabel(ns) && validDomainLabel(ksa)
}

// validDeleted reports whether s (after "deleted:") is a deleted
// principal: KIND:EMAIL?uid=ID or principal://....
func validDeleted(s string) bool {
	if strings.HasPrefix(s, "principal://iam.googleapis.com/") {
		return true
	}
	kind, rest, ok := strings.Cut(s, ":")
	if !ok || (kind != "user" && kind != "serviceAccount" && kind != "group") {
		return false
	}
	email, uid, ok := strings.Cut(rest, "?uid=")
	return ok && validEmail(email) && uid != "" && strings.Trim(uid, "0123456789") == ""
}

// validDomain reports whether s is a DNS name of at least two labels.
func validDomain(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 || len(s) > 253 {
		return false
	}
	for _, l := range labels {
		if !validDomainLabel(l) {
			return false
		}
	}
	return true
}

// validDomainLabel reports whether s is one DNS label (letters, digits
// and inner hyphens).
func validDomainLabel(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}
