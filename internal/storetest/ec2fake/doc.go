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

// Package ec2fake is an in-process AWS EC2 managed prefix list API for
// tests that checks SigV4: DescribeManagedPrefixLists,
// GetManagedPrefixListEntries (every version stays readable),
// ModifyManagedPrefixList with EC2's optimistic concurrency on the list's
// version, and CreateManagedPrefixList, over the EC2 Query protocol. It is
// the ground a listkeeper backend that keeps a prefix list shared by many
// writers is to be tested on, with aws-sdk-go-v2's own ec2 client.
//
// It is built from these sources, and from what the SDK's serializers
// send and its deserializers accept:
//
//   - Amazon EC2 API Reference, ModifyManagedPrefixList,
//     GetManagedPrefixListEntries, DescribeManagedPrefixLists,
//     CreateManagedPrefixList and ManagedPrefixList
//     (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/): "adding or
//     removing entries in a prefix list creates a new version", "if you
//     specify a current version number that does not match the true
//     current version number, the request fails", at most 100 entries a
//     request, MaxEntries and the entries not both in one request,
//     MaxResults 1 to 100, the states, descriptions of up to 255
//     characters.
//   - The Amazon EC2 error codes and Query API troubleshooting pages: the
//     error body <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>,
//     RequestLimitExceeded for throttling, AuthFailure, IncompleteSignature,
//     RequestExpired, InvalidAction, InvalidPaginationToken.
//   - What clients have been told by EC2, quoted in public issue
//     trackers: PrefixListVersionMismatch "The prefix list has the
//     incorrect version number." (400); IncorrectState "in the current
//     state (modify-in-progress)"; InvalidPrefixListModification "... does
//     not exist." for an entry removed that is not there;
//     InvalidParameterCombination "You cannot modify the entries and the
//     maximum entries for the prefix list in the same request.";
//     InvalidParameterValue "Request cannot contain Cidr ... in both
//     AddPrefixListEntries and RemovePrefixListEntries", "The number of
//     entries per request cannot exceeds limit (100).", "Must specify a
//     max size between 1 and 1000"; InvalidPrefixListID.NotFound "The
//     prefix list ID '...' does not exist"; RequestLimitExceeded with
//     status 503; AuthFailure "AWS was not able to validate the provided
//     access credentials" with status 401, for a wrong secret too;
//     RequestExpired "Request has expired." (400) for an expired session.
//
// # Use
//
// New builds a Server, an http.Handler; Start serves it on 127.0.0.1 (on a
// free port) and URL returns its base URL, which is the SDK's
// BaseEndpoint:
//
//	s, err := ec2fake.New()
//	...
//	s.Start()
//	defer s.Close()
//	id, err := s.CreatePrefixList("office", ec2fake.IPv4, 10, ec2fake.Entry{CIDR: "192.0.2.0/24"})
//	client := ec2.NewFromConfig(aws.Config{Region: ec2fake.DefaultRegion,
//		Credentials: credentials.NewStaticCredentialsProvider(ec2fake.TestAccessKeyID, ec2fake.TestSecretAccessKey, "")},
//		func(o *ec2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
//
// CreatePrefixList, PrefixList and EntriesAt reach the lists without a
// request, to seed a test and to read what it wrote; ModifyEntries changes
// a list as another writer would, and RunBefore slips such a change in
// just before a chosen request. Requests and Stats return the log of
// requests and their counts by action, status and error code
// (VersionMismatches, IncorrectStates, Modifies). WithFaultHook answers
// chosen requests with an Error (RequestLimitExceeded, Unavailable,
// InternalError, UnauthorizedOperation) or drops their connection
// (DropConnection before the action runs, DropAnswer after); FailFirst is
// the ready-made hook. WithSettleDelay and WithClock make the states
// visible.
//
// # Prefix lists
//
// A list has an ID (pl- and 17 hex digits), a name, an ARN, an owner, an
// address family (IPv4 or IPv6), a MaxEntries (1 to 1000), tags, a version
// and, at every version it has had, its entries: a CIDR block and an
// optional description each. A list is created at version 1; every change
// of its entries makes the next version, and the entries of every version
// can be read with TargetVersion. A change of the name or of MaxEntries
// keeps the version.
//
// After a change of its entries or of its MaxEntries a list is
// modify-in-progress for the settle delay, by the Server's clock, and then
// modify-complete; a list created by a request is create-in-progress and
// then create-complete. The new version and its entries are visible at
// once; what the delay holds back is the next modification, which meets
// IncorrectState. A new name alone changes no state.
//
// ModifyManagedPrefixList is judged in this order, and a refused one
// changes nothing: the PrefixListId (MissingParameter); more than 100
// entries added and removed together (InvalidParameterValue); MaxEntries
// with entries (InvalidParameterCombination); MaxEntries outside 1 to 1000
// and a name that is empty, longer than 255 characters or starts with
// com.amazonaws (InvalidParameterValue); a request that changes nothing
// (InvalidRequest); a description longer than 255 characters, and a CIDR
// block named twice in the additions, twice in the removals, or in both
// (InvalidParameterValue); the list (InvalidPrefixListID.NotFound); a list
// in progress (IncorrectState); CurrentVersion, when given, against the
// version (PrefixListVersionMismatch; without CurrentVersion the
// modification is unconditional); MaxEntries below the entries there are
// (InvalidParameterValue); each CIDR block removed, then each added: of
// the list's family and well-formed (InvalidParameterValue), there when
// removed and not there when added (InvalidPrefixListModification); and
// last, the entries that would result against MaxEntries
// (PrefixListMaxEntriesExceeded). The list is changed atomically: of two
// modifications that present the same CurrentVersion, one lands.
//
// A CIDR block names its prefix length (10.0.0.1 is refused; 10.0.0.1/32
// is the host), has no bits set beyond it (10.0.0.1/24 is refused, not
// rounded), and is of the list's family; 0.0.0.0/0 and ::/0 are allowed.
// IPv6 is kept lower-case and compressed, so 2001:DB8:0::/32 and
// 2001:db8::/32 are the same entry. Entries are answered in the order of
// their CIDR blocks.
//
// GetManagedPrefixListEntries and DescribeManagedPrefixLists answer
// MaxResults (1 to 100) at a time, 100 when it is absent, so a client that
// does not follow NextToken sees no more than 100. A NextToken is good for
// the list and the TargetVersion it was given with; without a
// TargetVersion, the next page is cut from whatever version is current
// then, so a client that pages while another writer changes the list can
// see an entry twice or miss one, and pins a version to avoid it.
//
// # Authentication
//
// Every request must be signed with SigV4 in its Authorization header, for
// service "ec2" and the Server's region, with one of the accepted
// credentials. The verifier recomputes the signature with aws-sdk-go-v2's
// v4.Signer over the headers the client says it signed and the SHA-256 of
// the body, and compares it in constant time. EC2 tells a client little:
// no Authorization header is 400 MissingParameter; a malformed one, or no
// X-Amz-Date, 400 IncompleteSignature; an unknown access key, a scope for
// another region, service, terminator or day, a missing or wrong session
// token, or a signature that does not match (a wrong secret), 401
// AuthFailure; a clock more than 15 minutes off, or an expired session
// token, 400 RequestExpired.
//
// # Scope and limitations
//
//   - Four actions; any other Action gets 400 InvalidAction, a request
//     without one 400 MissingAction. DeleteManagedPrefixList, restoring a
//     version, sharing, the lists AWS manages (com.amazonaws.*), and the
//     resources that reference a list are not modelled. DryRun is not
//     modelled: DryRun=true gets 400 UnsupportedOperation and changes
//     nothing. ClientToken is accepted and not remembered. Parameters the
//     Server does not know are ignored.
//   - No IAM: every accepted key may do everything (UnauthorizedOperation
//     is a fault a hook can inject). Only POST / with a form-encoded body;
//     no presigned (query string) signatures. Headers that v4.Signer never
//     signs (User-Agent, X-Amzn-Trace-Id) cannot be verified, so a client
//     that signed one is refused.
//   - EC2 is eventually consistent; the Server is not: a change is
//     visible to the next read. Only the states are held back.
//   - The codes and statuses above come from AWS's documents and from
//     what EC2 has answered clients; the codes and messages for an entry
//     added that is there, for entries beyond MaxEntries, for a missing
//     TargetVersion, for a malformed CIDR block, the order of the checks,
//     the order of the entries, and a page of 100 when MaxResults is
//     absent are this package's reading, not copies of EC2's: clients
//     must decide by the error code, never by the message. EC2 has also
//     been seen to answer a bad signature with SignatureDoesNotMatch; this
//     Server always answers AuthFailure.
//   - One region, one account. Every version of every list is kept (AWS
//     keeps a bounded number). The request log is never trimmed.
package ec2fake
