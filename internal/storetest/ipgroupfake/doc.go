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

// Package ipgroupfake is an in-process fake of Azure Resource Manager
// serving Azure Firewall IP Groups (Microsoft.Network/ipGroups), with the
// asynchronous operations their writes start, and of the Microsoft Entra
// ID that issues its tokens, for tests that run the Azure SDK for Go
// (azidentity and armnetwork's IPGroupsClient) against it over loopback
// TLS. It is groundwork for a listkeeper backend that keeps one IP Group
// shared by many writers with optimistic concurrency.
//
// It is built from these sources, and from what azcore's pipeline and
// poller accept:
//
//   - The REST API's specification, ipGroups.json of
//     Microsoft.Network 2024-05-01 in Azure/azure-rest-api-specs: GET and
//     PUT /subscriptions/S/resourceGroups/RG/providers/Microsoft.Network/
//     ipGroups/NAME; the resource {id, name, type, location, tags, etag,
//     properties: {provisioningState, ipAddresses, firewalls,
//     firewallPolicies}}, etag and all but ipAddresses read-only; PUT
//     answers 200 or 201 and is a long-running operation with
//     final-state-via azure-async-operation.
//   - Azure's pages on IP Groups and on tracking asynchronous operations:
//     an entry is a single address (10.0.0.0), a CIDR block (10.1.0.0/32)
//     or a range (10.2.0.0-10.2.0.31), all IPv4; at most 5,000 entries per
//     group (the Azure Firewall limits); an Azure-AsyncOperation URL
//     reports {"status":"InProgress"}, then Succeeded or Failed with an
//     error.
//   - Answers of Azure seen in public bug reports: a PUT of a group
//     answers 200 with Retry-After: 10 and an Azure-AsyncOperation of
//     .../providers/Microsoft.Network/locations/LOC/nfvOperations/ID; the
//     network resource provider's etags are W/"<uuid>" and its resources
//     show provisioningState Updating while a write runs; a failed
//     operation of a group reports IpGroupsUpdateFailed ("Put on IP Groups
//     NAME Failed with 1 faulted referenced firewalls"); some regions
//     refuse an empty group with IPGroupsIPAddressCountZero; a write while
//     another operation holds a network resource is refused either with
//     409 AnotherOperationInProgress ("Another operation on this or
//     dependent resource is in progress. To retrieve status of the
//     operation use uri: ...", as Azure Firewall answered) or with 429
//     RetryableError and a RetryableErrorDueToAnotherOperation detail;
//     Kubernetes' Azure cloud provider writes network resources with
//     If-Match and treats 412 as a stale etag; ARM's 401s are
//     AuthenticationFailed (no Authorization header),
//     InvalidAuthenticationTokenAudience (listing the four audiences of
//     Audiences) and ExpiredAuthenticationToken; its throttling is a 429
//     with Retry-After in seconds.
//
// # Use
//
// New builds a Server, an http.Handler; StartTLS serves it on 127.0.0.1,
// and Cloud and Client point the SDK at it, both as the authority host
// and as the Resource Manager endpoint:
//
//	s, err := ipgroupfake.New()
//	...
//	s.StartTLS()
//	defer s.Close()
//	opts := azcore.ClientOptions{Cloud: s.Cloud(), Transport: s.Client()}
//	cred, err := azidentity.NewClientSecretCredential(ipgroupfake.TestTenantID, ipgroupfake.TestClientID,
//		ipgroupfake.TestClientSecret, &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
//	groups, err := armnetwork.NewIPGroupsClient(s.SubscriptionID(), cred, &arm.ClientOptions{ClientOptions: opts})
//
// A client sends If-Match or If-None-Match with policy.WithHTTPHeader on
// the context, as the SDK's method has no parameter for them.
//
// CreateGroup, Group, GroupJSON and SetAddresses reach the groups without
// a request: to seed a test, to read what it wrote, or to play another
// writer behind the client's back (WithWriteHook calls one at the moment
// between a client's checks and its write). Requests and Stats are the log
// of requests (without tokens or secrets) and its counts by operation,
// status, method and error code, with the number of writes accepted.
// Throttle answers the next requests with 429 and Retry-After;
// WithFaultHook answers chosen requests with an Error, drops their
// connection (DropConnection before the request is served, DropAnswer
// after, so that a write lands unknown to its client) or lets a write's
// operation fail (FailOperation, IPGroupsUpdateFailed); FailFirst is a
// ready-made hook.
//
// # What it answers
//
// A request for the token endpoint or the OpenID configuration is Entra
// ID's (below). Any other, in the order it is decided:
//
//   - a path or method it does not serve: 404 (405); another
//     subscription: 404 SubscriptionNotFound; no api-version: 400
//     MissingApiVersionParameter (any version is accepted);
//   - no bearer token, a token this Server did not sign, or one that has
//     expired by its clock or is for another audience: 401 with ARM's code
//     and message and a WWW-Authenticate: Bearer challenge naming the
//     Server's authority;
//   - Throttle: 429 SubscriptionRequestsThrottled with Retry-After;
//   - the FaultHook's Error;
//   - GET of a group: 200 with the group, or 404 ResourceNotFound;
//   - PUT of a group, whose checks come in this order: a body that is not
//     the resource's JSON, 400 InvalidRequestFormat; no location, 400
//     LocationRequired; more entries than the limit, 400
//     IPGroupsIPAddressCountExceeded; an entry of no valid form, 400
//     IPGroupsInvalidIPAddress naming it; then the WriteHook; then, under
//     the lock: the group's operation still in progress, 409 (or 429, see
//     WithBusyAnswer); If-None-Match: * and an existing group, or If-Match
//     that is neither * nor the group's etag as sent, or If-Match and no
//     group, 412 PreconditionFailed; another location, 400
//     InvalidResourceLocation. A write that passes replaces everything a
//     client may set (a write without tags leaves none), gets a new etag,
//     and answers 201 (new) or 200 with provisioningState Updating and an
//     Azure-AsyncOperation URL on the Server;
//   - GET of that URL: 200 {"status":"InProgress"} until the operation's
//     delay (WithOperationDelay) has passed by the Server's clock, then
//     {"status":"Succeeded"}, or {"status":"Failed","error":{...}} for a
//     write the FaultHook failed; the group then shows Succeeded or
//     Failed (a failed write's entries stay as written).
//
// Every ARM error is {"error":{"code":...,"message":...}}, which azcore
// reads into azcore.ResponseError's ErrorCode. Fields the client sent are
// kept byte for byte: location, tags, ipAddresses and any other field are
// served back as they came, but for the read-only ones, which the Server
// sets and ignores when a client sends them back from a read.
//
// # Microsoft Entra ID
//
// GET /TENANT/v2.0/.well-known/openid-configuration and POST
// /TENANT/oauth2/v2.0/token serve azidentity's ClientSecretCredential
// (with instance discovery disabled, as for any authority it does not
// know): grant_type client_credentials with a known client_id and
// client_secret and a scope RESOURCE/.default get a JWT access token for
// audience RESOURCE, valid for WithTokenLifetime. Refusals are OAuth 2.0
// errors with Entra ID's AADSTS codes: an unknown tenant or application
// 400, a wrong secret 401 invalid_client, a scope without /.default 400
// invalid_scope. IssueToken mints a token for any audience and lifetime.
//
// # Scope and limitations
//
//   - Only GET and PUT of a group and the operation's status: no DELETE,
//     PATCH of tags, list, $expand, resource groups (every name exists),
//     RBAC (AuthorizationFailed is a fault a hook can inject) or firewalls
//     (firewalls and firewallPolicies are always empty).
//   - IPv4 only, as the IP Groups pages show; a block with bits set past
//     its prefix is accepted and entries are kept as sent, duplicates
//     too; the service may normalise or refuse them.
//   - The codes IPGroupsIPAddressCountExceeded and
//     IPGroupsInvalidIPAddress, all messages but those quoted above, and
//     the order of the checks are this package's own: clients must decide
//     by status and by the verified codes, never by a message. Whether the
//     service changes the etag again when an operation ends is not known:
//     WithNewEtagOnCompletion makes it so, and a client that takes its
//     next If-Match from a read after the operation works either way.
//   - The location is kept as sent; ARM answers a normalised one
//     ("West Europe" as westeurope). Locations are compared normalised.
//   - No Retry-After on a write's answer or its polls unless
//     WithPollRetryAfter; the tokens are ES256 (Entra ID signs RS256) and
//     unknown to anything but this Server. One subscription; the request
//     log is never trimmed.
package ipgroupfake
