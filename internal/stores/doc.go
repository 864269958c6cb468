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

// Package stores turns an ExternalList's spec.auth into ETag client
// options: a Signer built from the store provider's own Go library and the
// store's dialect (its precondition style, the statuses it uses for lost
// races, its error codes).
//
//   - aws: SigV4 with aws-sdk-go-v2's signer; credentials from a Secret or
//     the SDK's default chain (IRSA web identity, EKS Pod Identity, the
//     environment), cached and refreshed by aws.CredentialsCache. S3's 409
//     ConditionalRequestConflict counts as a conflict.
//   - gcp: OAuth2 bearer tokens from golang.org/x/oauth2/google, from a
//     service-account key in a Secret or Application Default Credentials
//     (GKE Workload Identity), reused until shortly before they expire.
//     Writes are conditional on the object generation.
//   - azure: with a shared key, a short-lived service SAS for the blob,
//     signed by the Azure SDK (sas.BlobSignatureValues.SignWithSharedKey)
//     and renewed before it expires; with workload identity, Entra tokens
//     from azidentity. A 409 on create counts as a conflict.
//
// Lists that are not a document behind HTTP get a backend of their own
// (etagclient.WithBackend):
//
//   - wafv2 (wafv2.go): a list kept in an AWS WAF IP set, read with
//     GetIPSet and written with UpdateIPSet on the read's lock token,
//     through aws-sdk-go-v2's wafv2 client over the engine's HTTP client,
//     which signs with the same AWS identity rules as spec.auth.aws
//     (awsCredentials).
//   - gcpIAM (gcpiam.go): the members of one role's unconditional binding
//     in the IAM policy of a project, folder or organization (Cloud
//     Resource Manager v3) or of a bucket (Cloud Storage JSON API), read
//     and written with Google's client libraries over the engine's HTTP
//     client, with the gcp tokens above (scope cloud-platform). A write
//     carries the etag it read and the rest of the policy as read; a lost
//     race (409 ABORTED, 412 conditionNotMet) is retried by the engine.
//
// The object stores' dialects of the HTTP list contract (preconditions,
// lost-race statuses, error codes) are here too, one file per store:
// s3.go, gcs.go, azureblob.go.
//
// Each kind also says what identifies its document, so that one object
// spelled two ways is one document and two objects are never one: S3's
// bucket and key, Cloud Storage's bucket and object, Azure's account,
// container and blob, whatever the URL's style (s3.go, gcs.go,
// azureblob.go); an IP set's region, scope and ID and an IAM policy's
// resource, whatever the provider's endpoint (wafv2.go, gcpiam.go); a plain
// HTTP document's scheme, host, port, path and selecting query keys, and
// the dispatch of a URL to its kind (document.go).
//
// No signing or token code is written here; credentials never appear in
// errors or logs.
//
// # Whose credentials go where
//
// A list that names no Secret (aws or gcp without secretRef, azure
// workloadIdentity) would sign with the operator's own identity. The
// caller's Policy decides whether it may (Policy.Ambient); refused, it
// gets ErrAmbientNotAllowed and nothing is loaded, fetched or sent.
// Allowed, the operator's identity still goes only to the provider's own
// endpoints over https (endpoints.go) and to the hosts the operator adds
// (Policy.AmbientHosts), checked for the list's URL and again for every
// request.
//
// A service-account key from a Secret is honoured only if its token_uri is
// Google's token endpoint (GoogleTokenURIs) or one the operator adds
// (Policy.GCPTokenURIs); otherwise ErrTokenURINotAllowed, an ErrSpec,
// before any request.
//
// # Tokens, deadlines and errors
//
// Every token or credential fetch runs under the context of the request
// being signed, and ends with it: a token endpoint that does not answer
// holds a request no longer than its deadline, and nothing waits on it in
// the background (but for GCE's metadata server, whose client takes no
// context and is left to its own timeouts). A valid token is reused until shortly before it
// expires. Requests to Google's and Entra's token endpoints follow no
// redirect (the AWS chain's go to the endpoints the operator's own
// environment names, through the SDK's client, which honours
// AWS_CA_BUNDLE). Errors of a fetch carry the endpoint's HTTP status and
// fixed words, never a response body.
package stores
