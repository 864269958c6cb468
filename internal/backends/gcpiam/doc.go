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

// Package gcpiam is the kind of backend of a list kept as the members of
// one role's unconditional binding in a Google Cloud IAM policy
// (spec.gcpIAM): of a project, folder or organization (Resource Manager) or
// of a bucket (Cloud Storage), read and written on the policy's etag with
// spec.auth.gcp's tokens. The document is the resource; two roles of one
// policy are two claims.
package gcpiam
