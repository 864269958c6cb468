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

// Package fakeapi is the bundled fake list server: an http.Handler that
// keeps JSON documents in memory, keyed by URL path, and serves them with
// the list HTTP contract (docs/guides/list-api.md) that
// internal/etagclient speaks. Tests, benchmarks and demos trust it, so by
// default it is strict: every write is conditional unless configured
// otherwise, every version gets a strong ETag that is never handed out
// twice, and nothing is ever half-written. Profiles (see "Profiles") make
// it behave like S3, Azure Blob Storage, Google Cloud Storage, Apache
// WebDAV or a quirky API instead; whatever the profile, nothing is ever
// half-written or lost.
//
// Build a Server with New and serve it, for example with
// httptest.NewServer. The same handler runs in the cmd/fakeapi binary.
//
// # Contract
//
// This is ProfileStrict, the default; the other profiles say where they
// differ.
//
//   - GET (and HEAD) path: 200 with the document, Content-Type
//     application/json and a strong ETag; 304 when If-None-Match (a list of
//     tags, weak comparison, or *) matches; 404 when there is no document.
//   - PUT path with If-Match: E and the whole new document: 200 with the new
//     ETag and the stored body, or 201 (with Location) when it created the
//     document. If-Match uses strong comparison, so a W/ tag never matches;
//     If-Match: * matches any existing document. A stale tag, or any
//     If-Match on a missing document, gets 412.
//   - PUT path with If-None-Match: *: 201 when the document did not exist,
//     412 when it does.
//   - PUT with neither If-Match nor If-None-Match: * gets 428, unless
//     WithRequireIfMatch(false).
//   - DELETE path with If-Match: 204, 412 when stale, 404 when missing, 428
//     without If-Match unless WithRequireIfMatch(false).
//   - A PUT body must be valid JSON (400), within WithMaxBodyBytes (413),
//     and, when a Content-Type is sent, application/json or +json (415). A
//     malformed If-Match or If-None-Match gets 400. Other methods get 405.
//   - An empty If-Match (an empty value or only commas: the empty list
//     RFC 9110's grammar allows) matches nothing, so it gets 412. An empty
//     If-None-Match matches nothing either, so it never blocks the request
//     and counts as absent (a PUT carrying only it still gets 428).
//   - With WithToken, a missing or wrong "Authorization: Bearer" gets 401.
//     With WithTokenCheck, so does a token the check refuses (unknown or
//     expired), so that tests can hand out tokens that expire.
//
// Preconditions follow RFC 9110 section 13.2.2: If-Match first, then
// If-None-Match. The body of a PUT is read and validated before the
// preconditions are checked under the lock, so a request with both a bad
// body and a stale tag gets 400.
//
// # ETags
//
// A new version's tag is "v<seq>-<boot>": seq is a server-wide commit
// counter (persisted in the state file) and boot is 16 random hex digits
// drawn when the process starts. Tags therefore never repeat within a
// process, across paths, across deletion and re-creation, or across
// restarts with or without a state file. A document loaded from a state
// file keeps the tag it had, so clients holding it can still write.
// quirky makes the same tags. The azure-blob and webdav forms add the
// commit counter to a random per-process base, so they never repeat
// within a process and practically never across processes; the s3 and gcs
// tags are the content's MD5 and repeat with the content, as S3's and
// GCS's do.
//
// Every version also gets a generation (Server.Generation), which only
// gcs serves: the clock in microseconds since the epoch, as GCS makes
// them, or one more than the last generation handed out when the clock
// has not moved past it. Generations grow with every commit to any path,
// deletions included, so they are never handed out twice within a
// process, nor across restarts with a state file (which keeps them and
// their high-water mark), nor in practice across restarts without one.
//
// # Fault injection
//
// For each list request the Server first applies the injected latency
// (WithLatency; under s3 a conditional PUT takes it later, see "Profile
// s3"), then authentication, then decides a fault: the hook installed with
// WithFaultHook, if any and if it returns one, or else the rate-based Faults
// drawn from a source seeded by WithSeed. The same seed and the same order
// of requests give the same faults (concurrent clients make the order, and
// so the pattern, nondeterministic). Faults are 503 or 429 with Retry-After,
// FaultResetBeforeCommit (the connection is dropped before anything is
// processed) and FaultCommitThenDrop (the request is processed, a write is
// committed, and the connection is dropped instead of answering), and
// FaultHoldWrite (a PUT or DELETE is held, Faults.HoldWrites or
// DefaultHoldWrites, 8 s, before its preconditions are evaluated; see
// "Held writes"). Dropping hijacks the connection and closes it with
// SO_LINGER 0, so the client sees a reset; under HTTP/2 the stream is
// reset instead. Faults and latency never apply to the routes under
// AdminPrefix.
//
// # Held writes
//
// FaultHoldWrite stands for a write that spends seconds between its
// client and the document: a slow proxy, a stalled server thread, a
// replica that lost its right to write while its PUT was on the way. The
// Server reads and checks the write's body (400, 413, 415 and 428 are
// answered at once), then waits for the hold without its lock, so other
// requests, writes to the same document included, go on meanwhile; only
// then does it evaluate If-Match (or the profile's precondition) against
// the document as it is by then. A held write sent with a tag that was
// current therefore gets 412 when another writer committed during the
// hold, and commits when nobody did. A write whose client went away during
// the hold (timed out, cancelled) is evaluated all the same, and commits if
// its precondition holds: the late write a fencing client must expect.
// Its answer, written to a connection nobody reads, is counted in Stats
// with its status code. Switch it on at start (WithFaults, cmd/fakeapi
// --hold-writes and --hold-writes-rate) or at run time
// (Server.SetFaults, PUT /_fakeapi/faults with "rateHoldWrites" and
// "holdWrites"); a hook may hold a chosen write with Fault.Hold.
//
// # Observability
//
// Stats counts list requests by method and status code, and by client
// (the product name of the User-Agent, such as "listkeeper-etagclient")
// and status code, injected faults by kind and committed writes, so that
// a test can tell the 412s answered to the operator from those answered
// to another writer; WithHistory(true) records every committed
// version, readable with History. Set, Get, Delete and Paths give tests
// direct access to the documents. The same data is served under
// AdminPrefix: /_fakeapi/healthz, /_fakeapi/stats (GET, and DELETE to
// reset), /_fakeapi/history?path=P, and /_fakeapi/faults and
// /_fakeapi/latency (GET, and PUT to change them at run time). With a
// token, all of them except healthz need it too.
//
// # Profiles
//
// WithProfile makes the Server behave like a kind of server that users
// have, so that clients can rehearse against its surprises: the form of
// its ETags, the status of a conflict, a 304 without an ETag, a PUT
// answered without an ETag or with a report, redirects, XML error bodies.
// A profile only switches behaviour; documents, faults, latency, history,
// the state file, Stats and the AdminPrefix routes work the same under
// every profile. ParseProfile and Profiles give the names (cmd/fakeapi
// --profile takes them).
//
// ProfileStrict, the default, is the contract above and nothing else.
// Profiles lists them in the order they were added (gcs last).
//
// # Profile s3
//
// ProfileS3 mimics Amazon S3 conditional writes (If-None-Match: *, August
// 2024; If-Match, November 2024):
//
//   - The ETag is the quoted lowercase hex MD5 of the stored body
//     ("<32 hex digits>"), as S3 makes it for a single-part upload:
//     identical content gets identical tags, so a client that holds the
//     tag of an older version with the same content still matches.
//   - A PUT or DELETE without any precondition is accepted: no 428.
//   - A successful PUT answers 200, create or replace, with the new ETag
//     and an empty body.
//   - If-Match that does not match gets 412 PreconditionFailed; If-Match
//     on a missing key gets 404 NoSuchKey; If-None-Match: * on an existing
//     key gets 412 PreconditionFailed.
//   - Two conditional PUTs (If-Match or If-None-Match) to the same key that
//     overlap in time: the later-arriving one gets 409
//     ConditionalRequestConflict at once. A conditional PUT marks its key
//     from when it is accepted (headers and body valid) until it commits or
//     fails its precondition, and takes its injected latency while it holds
//     the mark, so races really happen under WithLatency. Such a PUT takes
//     its latency after authentication and the fault decision instead of
//     before them; one answered before it reached the mark (400, 409, a
//     fault) takes it just before its answer.
//   - 304 carries the ETag.
//   - Error bodies are S3's XML, Content-Type application/xml:
//     <?xml ...?><Error><Code/><Message/><Resource/><RequestId/></Error>,
//     where Resource is the path and RequestId is also sent as
//     x-amz-request-id. Codes by status: 400 InvalidRequest, 401
//     AccessDenied, 404 NoSuchKey, 405 MethodNotAllowed, 409
//     ConditionalRequestConflict, 412 PreconditionFailed, 413
//     EntityTooLarge, 429 SlowDown, 500 InternalError, 503
//     ServiceUnavailable.
//
// Not mimicked: buckets, SigV4 (authentication stays WithToken's bearer
// token, and a wrong one gets 401, where S3 answers 403), multipart ETags
// ("<md5>-<parts>"), unquoted If-Match values (S3 accepts them, the fake
// answers 400), If-None-Match with a tag instead of * on a PUT (S3
// documents only *; the fake evaluates it as RFC 9110 says), DELETE of a
// missing key (S3 answers 204, the fake 404 NoSuchKey), and conflicts
// between a conditional PUT and an unconditional PUT or a DELETE (those
// neither take nor respect the mark). Bodies must still be JSON.
//
// # Profile azure-blob
//
// ProfileAzureBlob mimics Azure Blob Storage's Put Blob and Get Blob:
//
//   - The ETag is "0x8D" and 13 upper-case hex digits, quoted (for example
//     "0x8DB3F2D5B6A7C89"), and new for every version, even with the same
//     content.
//   - A PUT must carry x-ms-blob-type: BlockBlob: without it, 400
//     MissingRequiredHeader; with another type, 400 InvalidHeaderValue.
//     This is checked before anything else but the conditional headers'
//     syntax.
//   - A PUT or DELETE without any precondition is accepted: no 428.
//   - A successful PUT answers 201 Created, create or replace, with the new
//     ETag and an empty body.
//   - If-Match that does not match gets 412 ConditionNotMet, and so does
//     If-Match on a missing blob: Azure answers 412 to a write whose
//     If-Match meets no blob (a GET of a missing blob gets 404 BlobNotFound
//     whatever its If-Match). If-None-Match: * on an existing blob gets 409
//     BlobAlreadyExists; If-None-Match listing the current tag on a write
//     gets 412 ConditionNotMet.
//   - 304 Not Modified carries no ETag header.
//   - Error bodies are Azure Storage's XML, Content-Type application/xml:
//     <?xml version="1.0" encoding="utf-8"?><Error><Code/><Message/></Error>,
//     the message ending with "\nRequestId:<id>\nTime:<time>"; the code is
//     also sent as x-ms-error-code and the ID as x-ms-request-id. Codes by
//     status: 400 InvalidInput, 401 NoAuthenticationInformation, 404
//     BlobNotFound, 405 UnsupportedHttpVerb, 409 BlobAlreadyExists, 412
//     ConditionNotMet, 413 RequestBodyTooLarge, 415 InvalidHeaderValue, 500
//     InternalError, 503 ServerBusy.
//
// Not mimicked: accounts, containers, SharedKey, SAS and Entra
// authentication (WithToken's bearer token stays), leases, block lists,
// x-ms-version and the other x-ms- response headers, Last-Modified and
// the date preconditions, unquoted If-Match values (Azure accepts them,
// the fake answers 400), and DELETE's 202 (the fake answers 204). Bodies
// must still be JSON.
//
// # Profile webdav
//
// ProfileWebDAV mimics Apache httpd 2.4 serving the documents with mod_dav
// and compressing them with mod_deflate:
//
//   - The strong tag is "<size>-<13 digits>" in lowercase hex, like
//     Apache's default FileETag MTime Size, new for every version.
//   - For WithWeakWindow (default DefaultWeakWindow, one second, measured
//     with WithClock) after a write, the tag is weak: GET answers W/"...",
//     and If-Match fails with 412 even with the right tag, as Apache does
//     for a file modified within a second of the request. A client that
//     refuses to write without a strong tag must read again later.
//   - When a GET or HEAD accepts gzip by name (Accept-Encoding: gzip with a
//     quality above zero; "*" does not count), the body is gzip-compressed
//     (Content-Encoding: gzip) and "-gzip" is appended inside the quotes
//     of the ETag ("abc-gzip", or W/"abc-gzip"), as mod_deflate does.
//     Every GET answer carries Vary: Accept-Encoding.
//   - If-None-Match ignores a "-gzip" suffix, so a client holding
//     "abc-gzip" gets 304 (carrying the ETag a 200 would have), but If-Match
//     compares strictly: If-Match: "abc-gzip" never matches and always gets
//     412. This is the trap of Apache bug 45023: a client that lets its
//     transport negotiate gzip reads a tag it can never write with, and
//     livelocks on 412 unless it asks for Accept-Encoding: identity.
//   - A PUT without a precondition is accepted: no 428. A successful PUT
//     answers 204 when it replaced the document and 201 with Location and
//     a short HTML page when it created it; neither carries an ETag.
//   - Every failed precondition is 412, including If-Match on a missing
//     document and If-None-Match: * on an existing one.
//   - Error bodies are Apache's HTML error pages, Content-Type text/html;
//     charset=iso-8859-1.
//
// Not mimicked: stock Apache 2.4 without the usual
// "RequestHeader edit If-None-Match" workaround answers 200 instead of 304
// to a "-gzip" tag (the other half of bug 45023); the fake always strips
// the suffix for If-None-Match. Also left out: Last-Modified and the date
// preconditions, x-gzip, PROPFIND, LOCK and the rest of WebDAV. Bodies
// must still be JSON.
//
// # Profile gcs
//
// ProfileGCS mimics the Google Cloud Storage XML API (GET and PUT Object),
// whose writes are conditional on the object's generation rather than on
// its ETag:
//
//   - GET and HEAD answer 200 with the quoted lowercase hex MD5 of the body
//     as ETag (as for a non-composite object) and x-goog-generation,
//     x-goog-metageneration (always 1: the fake has no metadata updates),
//     x-goog-hash (crc32c=, md5=; base64), x-goog-stored-content-length
//     and x-goog-stored-content-encoding: identity. Reads may be anonymous,
//     as of a public object, unless WithToken or WithTokenCheck is set.
//   - If-Match and If-None-Match apply to reads only: on GET they give 412
//     and 304 as usual (304 carries the ETag but none of the x-goog-
//     headers). On PUT and DELETE they are not even parsed, so a write
//     guarded only by If-Match or If-None-Match: * overwrites whatever is
//     there. A client that learned S3 or RFC 9110 loses updates here.
//   - A write's precondition is x-goog-if-generation-match: N, a
//     non-negative decimal integer. N = 0 holds only when there is no
//     object; any other N only when N is the live generation. When it does
//     not hold the answer is 412 PreconditionFailed, also for an N on a
//     missing object. x-goog-if-metageneration-match: M holds only when
//     an object exists and M is 1. Either header on a GET or HEAD is
//     checked the same way. A malformed or repeated one gets 400
//     InvalidArgument.
//   - A PUT or DELETE without any precondition is accepted: no 428.
//   - A PUT or DELETE needs "Authorization: Bearer <token>" even when no
//     token is configured (any non-empty token then does); without one it
//     gets 401 AuthenticationRequired. This is checked first, before
//     faults and before the method is looked at.
//   - A successful PUT answers 200, create or replace, with an empty body,
//     the new ETag and the new version's x-goog- headers, its new
//     generation in x-goog-generation. A DELETE answers 204.
//   - Error bodies are the XML API's, Content-Type application/xml:
//     <?xml version='1.0' encoding='UTF-8'?><Error><Code/><Message/></Error>.
//     Codes by status: 400 InvalidArgument, 401 AuthenticationRequired,
//     404 NoSuchKey, 405 MethodNotAllowed, 412 PreconditionFailed, 413
//     EntityTooLarge, 429 SlowDown, 500 InternalError, 503
//     ServiceUnavailable.
//
// Not mimicked: buckets and the /BUCKET/OBJECT path form (the path is the
// key, as everywhere), HMAC and V4 signatures (authentication is a bearer
// token, checked with WithToken or WithTokenCheck), an anonymous request
// for a private object (GCS answers 403 AccessDenied; the fake answers 401
// when a token is configured), object versioning and the generation query
// parameter (the query is ignored), x-goog-if-generation-not-match (a
// JSON API parameter), Last-Modified and the date preconditions,
// composite objects (whose ETag is not an MD5), resumable uploads,
// Content-MD5 and x-goog-hash on uploads, and the rule that
// x-goog-if-metageneration-match needs x-goog-if-generation-match. Bodies
// must still be JSON.
//
// # Profile quirky
//
// ProfileQuirky is ProfileStrict with two legal but surprising habits of
// hand-written list APIs:
//
//   - A request to a path that ends with "/" (any method) answers 301
//     Moved Permanently with Location the same path without its trailing
//     slashes (a path on the same origin, query kept) and processes
//     nothing: a PUT stores nothing. A client may follow the redirect of a
//     GET; one that follows the redirect of a PUT (Go's http.Client turns
//     it into a GET) sees a 200 for a write that never happened. "/" and
//     paths that would become "//host..." are not redirected.
//   - A successful PUT answers 200, create or replace, with the new ETag
//     and the JSON report {"status":"ok","stored":true,"items":[]} as its
//     body, which is not the stored document: a client that takes the
//     answer of a PUT for the list would see it empty.
//
// Everything else, including 428 and plain-text errors, is strict.
//
// # Scope and limitations
//
//   - One process, in memory. The state file exists for restart tests; it
//     is rewritten whole and fsynced under the Server's lock on every
//     commit, so writes with a state file are slow and serialized. The
//     history is not persisted; a server restarted with history on starts
//     it with the versions it loaded, at the time they were committed.
//   - Only JSON documents. Bodies are stored byte for byte (not
//     re-encoded); nothing checks what is inside the JSON, so the fake does
//     not know about items arrays or JSON pointers.
//   - The query string is ignored. The key is the decoded, uncleaned URL
//     path: "/a" and "/a/" are different documents, "/a%2Fb" and "/a/b" the
//     same one.
//   - An empty WithToken means no authentication (gcs still wants a bearer
//     token on writes). WithToken and WithTokenCheck are exclusive, and
//     the check also guards the /_fakeapi/ routes, so a test that lets
//     tokens expire should use the Go methods (Stats, History, SetFaults)
//     rather than those routes.
//   - No Last-Modified, If-Modified-Since, If-Unmodified-Since, ranges,
//     PATCH or POST. HEAD behaves as GET without a body.
//   - History is unbounded; keep WithHistory for tests and short runs.
//   - Latency is real time (time.Sleep semantics); it cannot be driven by
//     WithClock, which only timestamps history and times webdav's weak
//     window.
//   - WithEchoBody(false) and the ETagWeak and ETagNone modes exist to test
//     clients against servers that behave like that; they are not the
//     contract's defaults. The ETag modes apply on top of any profile
//     (ETagNone removes every ETag header, ETagWeak marks every tag weak);
//     WithEchoBody only changes ProfileStrict's PUT answers.
//   - A profile mimics the behaviour its section lists and no more; each
//     section says what it leaves out. WithRequireIfMatch(true) cannot make
//     s3, azure-blob, webdav or gcs answer 428. Tags always take the form of the
//     profile that made them: a state file written under one profile keeps
//     its tags when loaded under another, and history tags are the strong
//     form (without W/ or -gzip).
//   - Injected latency is real time and taken before a request is
//     processed, except that s3's conditional PUTs take it while holding
//     their write mark.
//   - A held write (FaultHoldWrite) waits in real time, with time.Sleep:
//     neither WithClock nor the client's going away shortens it, so a
//     test's server, and cmd/fakeapi's graceful shutdown, wait for the
//     holds in progress. Under s3 a held conditional PUT marks its key
//     only after its hold, so the hold itself causes no 409. A held write
//     is never also dropped (FaultCommitThenDrop) and the rate-based
//     faults never hold a GET; a hook that holds one changes nothing.
//     Holds are counted in Stats.Faults when they are decided, so a held
//     PUT answered 400 or 428 before its hold counts too.
//   - Stats.Agents names at most 32 clients (then "other"), by the product
//     of their User-Agent only; the rest of the header is never kept.
package fakeapi
