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

// Package loopback serves a test fake's http.Handler on 127.0.0.1, over
// plain HTTP or HTTPS with httptest's self-signed certificate, and hangs up
// on a request without an answer. The fakes of internal/storetest (s3fake,
// wafv2fake, iamfake) hold a Server for their Start, StartTLS, URL, Client,
// Certificate and Close, so that the rules every fake must keep (bind the
// loopback address only, start once, close safely more than once) are
// written once. The fake list server (internal/fakeapi) drops its
// connections with HangUp too.
package loopback
