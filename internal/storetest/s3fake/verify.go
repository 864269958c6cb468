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

package s3fake

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/internal/storetest/sigv4"
)

// checkPayloadHashForm accepts a hex SHA-256 or UNSIGNED-PAYLOAD.
func checkPayloadHashForm(h string) *Error {
	switch {
	case h == unsignedHash, isHexSHA256(h):
		return nil
	case strings.HasPrefix(h, streamingHash):
		// aws-chunked uploads (signed chunks or trailing checksums) are
		// a real S3 feature this fake does not verify.
		return errNotImplemented("x-amz-content-sha256")
	}
	return errInvalidArgument("x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER or a valid sha256 value.",
		"x-amz-content-sha256", h)
}

func isHexSHA256(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// verify recomputes the signature of r with aws-sdk-go-v2's signer, over
// the headers the client says it signed, and compares it with the one the
// client sent, in constant time.
func (s *Server) verify(r *http.Request, c aws.Credentials, sp sigParams, presigned bool) *Error {
	if missing := unsignedAmzHeaders(r, sp.signedHeaders); missing != "" {
		return errAccessDenied("There were headers present in the request which were not signed").
			with("HeadersNotSigned", missing)
	}
	ok, trace, err := sigv4.Verify(r.Context(), r, sigv4.Claim{
		Credentials: c, Service: Service, Region: s.cfg.region, Time: sp.signingTime,
		SignedHeaders: sp.signedHeaders, Signature: sp.signature, PayloadHash: sp.payloadHash,
		Presigned: presigned, S3: true,
	})
	if err != nil {
		return InternalError()
	}
	if !ok {
		return errSignatureDoesNotMatch(sp.accessKeyID, trace.StringToSign, sp.signature, trace.Canonical)
	}
	return nil
}

// unsignedAmzHeaders lists the x-amz-* headers of r that are not in the
// signed list: S3 refuses those.
func unsignedAmzHeaders(r *http.Request, signedHeaders string) string {
	var missing []string
	for k := range r.Header {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") && !sigv4.HeaderListHas(signedHeaders, lk) {
			missing = append(missing, lk)
		}
	}
	slices.Sort(missing)
	return strings.Join(missing, ",")
}

// checkPayload compares the body with the signed payload hash; hash is ""
// for an unsigned payload.
func checkPayload(hash string, body []byte) *Error {
	if hash == "" {
		return nil
	}
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != hash {
		return errContentSHA256Mismatch(hash, got)
	}
	return nil
}
