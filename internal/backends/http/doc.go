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

// Package http is the kind of backend of a JSON document behind a URL
// (spec.url, or the URL in spec.urlFrom's Secret), read with GET and written
// with PUT on the HTTP list contract: If-Match on a strong ETag, 412 for a
// lost race. It keeps every list behind a URL that no object store
// claims, so it is the last kind of the registry. Headers come from
// spec.headersFrom; the document is its scheme, host, port, path and the
// query keys that spec.documentQueryKeys names.
package http
