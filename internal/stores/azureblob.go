package stores

import (
	"net/http"
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
