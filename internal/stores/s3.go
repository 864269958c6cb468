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

// s3DocumentHost matches the host of an object at one of
// Amazon S3's own endpoints, in either style. The bucket (virtual-hosted
// style) is what comes before the endpoint, and the endpoint one of the
// regional, dual-stack, FIPS and legacy s3-<region> endpoints, the
// us-east-1 global ones, Transfer Acceleration, an access point's or a
// directory bucket's zonal endpoint (the last three virtual-hosted only).
var s3DocumentHost = func() *regexp.Regexp {
	const region = `[a-z]{2}(?:-[a-z]+)+-[0-9]{1,2}`
	return regexp.MustCompile(`^(?:(.+)\.)?(` +
		`s3(?:-fips)?(?:\.dualstack)?\.(` + region + `)|s3-(` + region + `)|s3|s3-external-1|` +
		`(s3-accelerate(?:\.dualstack)?|s3-accesspoint(?:-fips)?(?:\.dualstack)?\.(` + region + `)|s3express-[a-z0-9-]+\.(` + region + `))` +
		`)\.amazonaws\.com(\.cn)?$`)
}()

// S3Document returns the identity of the object at u, a URL of one of
// Amazon S3's own endpoints: its partition (a bucket's name is unique
// within aws, aws-cn or aws-us-gov), its bucket and its key, whatever the
// endpoint (regional, dual-stack, FIPS, global) and the style
// (virtual-hosted or path). The key is the path as S3 reads it: unescaped
// (%2F is a slash), with every slash kept (a//b is not a/b). An access
// point is named by its host, since which bucket it serves is not in the
// URL. ok is false for a host that is no object's (the account's control
// endpoint, a website endpoint) or a path that names no bucket.
func S3Document(u *url.URL) (doc string, ok bool) {
	m := s3DocumentHost.FindStringSubmatch(normalHost(u.Hostname()))
	if m == nil {
		return "", false
	}
	bucket, virtualOnly, cn := m[1], m[5] != "", m[8] != ""
	region := m[3] + m[4] + m[6] + m[7]
	partition := "aws"
	switch {
	case cn:
		partition = "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		partition = "aws-us-gov"
	}
	key := strings.TrimPrefix(u.Path, "/")
	switch {
	case strings.HasPrefix(m[5], "s3-accesspoint"):
		if bucket == "" {
			return "", false
		}
		return "s3-accesspoint:" + partition + ":" + region + ":" + bucket + "/" + key, true
	case bucket == "" && virtualOnly:
		return "", false
	case bucket == "":
		// Path style: the first segment is the bucket.
		var found bool
		if bucket, key, found = strings.Cut(key, "/"); bucket == "" || !found {
			return "", false
		}
	}
	return "s3:" + partition + ":" + strings.ToLower(bucket) + "/" + key, true
}
