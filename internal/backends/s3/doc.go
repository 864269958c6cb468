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

// Package s3 is the kind of backend of a list kept in an object in
// Amazon S3 or a store that speaks its API (MinIO, Ceph): spec.auth.aws
// (SigV4, with the credentials of a Secret or the operator's own identity),
// or no spec.auth and a URL of one of S3's own endpoints (a presigned URL).
// Writes are conditional on the ETag, and a 409 ConditionalRequestConflict
// is a lost race. The document is the bucket and key, whatever the
// endpoint and the URL's style.
package s3
