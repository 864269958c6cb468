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

// Package listconfig resolves a list's configuration: where its document
// is and how to reach it (URL, headers, credentials, TLS), read from the
// list and its Secrets and checked against the operator's flags (Resolver,
// Config), the document's identity and the claim on it (DocumentID,
// DocumentOf, ClaimKey), and which of the lists that name one claim holds
// it (ClaimHolder). It keeps the pool of combining ETag clients, one
// per claim per process, each fenced by this replica's right to act on the
// document's bucket (ListClients).
//
// It knows nothing of the controllers that use it: what it needs of them,
// the ownership of buckets and the audit of writes, it names as interfaces
// (Owner, Auditor).
package listconfig
