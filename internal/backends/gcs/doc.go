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

// Package gcs is the kind of backend of a list kept in an object in
// Google Cloud Storage (its XML API): spec.auth.gcp (OAuth2 bearer tokens
// of a service-account key or Application Default Credentials), or no
// spec.auth and a URL of Cloud Storage's endpoint (a signed URL). Writes
// are conditional on the object generation. The document is the bucket and
// object, whatever the URL's style.
package gcs
