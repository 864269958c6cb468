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

// Package azureblob is the kind of backend of a list kept in a blob in
// Azure Blob Storage: spec.auth.azure (a SAS signed with the account's
// shared key, or Entra workload identity), or no spec.auth and a SAS URL or
// a URL of Blob Storage's endpoints. Writes are conditional on the ETag,
// and a 409 on create is a lost race. The document is the account,
// container and blob.
package azureblob
