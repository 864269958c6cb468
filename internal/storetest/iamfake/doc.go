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

// Package iamfake is an in-process fake of the Google Cloud IAM policy
// methods that listkeeper's IAM backend (internal/stores, spec.gcpIAM)
// calls, served over REST/JSON exactly as the Google client libraries
// for Go call them (google.golang.org/api/cloudresourcemanager/v3 and
// google.golang.org/api/storage/v1), so that tests run the real
// libraries, with real OAuth 2.0 tokens (internal/storetest/gcstoken),
// against it.
//
// # Use
//
// New builds a Server, an http.Handler; Start serves it on 127.0.0.1 and
// URL returns its base URL, which is the endpoint of a Resource Manager
// client (URL()+"/") and, with /storage/v1/, of a Cloud Storage client.
// SetPolicy creates a resource with a policy; Policy and PolicyJSON show
// it as a getIamPolicy for version 3 would, the latter byte for byte.
// Requests and Stats are the log of answered requests and its counts;
// WithFaultHook answers chosen requests with an Error (ErrUnavailable,
// ErrResourceExhausted, ErrInternal) or drops their connection
// (DropConnection before the call is served, DropAnswer after, so that a
// write lands unknown to its client); WithWriteHook and WithOverlapHook,
// with Overlap, make two writes race for certain.
//
//	s, err := iamfake.New(iamfake.WithTokenCheck(tokens.Valid))
//	...
//	s.Start()
//	defer s.Close()
//	etag, err := s.SetPolicy("projects/p", iamfake.Policy{Bindings: ...})
//
// # What it serves
//
// It follows these reference pages:
//
//   - Resource Manager v3 projects.getIamPolicy and projects.setIamPolicy
//     (https://cloud.google.com/resource-manager/reference/rest/v3/projects/getIamPolicy,
//     .../setIamPolicy), the same for folders and organizations:
//     POST /v3/{projects|folders|organizations}/ID:getIamPolicy with
//     {"options":{"requestedPolicyVersion":N}}, and :setIamPolicy with
//     {"policy":{...},"updateMask":"..."}.
//   - The Policy type (https://cloud.google.com/resource-manager/reference/rest/Shared.Types/Policy)
//     and SetIamPolicyRequest: versions 0, 1 and 3; "any operation that
//     affects conditional role bindings must specify version 3"; without
//     an etag a write is unconditional, and may overwrite a version 3
//     policy with a version 1 one; at most 1,500 principals, 250 of them
//     groups, counting each occurrence; each binding has a principal; an
//     update mask (default "bindings, etag") says which fields are
//     written, so audit configs left out of a write stay.
//   - GetPolicyOptions: the version a read asks for is the most it gets;
//     a policy without conditions is version 1.
//   - IAM's troubleshooting page on "withcond": read as version 1, a
//     conditional binding shows as an unconditional one whose role ends in
//     _withcond_ and a hash.
//   - Cloud Storage JSON API buckets.getIamPolicy and buckets.setIamPolicy
//     (https://cloud.google.com/storage/docs/json_api/v1/buckets/getIamPolicy,
//     .../setIamPolicy): GET and PUT /storage/v1/b/BUCKET/iam, with
//     optionsRequestedPolicyVersion in the query, which must be 3 for a
//     policy with conditions; the policy with kind storage#policy and
//     resourceId projects/_/buckets/BUCKET; the convenience principals
//     projectOwner:, projectEditor: and projectViewer:.
//   - The error model: Resource Manager answers a google.rpc.Status,
//     {"error":{"code":409,"message":"...","status":"ABORTED"}}
//     (https://cloud.google.com/apis/design/errors); Cloud Storage its JSON
//     API error, {"error":{"code":412,"message":"...","errors":[{"message":
//     "...","domain":"global","reason":"conditionNotMet"}]}}
//     (https://cloud.google.com/storage/docs/json_api/v1/status-codes).
//
// Answers, in the order they are decided:
//
//   - a path or method it does not serve: 404 (405);
//   - no "Authorization: Bearer" token: 401 UNAUTHENTICATED (Cloud
//     Storage: required) with WWW-Authenticate: Bearer
//     realm="https://accounts.google.com/"; a token WithTokenCheck
//     refuses: the same with error="invalid_token" (Cloud Storage:
//     authError);
//   - the FaultHook's Error, if it returns one (DropConnection: none, the
//     connection is closed; DropAnswer: none either, after the call was
//     served as below);
//   - a body that is not the request's JSON, or has fields Resource
//     Manager does not know (Cloud Storage ignores them): 400;
//   - a read of a resource that does not exist: Resource Manager 403
//     PERMISSION_DENIED ("Permission is denied if the policy or the
//     resource do not exist"), Cloud Storage 404 notFound; a read for an
//     invalid version: 400;
//   - a write of an invalid policy (version, roles, principals, limits,
//     conditions in a version below 3, a condition without title or
//     expression, a _withcond_ role, an etag that is not base64, and for
//     Cloud Storage no bindings at all): 400 INVALID_ARGUMENT (Cloud
//     Storage: invalid, required). The message quotes the request, as
//     IAM's do: a client must not show it as it is;
//   - a write to a resource that does not exist: 403 / 404 as for reads;
//   - a write with an etag that is not the policy's: Resource Manager 409
//     ABORTED "There were concurrent policy changes. Please retry the
//     whole read-modify-write with exponential backoff.", Cloud Storage
//     412 conditionNotMet;
//   - a write with an etag and a version below 3 to a policy that has
//     conditions: 400;
//   - otherwise the write replaces the fields of the mask (Cloud Storage:
//     the bindings), gets a new etag (base64 of 8 random bytes) and
//     answers 200 with the new policy.
//
// Policies are served with their fields in the order Google sends them
// (see wire.go), compact under prettyPrint=false (as the client
// libraries ask) and indented otherwise.
//
// # Scope and limitations
//
//   - Only getIamPolicy and setIamPolicy: no testIamPermissions, no
//     resources of their own (SetPolicy makes them), no inheritance, no
//     deny policies, no object or managed folder policies.
//   - Every valid token may do everything; there are no permissions.
//   - Principals are checked for their shape, not for their existence,
//     and kept as sent: IAM may store an account's email in its own case
//     and drop duplicates. Roles are checked for their shape only. A
//     project may be left without an owner, which IAM refuses.
//   - Conditions are stored, not evaluated, and allowed on every bucket
//     (Cloud Storage needs uniform bucket-level access for them).
//   - Etags change on every successful write, also one that changed
//     nothing.
//   - No quotas or rate limits but what a FaultHook injects; no
//     Retry-After. The request log is never trimmed.
package iamfake
