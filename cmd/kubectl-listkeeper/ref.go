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

package main

import (
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// kind is one of the three kinds the plugin works on.
type kind string

const (
	kindExternalList        kind = kind(v1alpha1.ListKindExternalList)
	kindClusterExternalList kind = kind(v1alpha1.ListKindClusterExternalList)
	kindListEntry           kind = "ListEntry"
)

// kindNames are the names kubectl accepts for each kind: short name,
// singular, plural, and the plural qualified by the group.
var kindNames = map[string]kind{
	"xl": kindExternalList, "externallist": kindExternalList, "externallists": kindExternalList,
	"externallists.listkeeper.dev": kindExternalList, "externallist.listkeeper.dev": kindExternalList,
	"cxl": kindClusterExternalList, "clusterexternallist": kindClusterExternalList, "clusterexternallists": kindClusterExternalList,
	"clusterexternallists.listkeeper.dev": kindClusterExternalList, "clusterexternallist.listkeeper.dev": kindClusterExternalList,
	"le": kindListEntry, "listentry": kindListEntry, "listentries": kindListEntry,
	"listentries.listkeeper.dev": kindListEntry, "listentry.listkeeper.dev": kindListEntry,
}

// ref names one object: its kind, and its namespace unless it is a
// ClusterExternalList.
type ref struct {
	Kind      kind
	Namespace string
	Name      string
}

// parseRef reads arg as kubectl does: KIND/NAME, or a bare NAME of kind
// bare. A ClusterExternalList gets no namespace; the others get namespace.
func parseRef(arg string, bare kind, namespace string) (ref, error) {
	k, name := bare, arg
	if prefix, rest, ok := strings.Cut(arg, "/"); ok {
		var known bool
		if k, known = kindNames[strings.ToLower(prefix)]; !known {
			return ref{}, fmt.Errorf("%q: unknown kind %q (use xl/NAME, cxl/NAME or le/NAME)", arg, prefix)
		}
		name = rest
	}
	if name == "" || strings.Contains(name, "/") {
		return ref{}, fmt.Errorf("%q is not a name: use NAME or KIND/NAME", arg)
	}
	r := ref{Kind: k, Name: name}
	if k != kindClusterExternalList {
		r.Namespace = namespace
	}
	return r, nil
}

// key is the object key of r.
func (r ref) key() client.ObjectKey { return client.ObjectKey{Namespace: r.Namespace, Name: r.Name} }

// String names r for people: `ExternalList default/allow-list`,
// `ClusterExternalList egress`.
func (r ref) String() string {
	if r.Namespace == "" {
		return string(r.Kind) + " " + r.Name
	}
	return string(r.Kind) + " " + r.Namespace + "/" + r.Name
}

// arg is r as an argument of the plugin's commands: xl/NAME, cxl/NAME or
// le/NAME.
func (r ref) arg() string {
	switch r.Kind {
	case kindClusterExternalList:
		return "cxl/" + r.Name
	case kindListEntry:
		return "le/" + r.Name
	}
	return "xl/" + r.Name
}

// object returns an empty object of r's kind.
func (r ref) object() client.Object {
	switch r.Kind {
	case kindClusterExternalList:
		return &v1alpha1.ClusterExternalList{}
	case kindListEntry:
		return &v1alpha1.ListEntry{}
	default:
		return &v1alpha1.ExternalList{}
	}
}

// listRefOf returns the ref of the list entry e keeps its ID on.
func listRefOf(e *v1alpha1.ListEntry) ref {
	key := e.ListKey()
	return ref{Kind: kind(e.ListKind()), Namespace: key.Namespace, Name: key.Name}
}
