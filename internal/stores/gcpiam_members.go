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
	"fmt"
	"net/mail"
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// CheckIAMMember accepts an ID of a list kept in an IAM binding only when
// it is a principal that IAM grants roles to, in its shape:
// user:EMAIL, group:EMAIL, serviceAccount:EMAIL (or a Kubernetes service
// account, serviceAccount:PROJECT.svc.id.goog[NAMESPACE/KSA]),
// domain:DOMAIN, and the workforce and workload identity federation
// identifiers principal://iam.googleapis.com/... and
// principalSet://iam.googleapis.com/....
//
// allUsers and allAuthenticatedUsers are refused: either would make the
// resource public (to anyone on the internet, or anyone with a Google
// account), which no ListEntry should be able to do. So are IAM's own
// bookkeeping values (deleted:...) and Cloud Storage's convenience values
// (projectOwner:, projectEditor:, projectViewer:), which grant to every
// owner, editor or viewer of a project. Refusals wrap
// etagclient.ErrRejected and say what is wrong, without repeating the ID.
func CheckIAMMember(id string) error {
	refuse := func(why string) error {
		return fmt.Errorf("%w: not an IAM principal listkeeper grants: %s", etagclient.ErrRejected, why)
	}
	switch id {
	case "allUsers", "allAuthenticatedUsers":
		return refuse(id + " would make the resource public; grant to users, groups, service accounts or domains instead")
	}
	kind, rest, ok := strings.Cut(id, ":")
	if !ok || rest == "" {
		return refuse("it must be KIND:VALUE, such as user:alice@example.com, group:team@example.com, serviceAccount:app@project.iam.gserviceaccount.com or domain:example.com")
	}
	switch kind {
	case "user", "group":
		if !iamEmail(rest) {
			return refuse(kind + ": must be followed by an email address")
		}
	case "serviceAccount":
		if !iamEmail(rest) && !kubernetesServiceAccount(rest) {
			return refuse("serviceAccount: must be followed by a service account's email address or PROJECT.svc.id.goog[NAMESPACE/NAME]")
		}
	case "domain":
		if !dnsDomain(rest) {
			return refuse("domain: must be followed by a domain name")
		}
	case "principal", "principalSet":
		if !strings.HasPrefix(rest, "//iam.googleapis.com/") || len(rest) == len("//iam.googleapis.com/") || strings.ContainsAny(rest, " \t\r\n") {
			return refuse(kind + ": must be followed by //iam.googleapis.com/ and an identity pool's identifier")
		}
	case "deleted":
		return refuse("deleted: principals are IAM's record of deleted accounts and cannot be granted")
	case "projectOwner", "projectEditor", "projectViewer":
		return refuse(kind + ": grants to every " + strings.TrimPrefix(strings.ToLower(kind), "project") + " of a project; name the principals instead")
	default:
		return refuse("the kind must be user, group, serviceAccount, domain, principal or principalSet")
	}
	return nil
}

// iamEmail reports whether s is a bare email address with a domain of at
// least two labels.
func iamEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	_, domain, ok := strings.Cut(s, "@")
	return ok && dnsDomain(domain)
}

// kubernetesServiceAccount reports whether s is
// PROJECT.svc.id.goog[NAMESPACE/NAME].
func kubernetesServiceAccount(s string) bool {
	pool, rest, ok := strings.Cut(s, "[")
	if !ok || !strings.HasSuffix(pool, ".svc.id.goog") || !strings.HasSuffix(rest, "]") {
		return false
	}
	ns, name, ok := strings.Cut(strings.TrimSuffix(rest, "]"), "/")
	return ok && dnsLabel(ns) && dnsLabel(name)
}

// dnsDomain reports whether s is a DNS name of at least two labels.
func dnsDomain(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 || len(s) > 253 {
		return false
	}
	for _, l := range labels {
		if !dnsLabel(l) {
			return false
		}
	}
	return true
}

// dnsLabel reports whether s is one DNS label: letters, digits and inner
// hyphens.
func dnsLabel(s string) bool {
	return s != "" && len(s) <= 63 && s[0] != '-' && s[len(s)-1] != '-' &&
		strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}
