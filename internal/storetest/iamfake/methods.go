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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// view is p as a getIamPolicy asking for version requested shows it: its
// version is derived from its bindings (3 with conditions, else 1), and
// below version 3 a conditional binding shows as an unconditional one
// whose role ends in _withcond_ and a hash of the condition (the "withcond"
// troubleshooting page of IAM), in a policy of version 1.
func view(p Policy, requested int) Policy {
	out := p.Clone()
	out.Version = p.derivedVersion()
	if requested >= 3 || !p.hasConditions() {
		return out
	}
	out.Version = 1
	for i, b := range out.Bindings {
		if b.Condition == nil {
			continue
		}
		sum := sha256.Sum256([]byte(b.Condition.Expression + "\x00" + b.Condition.Title + "\x00" + b.Condition.Description))
		out.Bindings[i].Role = b.Role + "_withcond_" + hex.EncodeToString(sum[:])[:20]
		out.Bindings[i].Condition = nil
	}
	return out
}

// crmGet serves Resource Manager's getIamPolicy: the body is
// {"options":{"requestedPolicyVersion":N}}, N one of 0, 1 and 3.
func (s *Server) crmGet(call Call, body []byte, pretty bool) ([]byte, *Error) {
	var req struct {
		Options *struct {
			RequestedPolicyVersion int `json:"requestedPolicyVersion"`
		} `json:"options"`
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := decodeStrict(body, &req); err != nil {
			return nil, errInvalid(err.Error())
		}
	}
	requested := 0
	if req.Options != nil {
		requested = req.Options.RequestedPolicyVersion
	}
	if requested != 0 && requested != 1 && requested != 3 {
		return nil, errInvalid("Invalid requested policy version " + strconv.Itoa(requested) + ": valid values are 0, 1 and 3.")
	}
	s.mu.Lock()
	p, ok := s.policies[call.Resource]
	var v Policy
	if ok {
		v = view(*p, requested)
	}
	s.mu.Unlock()
	if !ok {
		return nil, errDenied()
	}
	return policyBody(v, ResourceManager, call.Resource, pretty), nil
}

// crmSet serves Resource Manager's setIamPolicy: the body is
// {"policy":{...},"updateMask":"..."}. Only the fields in the mask are
// written; without one, "bindings,etag".
func (s *Server) crmSet(call Call, body []byte, pretty bool) ([]byte, *Error) {
	var req struct {
		Policy     *crmPolicyJSON `json:"policy"`
		UpdateMask string         `json:"updateMask"`
	}
	if err := decodeStrict(body, &req); err != nil {
		return nil, errInvalid(err.Error())
	}
	if req.Policy == nil {
		return nil, errInvalid("Request contains an invalid argument: the policy is required.")
	}
	mask, e := updateMask(req.UpdateMask)
	if e != nil {
		return nil, e
	}
	next, e := s.set(call, fromCRM(*req.Policy), mask)
	if e != nil {
		return nil, e
	}
	return policyBody(next, ResourceManager, call.Resource, pretty), nil
}

// updateMask parses a FieldMask of a setIamPolicy ("bindings,etag" when
// empty) into the fields it names.
func updateMask(raw string) (map[string]bool, *Error) {
	if strings.TrimSpace(raw) == "" {
		raw = "bindings,etag"
	}
	mask := map[string]bool{}
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "bindings", "etag", "auditConfigs", "version":
			mask[f] = true
		default:
			return nil, errInvalid("Invalid update mask: unknown field " + strconv.Quote(f) + ".")
		}
	}
	return mask, nil
}

// storageGet serves Cloud Storage's getIamPolicy, with the version in the
// query (optionsRequestedPolicyVersion). Asking a policy with conditions
// for a version below 3 fails.
func (s *Server) storageGet(call Call, pretty bool) ([]byte, *Error) {
	requested := 0
	if raw := call.Request.URL.Query().Get("optionsRequestedPolicyVersion"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return nil, &Error{Code: 400, Status: "INVALID_ARGUMENT", Reason: "invalidParameter",
				Message: "Invalid value for optionsRequestedPolicyVersion: " + raw}
		}
		requested = n
	}
	s.mu.Lock()
	p, ok := s.policies[call.Resource]
	var v Policy
	if ok {
		v = view(*p, 3)
	}
	s.mu.Unlock()
	if !ok {
		return nil, errNoBucket()
	}
	if requested < 3 && v.hasConditions() {
		return nil, errInvalid("The requested policy version is too old for this bucket's IAM policy, which has conditions: request version 3.")
	}
	return policyBody(v, Storage, call.Resource, pretty), nil
}

// storageSet serves Cloud Storage's setIamPolicy: the body is the policy
// itself, and replaces the bindings.
func (s *Server) storageSet(call Call, body []byte, pretty bool) ([]byte, *Error) {
	var w storagePolicyJSON
	if err := decodeLoose(body, &w); err != nil {
		return nil, errInvalid(err.Error())
	}
	if len(w.Bindings) == 0 {
		return nil, &Error{Code: 400, Status: "INVALID_ARGUMENT", Reason: "required", Message: "A policy to update must be provided."}
	}
	next, e := s.set(call, fromStorage(w), map[string]bool{"bindings": true, "etag": true})
	if e != nil {
		return nil, e
	}
	return policyBody(next, Storage, call.Resource, pretty), nil
}

// set judges and applies a setIamPolicy of p, writing the fields of mask.
// The write is in flight from its arrival until it is answered: the hooks
// run first (OverlapHook when another one for the resource is in flight,
// then WriteHook), without the lock; then, under the lock, the resource
// must exist, p's etag (when it has one) must be the policy's, and p must
// be a valid policy, which replaces the masked fields and gets a new etag.
func (s *Server) set(call Call, p Policy, mask map[string]bool) (Policy, *Error) {
	if err := validate(p, call.API); err != nil {
		return Policy{}, errInvalid(invalidText(err))
	}
	if p.Etag != "" && !validEtag(p.Etag) {
		return Policy{}, errInvalid("Invalid value at 'policy.etag' (TYPE_BYTES): " + strconv.Quote(p.Etag))
	}
	s.mu.Lock()
	overlapped := s.inflight[call.Resource] > 0
	s.inflight[call.Resource]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.inflight[call.Resource]--; s.inflight[call.Resource] == 0 {
			delete(s.inflight, call.Resource)
		}
		s.mu.Unlock()
	}()
	if overlapped && s.cfg.overlapHook != nil {
		s.cfg.overlapHook(call)
	}
	if s.cfg.writeHook != nil {
		s.cfg.writeHook(call)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.policies[call.Resource]
	switch {
	case !ok && call.API == Storage:
		return Policy{}, errNoBucket()
	case !ok:
		return Policy{}, errDenied()
	case p.Etag != "" && p.Etag != cur.Etag && call.API == Storage:
		return Policy{}, errConditionNotMet()
	case p.Etag != "" && p.Etag != cur.Etag:
		return Policy{}, errAborted()
	case p.Etag != "" && p.Version < 3 && cur.hasConditions():
		// "Any operation that affects conditional role bindings must
		// specify version 3", removing a binding from a policy that has
		// conditions included. Without an etag IAM lets a version 1
		// policy overwrite it, conditions and all.
		return Policy{}, errInvalid("The policy has conditions: a change to it must specify version 3.")
	}
	next := cur.Clone()
	if mask["bindings"] {
		next.Bindings = slices.Clone(p.Clone().Bindings)
	}
	if mask["auditConfigs"] {
		next.AuditConfigs = p.Clone().AuditConfigs
	}
	next.Version = next.derivedVersion()
	next.Etag = newEtag()
	s.policies[call.Resource] = &next
	s.commits++
	return view(next, 3), nil
}

// invalidText is the message of a policy's validation error.
func invalidText(err error) string {
	if ip, ok := errors.AsType[*invalidPolicy](err); ok {
		return ip.msg
	}
	return "Request contains an invalid argument."
}
