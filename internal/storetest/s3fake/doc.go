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

// Package s3fake is an in-process Amazon S3 for tests that checks SigV4:
// github.com/johannesboyne/gofakes3 with its in-memory backend, behind a
// handler that verifies the AWS Signature Version 4 of every request and
// decides conditional writes the way S3 does. listkeeper's S3 store
// (spec.auth.aws) is tested against it, and
// `make demo ARGS=--store=s3` is meant to serve it.
//
// # Use
//
// New builds a Server, an http.Handler; Start serves it on 127.0.0.1 (on a
// free port) and URL returns its base URL. Buckets are addressed by path:
// an object is at URL()+"/bucket/key" (aws-sdk-go-v2's S3 client needs
// UsePathStyle). StartTLS serves HTTPS with httptest's certificate, which
// Client trusts. To serve the handler some other way, listen on 127.0.0.1.
//
//	s, err := s3fake.New(s3fake.WithBuckets("lists"))
//	...
//	s.Start()
//	defer s.Close()
//	// sign with s3fake.DefaultCredentials(), region s3fake.DefaultRegion
//
// PutObject, GetObject and CreateBucket reach the store without a request,
// to seed a document or read what a test wrote. Requests and Stats return
// the log of answered requests and their counts by method and status.
// SetCredentials, RevokeAccessKey and ExpireSessionToken break the
// credentials of a running Server; WithFaultHook answers chosen requests
// with an Error (503 SlowDown, 409 ConditionalRequestConflict, ...); the
// clock is WithClock's.
//
// # Authentication
//
// A request is signed in its Authorization header or in its query string
// (a presigned URL). The verifier recomputes the signature with
// aws-sdk-go-v2's v4.Signer, over the headers the client says it signed
// and with S3's single path escaping, and compares it in constant time; it
// does no signing arithmetic of its own. In order, it answers:
//
//   - no signature at all: 403 AccessDenied; both forms at once: 400
//     InvalidArgument; Signature Version 2 or SigV4a: 400 InvalidRequest.
//   - a malformed Authorization header, or a credential scope for another
//     region, service or terminator: 400 AuthorizationHeaderMalformed (for
//     a wrong region with <Region>, as S3 does); the same in the query: 400
//     AuthorizationQueryParametersError, also for a missing parameter or an
//     X-Amz-Expires over a week.
//   - no valid X-Amz-Date: 403 AccessDenied; a scope date that is not the
//     X-Amz-Date's day: 400 AuthorizationHeaderMalformed.
//   - no x-amz-content-sha256 (header form): 400 InvalidRequest; a value
//     that is neither a hex SHA-256 nor UNSIGNED-PAYLOAD: 400
//     InvalidArgument; an aws-chunked STREAMING-* value: 501 NotImplemented.
//   - an unknown access key: 403 InvalidAccessKeyId. A temporary key
//     without its session token: 403 InvalidAccessKeyId; with another
//     token, or a token on a long-term key: 400 InvalidToken; after the
//     credential's Expires: 400 ExpiredToken.
//   - X-Amz-Date more than MaxClockSkew (15 minutes) off the clock: 403
//     RequestTimeTooSkewed. A presigned URL past X-Amz-Date + X-Amz-Expires:
//     403 AccessDenied "Request has expired"; dated more than 15 minutes
//     ahead: 403 AccessDenied.
//   - an x-amz-* header that is not signed: 403 AccessDenied with
//     <HeadersNotSigned>.
//   - a signature that does not match: 403 SignatureDoesNotMatch, with
//     S3's <StringToSign>, <SignatureProvided> and <CanonicalRequest> (ours).
//     Like S3's, the canonical request shows the signed header values,
//     X-Amz-Security-Token included: a client must not log error bodies as
//     they come.
//   - a body whose SHA-256 is not the signed x-amz-content-sha256: 400
//     XAmzContentSHA256Mismatch. A presigned URL's payload is unsigned
//     unless it signed a hash.
//
// Authentication headers (X-Amz-Date, X-Amz-Security-Token,
// x-amz-content-sha256, checksums) are removed before gofakes3 sees the
// request: gofakes3 keeps every X-Amz-* header of a PUT as metadata and
// serves it back, session token included.
//
// # Conditional writes
//
// gofakes3 v1.2.0 checks If-Match and If-None-Match on PutObject under its
// backend lock, but answers 412 for If-Match on a missing key (S3: 404
// NoSuchKey), compares If-Match literally (so "*" never matches), ignores
// If-None-Match values other than "*", ignores If-Match on DELETE and
// never answers 409 (gofakes3_test.go pins all of it). So the wrapper
// decides, under a lock per key that every write to the key takes:
//
//   - If-Match with the current ETag (quoted or not, as S3 accepts) writes;
//     a stale one gets 412 PreconditionFailed; any If-Match on a missing
//     key gets 404 NoSuchKey. A weak W/ tag never matches.
//   - If-None-Match: * writes only when the key does not exist, else 412.
//   - A conditional PUT that arrives while another write to the same key
//     is in flight gets 409 ConditionalRequestConflict at once, as S3
//     documents (WithConflictOnOverlap(false) makes it wait instead).
//   - The ETag is the quoted lowercase hex MD5 of the body.
//
// # Scope and limitations
//
//   - aws-chunked uploads (x-amz-content-sha256: STREAMING-...) are refused
//     with 501. aws-sdk-go-v2's S3 client sends PutObject that way over
//     HTTPS by default (STREAMING-UNSIGNED-PAYLOAD-TRAILER); over plain HTTP
//     it signs the payload hash, and over HTTPS with
//     RequestChecksumCalculation WhenRequired it sends UNSIGNED-PAYLOAD,
//     both accepted (sdk_test.go pins this).
//   - Headers that v4.Signer never signs (User-Agent, Expect,
//     Transfer-Encoding, X-Amzn-Trace-Id) cannot be verified: a client that
//     signed one gets SignatureDoesNotMatch. Only X-Amz-Date is read, not
//     Date. As in S3, headers other than host and x-amz-* need not be
//     signed: an If-Match added after signing is still obeyed, so a client
//     should set it before it signs.
//   - One region; path-style addressing only; no IAM, policies or ACLs:
//     every accepted key may do everything, and nothing is anonymous.
//   - Preconditions are evaluated on PutObject only. If-Match or
//     If-None-Match on CopyObject, UploadPart, CompleteMultipartUpload or
//     DELETE gets 501 NotImplemented rather than being ignored; If-None-Match
//     takes only "*" (else 501); If-Match: * matches any existing object,
//     as RFC 9110 says (S3 documents only ETag values). Conditional GET and
//     HEAD are gofakes3's: If-None-Match is compared literally with the
//     quoted ETag (304), If-Modified-Since is honoured, If-Match and
//     If-Unmodified-Since are ignored. A multi-object delete does not take
//     the key locks.
//   - Storage is gofakes3's: metadata of an object carries over to the next
//     PUT that does not set it (S3 replaces it), checksums are neither
//     verified nor returned, multipart and versioning work as gofakes3 has
//     them. Content-MD5 is verified.
//   - Bodies are held in memory, up to WithMaxBodyBytes; the request log
//     is never trimmed.
package s3fake
