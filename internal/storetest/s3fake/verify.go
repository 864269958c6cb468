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
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"
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

func headerListHas(list, name string) bool {
	for h := range strings.SplitSeq(list, ";") {
		if h == name {
			return true
		}
	}
	return false
}

// verify recomputes the signature of r with aws-sdk-go-v2's signer, over
// the headers the client says it signed, and compares it with the one the
// client sent, in constant time.
func (s *Server) verify(r *http.Request, c aws.Credentials, sp sigParams, presigned bool) *Error {
	if missing := unsignedAmzHeaders(r, sp.signedHeaders); missing != "" {
		return errAccessDenied("There were headers present in the request which were not signed").
			with("HeadersNotSigned", missing)
	}
	req := signable(r, sp.signedHeaders, presigned)
	// A signer per request: v4.Signer caches derived keys by access key
	// ID, day, region and service, not by secret, so a shared one would
	// go on accepting the old secret after SetCredentials changed it.
	signer := v4.NewSigner()
	var trace signingTrace
	opts := func(o *v4.SignerOptions) {
		// S3 signs the path as sent, without escaping it a second time.
		o.DisableURIPathEscaping = true
		o.DisableHeaderHoisting = true
		o.Logger = &trace
		o.LogSigning = true
	}
	var gotHeaders, want string
	if presigned {
		signed, _, err := signer.PresignHTTP(r.Context(), c, req, sp.payloadHash, Service, s.cfg.region, sp.signingTime, opts)
		if err != nil {
			return InternalError()
		}
		u, err := url.Parse(signed)
		if err != nil {
			return InternalError()
		}
		gotHeaders, want = u.Query().Get(qSignedHeaders), u.Query().Get(qSignature)
	} else {
		if err := signer.SignHTTP(r.Context(), c, req, sp.payloadHash, Service, s.cfg.region, sp.signingTime, opts); err != nil {
			return InternalError()
		}
		recomputed, _ := s.parseAuthorization(req.Header.Get("Authorization"))
		gotHeaders, want = recomputed.signedHeaders, recomputed.signature
	}
	if gotHeaders != sp.signedHeaders ||
		subtle.ConstantTimeCompare([]byte(want), []byte(sp.signature)) != 1 {
		return errSignatureDoesNotMatch(sp.accessKeyID, trace.stringToSign, sp.signature, trace.canonical)
	}
	return nil
}

// signable builds the request the signer is given: r's method, path, query
// (without the signature) and host, and only the headers the client signed.
// The signer adds X-Amz-Date and X-Amz-Security-Token itself, from the
// signing time and the credential.
func signable(r *http.Request, signedHeaders string, presigned bool) *http.Request {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	if r.TLS != nil {
		u.Scheme = "https"
	}
	if presigned {
		q := r.URL.Query()
		q.Del(qSignature)
		u.RawQuery = q.Encode()
	}
	req := (&http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: http.Header{}}).WithContext(r.Context())
	for h := range strings.SplitSeq(signedHeaders, ";") {
		switch h {
		case "host":
		case "content-length":
			req.ContentLength = r.ContentLength
		default:
			if vs := r.Header.Values(h); len(vs) > 0 {
				req.Header[textproto.CanonicalMIMEHeaderKey(h)] = vs
			}
		}
	}
	return req
}

// unsignedAmzHeaders lists the x-amz-* headers of r that are not in the
// signed list: S3 refuses those.
func unsignedAmzHeaders(r *http.Request, signedHeaders string) string {
	var missing []string
	for k := range r.Header {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") && !headerListHas(signedHeaders, lk) {
			missing = append(missing, lk)
		}
	}
	slices.Sort(missing)
	return strings.Join(missing, ",")
}

// signingTrace captures the canonical request and the string to sign that
// the signer logs, for the body of SignatureDoesNotMatch (as S3 sends
// them).
type signingTrace struct{ canonical, stringToSign string }

// Logf implements logging.Logger.
func (t *signingTrace) Logf(_ logging.Classification, _ string, v ...any) {
	if len(v) >= 2 {
		t.canonical, _ = v[0].(string)
		t.stringToSign, _ = v[1].(string)
	}
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
