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

// Package azurite runs Azurite, Microsoft's Azure Storage emulator, as a
// child process for tests that talk to Azure Blob Storage over loopback.
//
// Azurite is not vendored: 'make azurite' installs the version pinned in
// hack/azurite/package-lock.json (Version) with npm into
// hack/azurite/node_modules, and 'make test' depends on that target. When it
// is missing, [Start] fails with an error wrapping [ErrNotInstalled] that says
// to run 'make azurite'; tests are meant to fail then, not skip.
//
// # Usage
//
// Start one emulator per test binary in TestMain and give each test its own
// container (see [Azurite.CreateContainer]); Stop it when the tests are done.
// [AccountName] and [AccountKey] are the emulator's published development
// account; [Azurite.Credential] and [Azurite.NewClient] build the Azure SDK's
// SharedKey credential and client for it, [Azurite.BlobURL] names a blob
// for SAS URLs, and [Azurite.HTTPClient] sends plain HTTP requests to it.
// On a failure, print [Azurite.LogTail]: Stop removes the log.
//
// Only the blob service runs (azurite-blob), bound to 127.0.0.1 on a port
// the kernel picks (--blobPort 0; the port is read from Azurite's start-up
// line, so no other process can take it in between), with in-memory
// persistence capped at ExtentMemoryLimitMB, telemetry off and the API
// version check skipped, so that an SDK newer than the emulator still works.
// Its output (start-up lines and access log) goes to a log file; see
// [Azurite.LogPath] and [Azurite.LogTail].
//
// # Scope and limitations
//
//   - Unix only: the emulator runs in its own process group, which Stop kills
//     with SIGKILL (there is nothing to persist), so nothing it started
//     outlives it. On Linux it also gets SIGKILL when the test process dies.
//     The process handling is test/e2e/harness's Supervisor.
//   - Azurite is an emulator, not Azure: it answers most of the documented
//     status codes and x-ms-error-code values, but its ETags, error bodies and
//     edge cases are its own. The tests of this package pin what later code
//     relies on; see their names for which answer is pinned where.
//   - Versions from 3.36 need a newer Node than the project's machines have;
//     3.35.0 needs Node 20.
//   - The child inherits the environment: an AZURITE_ACCOUNTS variable would
//     replace the development account.
//
// An [Azurite] is safe for concurrent use.
package azurite
