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

// Package ownership says which listkeeper replica writes a list's
// document, for the demo (hack/demo), the end-to-end benchmark (bench/e2e)
// and end-to-end tests: a list's document ID (ListDocumentID), the bucket
// its work falls in (Bucket), and, with the member Leases that
// harness.ReadMemberLeases reads, the replica whose Lease claims that
// bucket (harness.OwnerOf).
//
// It is apart from package harness because it needs internal/controller's
// definition of a document, and internal/controller's tests reach package
// harness (through internal/storetest/azurite): harness importing
// internal/controller would make an import cycle.
package ownership
