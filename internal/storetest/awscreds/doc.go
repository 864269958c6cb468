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

// Package awscreds is the store of accepted AWS credentials that the SigV4
// fakes of internal/storetest (s3fake, wafv2fake) share: the credentials a
// fake accepts, changed at run time by a test (replaced, revoked, a session
// token expired) while requests are checked against them. What a service
// answers for a bad credential (its error codes and statuses) is not here:
// each fake keeps its own, since S3 and WAF answer the same fault
// differently.
package awscreds
