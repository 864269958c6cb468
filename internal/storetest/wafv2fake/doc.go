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

// Package wafv2fake is an in-process AWS WAFv2 IP-set API for tests that
// checks SigV4: GetIPSet and UpdateIPSet with WAF's optimistic locking,
// and CreateIPSet and ListIPSets, over the AWS JSON 1.1 protocol, behind a
// handler that verifies the AWS Signature Version 4 of every request.
// listkeeper's WAFv2 backend (spec.wafv2, internal/stores/wafv2.go) is
// tested against it with aws-sdk-go-v2's own wafv2 client.
//
// It is built from these pages of the AWS documentation and from what the
// SDK's deserializers accept:
//
//   - AWS WAF API Reference, GetIPSet and UpdateIPSet
//     (https://docs.aws.amazon.com/waf/latest/APIReference/API_GetIPSet.html,
//     https://docs.aws.amazon.com/waf/latest/APIReference/API_UpdateIPSet.html):
//     the members, their constraints (IPSetSummary lists the patterns),
//     and "this operation completely replaces the mutable specifications
//     that you already have for the IP set with the ones that you provide".
//   - AWS WAF API Reference, CreateIPSet and ListIPSets, and the error
//     types of each page (WAFOptimisticLockException,
//     WAFNonexistentItemException, WAFLimitsExceededException,
//     WAFInvalidParameterException, WAFDuplicateItemException, all 400).
//   - AWS WAF Developer Guide, quotas: 10,000 addresses per IP set.
//   - Smithy, AWS JSON 1.1 protocol
//     (https://smithy.io/2.0/aws/protocols/aws-json-1_1-protocol.html):
//     POST / with X-Amz-Target "AWSWAF_20190729.<Operation>" and
//     Content-Type application/x-amz-json-1.1; errors carry their code in
//     the X-Amzn-ErrorType header and in the body's __type, which may have
//     a "namespace#" prefix.
//   - AWS General Reference, Signature Version 4 signing process, and the
//     "Common Errors" page of the AWS API references (ThrottlingException
//     400, ServiceUnavailable 503, InternalFailure 500, and the
//     authentication errors below).
//
// # Use
//
// New builds a Server, an http.Handler; Start serves it on 127.0.0.1 (on a
// free port) and URL returns its base URL, which is the SDK's
// BaseEndpoint:
//
//	s, err := wafv2fake.New()
//	...
//	s.Start()
//	defer s.Close()
//	id, err := s.CreateIPSet(wafv2fake.ScopeRegional, "allow", "office", wafv2fake.IPv4, []string{"192.0.2.0/24"})
//	client := wafv2.NewFromConfig(aws.Config{Region: wafv2fake.DefaultRegion,
//		Credentials: credentials.NewStaticCredentialsProvider(wafv2fake.TestAccessKeyID, wafv2fake.TestSecretAccessKey, "")},
//		func(o *wafv2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
//
// CreateIPSet, IPSet and SetAddresses reach the sets without a request,
// to seed a test, to read what it wrote, or to play another writer.
// Requests and Stats return the log of requests and their counts by
// operation, status and error code. WithFaultHook answers chosen requests
// with an Error (Throttling, UnavailableEntity, ServiceUnavailable, ...)
// or drops their connection (DropConnection before the operation runs,
// DropAnswer after); FailFirst and OverlapFirstUpdates are ready-made
// hooks. WithUpdateHook and WithOverlapHook let a test hold an update in
// flight and see a second one meet it.
//
// # IP sets
//
// A set has a name, an ID (a random UUID), an ARN, a scope (REGIONAL, or
// CLOUDFRONT only in us-east-1), an optional description, an IP address
// version (IPV4 or IPV6), its addresses and a lock token, a fresh random
// UUID after every change. GetIPSet answers {"IPSet":{...},"LockToken":...}.
//
// UpdateIPSet needs Name, Scope, Id, Addresses and LockToken, and replaces
// the description too: an update without Description leaves the set
// without one, so a client that means to keep it must send back the one it
// read. Its checks come in order: the model's constraints (a missing or
// malformed member: 400 ValidationException), the scope, the set (a scope,
// name and ID that name none: WAFNonexistentItemException), more than
// 10,000 addresses (WAFLimitsExceededException), each address
// (WAFInvalidParameterException, field IP_ADDRESS, naming the address),
// and last, under the set's update lock, the lock token (a stale one:
// WAFOptimisticLockException). A refused update changes nothing.
//
// An address is a CIDR block of the set's family: IPv4 /1 to /32, IPv6 /1
// to /128, no host bits set (WAF refuses 195.178.188.66/29), not /0, not a
// bare address. The set keeps each address in the canonical form, IPv6
// lower-case and compressed (2001:DB8:0:0::1/128 becomes 2001:db8::1/128),
// which is how WAF hands IPv6 addresses back (infrastructure tools compare
// WAF's addresses by value, not by text, for that reason).
//
// # Authentication
//
// Every request must be signed with SigV4 in its Authorization header, for
// service "wafv2" and the Server's region, with one of the accepted
// credentials. The verifier recomputes the signature with aws-sdk-go-v2's
// v4.Signer over the headers the client says it signed and the SHA-256 of
// the body, and compares it in constant time; it does no signing arithmetic
// of its own. As AWS's front end answers a JSON protocol service, every
// refusal is 400: no Authorization header, MissingAuthenticationTokenException;
// a malformed one or no X-Amz-Date, IncompleteSignatureException; a scope
// for another region, service, terminator or day, a clock more than 15
// minutes off, or a signature that does not match,
// InvalidSignatureException (the last with the canonical request and the
// string to sign the server expected, as AWS sends them: a client must not
// show such messages); an unknown access key or a wrong session token,
// UnrecognizedClientException; an expired session token,
// ExpiredTokenException.
//
// # Scope and limitations
//
//   - Four operations; any other X-Amz-Target gets 400
//     UnknownOperationException, a body that is not JSON 400
//     SerializationException. DeleteIPSet, tags, and every other WAF
//     resource are not modelled; CreateIPSet accepts Tags and drops them.
//   - No IAM: every accepted key may do everything (AccessDenied is a fault
//     a hook can inject). No presigned (query string) signatures; headers
//     that v4.Signer never signs (User-Agent, X-Amzn-Trace-Id) cannot be
//     verified, so a client that signed one is refused.
//   - Changes are visible at once: WAF's propagation delay, and the
//     WAFUnavailableEntityException it can cause, happen only when a hook
//     injects them.
//   - The wording of the messages, the ValidationException for the model's
//     constraints, and the order of the checks are this package's best
//     reading of AWS's behaviour, not copies of it: clients must decide by
//     the error code, never by the message. Duplicate addresses are kept
//     as given.
//   - One region, one account; ListIPSets' NextMarker is the next set's
//     name. The request log is never trimmed.
package wafv2fake
