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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The policies on the wire. encoding/json writes struct fields in their
// order here, which is the order Google sends them in: Resource Manager
// (an ESF proto3 JSON mapping) by field number of google.iam.v1.Policy
// (version 1, etag 3, bindings 4, auditConfigs 6; role 1, members 2,
// condition 3; expression 1, title 2, description 3, location 4;
// service 1, auditLogConfigs 3; logType 1, exemptedMembers 2), Cloud
// Storage (its JSON API) in the order of its reference page (version,
// kind, resourceId, bindings, etag; title, description, expression).
// Empty fields are left out, as proto3 JSON leaves out default values.

type crmPolicyJSON struct {
	Version      int               `json:"version,omitempty"`
	Etag         string            `json:"etag,omitempty"`
	Bindings     []crmBindingJSON  `json:"bindings,omitempty"`
	AuditConfigs []auditConfigJSON `json:"auditConfigs,omitempty"`
}

type crmBindingJSON struct {
	Role      string       `json:"role,omitempty"`
	Members   []string     `json:"members,omitempty"`
	Condition *crmExprJSON `json:"condition,omitempty"`
}

type crmExprJSON struct {
	Expression  string `json:"expression,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Location    string `json:"location,omitempty"`
}

type auditConfigJSON struct {
	Service         string               `json:"service,omitempty"`
	AuditLogConfigs []auditLogConfigJSON `json:"auditLogConfigs,omitempty"`
}

type auditLogConfigJSON struct {
	LogType         string   `json:"logType,omitempty"`
	ExemptedMembers []string `json:"exemptedMembers,omitempty"`
}

type storagePolicyJSON struct {
	Version    int                  `json:"version,omitempty"`
	Kind       string               `json:"kind,omitempty"`
	ResourceID string               `json:"resourceId,omitempty"`
	Bindings   []storageBindingJSON `json:"bindings,omitempty"`
	Etag       string               `json:"etag,omitempty"`
}

type storageBindingJSON struct {
	Role      string           `json:"role,omitempty"`
	Members   []string         `json:"members,omitempty"`
	Condition *storageExprJSON `json:"condition,omitempty"`
}

type storageExprJSON struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Expression  string `json:"expression,omitempty"`
	Location    string `json:"location,omitempty"`
}

// storageKind is the kind of a Cloud Storage policy.
const storageKind = "storage#policy"

// crmJSON is p as Resource Manager sends it.
func crmJSON(p Policy) crmPolicyJSON {
	out := crmPolicyJSON{Version: p.Version, Etag: p.Etag}
	for _, b := range p.Bindings {
		w := crmBindingJSON{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			w.Condition = &crmExprJSON{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		out.Bindings = append(out.Bindings, w)
	}
	for _, a := range p.AuditConfigs {
		w := auditConfigJSON{Service: a.Service}
		for _, l := range a.AuditLogConfigs {
			w.AuditLogConfigs = append(w.AuditLogConfigs, auditLogConfigJSON(l))
		}
		out.AuditConfigs = append(out.AuditConfigs, w)
	}
	return out
}

// fromCRM is the policy a Resource Manager request carried.
func fromCRM(w crmPolicyJSON) Policy {
	p := Policy{Version: w.Version, Etag: w.Etag}
	for _, b := range w.Bindings {
		nb := Binding{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			nb.Condition = &Expr{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		p.Bindings = append(p.Bindings, nb)
	}
	for _, a := range w.AuditConfigs {
		na := AuditConfig{Service: a.Service}
		for _, l := range a.AuditLogConfigs {
			na.AuditLogConfigs = append(na.AuditLogConfigs, AuditLogConfig(l))
		}
		p.AuditConfigs = append(p.AuditConfigs, na)
	}
	return p
}

// storageJSON is p as Cloud Storage sends it for resource.
func storageJSON(p Policy, resource string) storagePolicyJSON {
	out := storagePolicyJSON{Version: p.Version, Kind: storageKind, ResourceID: resource, Etag: p.Etag}
	for _, b := range p.Bindings {
		w := storageBindingJSON{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			w.Condition = &storageExprJSON{Title: c.Title, Description: c.Description, Expression: c.Expression, Location: c.Location}
		}
		out.Bindings = append(out.Bindings, w)
	}
	return out
}

// fromStorage is the policy a Cloud Storage request carried; kind and
// resourceId are ignored, as Cloud Storage ignores them in a request.
func fromStorage(w storagePolicyJSON) Policy {
	p := Policy{Version: w.Version, Etag: w.Etag}
	for _, b := range w.Bindings {
		nb := Binding{Role: b.Role, Members: b.Members}
		if c := b.Condition; c != nil {
			nb.Condition = &Expr{Expression: c.Expression, Title: c.Title, Description: c.Description, Location: c.Location}
		}
		p.Bindings = append(p.Bindings, nb)
	}
	return p
}

// encode marshals v without HTML escaping (Google's JSON does not escape
// <, > and &), compact or, when pretty, indented by two spaces as Google
// answers without prettyPrint=false.
func encode(v any, pretty bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("iamfake: encode %T: %v", v, err)) // only types of this file
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// decodeStrict decodes one JSON value into v, refusing unknown fields as
// Resource Manager does ("Invalid JSON payload received. Unknown name").
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("Invalid JSON payload received. %s", jsonProblem(err))
	}
	if dec.More() {
		return invalid("Invalid JSON payload received. Unexpected token after the value.")
	}
	return nil
}

// decodeLoose decodes one JSON value into v, ignoring unknown fields as
// Cloud Storage's JSON API does.
func decodeLoose(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return invalid("Parse Error: %s", jsonProblem(err))
	}
	return nil
}

// jsonProblem says what is wrong with a body in a few words.
func jsonProblem(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return "Unknown name " + strings.TrimPrefix(msg, "json: unknown field ") + ": Cannot find field."
	}
	return "Syntax or type error."
}

// validEtag reports whether etag is base64, as the bytes field of
// google.iam.v1.Policy must be.
func validEtag(etag string) bool {
	_, err := base64.StdEncoding.DecodeString(etag)
	return err == nil
}
