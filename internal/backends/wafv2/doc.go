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

// Package wafv2 is the kind of backend of a list kept in an AWS WAF IP
// set (spec.wafv2), read with GetIPSet and written with UpdateIPSet on the
// read's lock token, signed with spec.auth.aws's identity. Its items are
// CIDR blocks of the set's address family, spelled as WAF keeps them
// ("10.0.0.1" is "10.0.0.1/32"). The document is the set's region, scope and
// ID, whatever the endpoint.
package wafv2
