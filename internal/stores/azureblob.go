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

package stores

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// AzureBlob is Azure Blob Storage's dialect of the HTTP list contract:
// writes are conditional on the ETag, a create (If-None-Match: *) that
// finds the blob there answers 409 BlobAlreadyExists (a lost race), and
// errors name their code in x-ms-error-code and in an XML <Code>.
// https://learn.microsoft.com/rest/api/storageservices/blob-service-error-codes
// and https://learn.microsoft.com/rest/api/storageservices/specifying-conditional-headers-for-blob-service-operations
var AzureBlob = etagclient.Dialect{
	Name:             "AzureBlob",
	ConflictStatuses: []int{http.StatusConflict},
	ErrorCode:        azureErrorCode,
	CodeClass:        azureCodes.classOf,
	ContainerMissing: azureCodes.missing,
}

// azureErrorCode prefers the XML body's code and falls back to the header,
// which a HEAD or an error without a body still carries.
func azureErrorCode(resp *http.Response) string {
	if c := azureCodes.known(xmlErrorCode(resp)); c != "" {
		return c
	}
	return azureCodes.known(strings.TrimSpace(resp.Header.Get("x-ms-error-code")))
}

var azureCodes = codes{
	class: map[string]error{
		"AuthenticationFailed": etagclient.ErrUnauthorized, "AuthorizationFailure": etagclient.ErrUnauthorized,
		"AuthorizationPermissionMismatch": etagclient.ErrUnauthorized, "InvalidAuthenticationInfo": etagclient.ErrUnauthorized,
		"ContainerNotFound": etagclient.ErrNotFound,
	},
	quoted: set("BlobNotFound", "ConditionNotMet", "BlobAlreadyExists", "ServerBusy",
		"OperationTimedOut", "InvalidHeaderValue", "RequestBodyTooLarge",
		"InvalidBlobType", "LeaseIdMissing", "InsufficientAccountPermissions",
		"InvalidQueryParameterValue", "UnsupportedHeader", "InternalError", "ServiceUnavailable"),
}

// blobDocumentHost splits a host of Azure Blob Storage (blobHost) into its
// account, without the -secondary of the read-only geo-redundant
// endpoint, and its cloud.
var blobDocumentHost = regexp.MustCompile(`^([a-z0-9]{3,24})(?:-secondary)?\.(blob\.core\.(windows\.net|chinacloudapi\.cn|usgovcloudapi\.net)|z[0-9]{2}\.blob\.storage\.azure\.net)$`)

// AzureBlobDocument returns the identity of the blob at u, a URL of one of
// Azure Blob Storage's own endpoints: its cloud (an account's name is
// unique within the public, China or US Government cloud), its account,
// container and blob name. The account's primary and secondary endpoints,
// its standard and DNS zone endpoints are one account; a blob in the root
// container may be named without it ($root). The blob's name is the path
// as Blob Storage reads it: unescaped, every slash kept. ok is false for
// a path that names no blob.
func AzureBlobDocument(u *url.URL) (doc string, ok bool) {
	m := blobDocumentHost.FindStringSubmatch(normalHost(u.Hostname()))
	if m == nil {
		return "", false
	}
	cloud := "AzureCloud"
	switch m[3] {
	case "chinacloudapi.cn":
		cloud = "AzureChinaCloud"
	case "usgovcloudapi.net":
		cloud = "AzureUSGovernment"
	}
	container, blob, found := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if !found {
		container, blob = "$root", container
	}
	if container == "" || blob == "" {
		return "", false
	}
	return "azblob:" + cloud + ":" + m[1] + "/" + strings.ToLower(container) + "/" + blob, true
}
