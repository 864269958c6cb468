package stores

import (
	"net/http"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// S3 is Amazon S3's dialect of the HTTP list contract: writes are
// conditional on the ETag (If-Match, If-None-Match: * to create), two
// conditional writes that race end one of them with 409
// ConditionalRequestConflict (nothing was written), and errors carry an
// XML <Code> that decides their class where the status would mislead (an
// expired token is a 400, a missing bucket a 404 like a missing object).
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html and
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-requests.html
var S3 = etagclient.Dialect{
	Name:             "S3",
	ConflictStatuses: []int{http.StatusConflict},
	ErrorCode:        func(resp *http.Response) string { return s3Codes.known(xmlErrorCode(resp)) },
	CodeClass:        s3Codes.classOf,
	ContainerMissing: s3Codes.missing,
}

var s3Codes = codes{
	class: map[string]error{
		"ExpiredToken": etagclient.ErrUnauthorized, "InvalidToken": etagclient.ErrUnauthorized,
		"TokenRefreshRequired": etagclient.ErrUnauthorized, "InvalidAccessKeyId": etagclient.ErrUnauthorized,
		"SignatureDoesNotMatch": etagclient.ErrUnauthorized, "AccessDenied": etagclient.ErrUnauthorized,
		"AuthorizationHeaderMalformed": etagclient.ErrUnauthorized, "RequestTimeTooSkewed": etagclient.ErrUnauthorized,
		"NoSuchBucket": etagclient.ErrNotFound,
	},
	quoted: set("NoSuchKey", "PreconditionFailed", "ConditionalRequestConflict", "SlowDown",
		"InternalError", "ServiceUnavailable", "InvalidRequest", "InvalidArgument",
		"EntityTooLarge", "RequestTimeout", "MethodNotAllowed", "MissingContentLength",
		"OperationAborted", "InvalidBucketName", "PermanentRedirect", "TemporaryRedirect",
		"AccountProblem", "AllAccessDisabled", "NotImplemented"),
}
