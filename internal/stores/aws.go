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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/middleware"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The keys of an AWS credentials Secret.
const (
	AWSAccessKeyID     = "AWS_ACCESS_KEY_ID"
	AWSSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	AWSSessionToken    = "AWS_SESSION_TOKEN"
)

func awsOptions(ctx context.Context, a *v1alpha1.AWSAuth, rawURL string, secret SecretFunc, policy Policy) ([]etagclient.Option, string, error) {
	service := a.Service
	if service == "" {
		service = "s3"
	}
	target := awsTarget{region: a.Region, service: service, rawURL: rawURL,
		endpoint: func(string) bool { return false }, endpoints: "no endpoint of " + service}
	if service == "s3" {
		target.endpoint, target.endpoints = s3Endpoint(a.Region), fmt.Sprintf("Amazon S3's endpoints of region %q over https", a.Region)
	}
	id, err := awsCredentials(ctx, a.SecretRef, target, secret, policy)
	if err != nil {
		return nil, "", err
	}
	var s etagclient.Signer = &awsSigner{creds: id.provider, region: a.Region, service: service}
	if id.check != nil {
		s = &ambientGate{check: id.check, next: s}
	}
	return []etagclient.Option{
		etagclient.WithSigner(s),
		etagclient.WithDialect(S3),
	}, id.fingerprint, nil
}

// awsTarget is what an AWS identity signs for: a region, a service's
// signing name, the URL the requests go to, and the service's own
// endpoints (the hosts the operator's identity may go to without
// Policy.AmbientHosts naming them), with those endpoints in words for
// errors.
type awsTarget struct {
	region, service, rawURL string
	endpoint                func(host string) bool
	endpoints               string
}

// awsIdentity is the identity a list signs with.
type awsIdentity struct {
	// provider returns the credentials, cached and refreshed before they
	// expire (an aws.CredentialsCache).
	provider aws.CredentialsProvider
	// fingerprint changes when the credentials do (a rotated Secret).
	fingerprint string
	// check is the test every request's URL must pass before it is
	// signed with the operator's own identity (see ambientCheck); nil
	// for a Secret's keys, which go anywhere.
	check func(*url.URL) error
}

// awsCredentials returns the identity of spec.auth.aws for target: the
// keys of the Secret that secretRef names, in a CredentialsCache, or,
// without a Secret, the SDK's default chain (IRSA, EKS Pod Identity, the
// environment), only where policy lets the list use the operator's own
// identity for target.rawURL (ambientCheck: nothing is loaded when it does
// not).
func awsCredentials(ctx context.Context, secretRef *v1alpha1.SecretReference, target awsTarget, secret SecretFunc, policy Policy) (awsIdentity, error) {
	if secretRef != nil {
		vals, err := keys(ctx, secret, secretRef.Name, []string{AWSAccessKeyID, AWSSecretAccessKey}, AWSSessionToken)
		if err != nil {
			return awsIdentity{}, err
		}
		provider := aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(vals[AWSAccessKeyID], vals[AWSSecretAccessKey], vals[AWSSessionToken]))
		vals["region"], vals["service"] = target.region, target.service
		return awsIdentity{provider: provider, fingerprint: fingerprint("aws-secret", vals)}, nil
	}
	check, err := ambientCheck(policy, target.rawURL, "spec.auth.aws without a Secret", target.endpoints, target.endpoint)
	if err != nil {
		return awsIdentity{}, err
	}
	// The chain's own calls (STS, EKS Pod Identity, instance metadata)
	// end with the signing request that wanted them. The SDK's own HTTP
	// client stays: it honours AWS_CA_BUNDLE.
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(target.region),
		config.WithAPIOptions([]func(*middleware.Stack) error{bindToSigningRequest}))
	if err != nil {
		return awsIdentity{}, fmt.Errorf("%w: AWS default credential chain: %w", ErrSpec, err)
	}
	return awsIdentity{
		provider:    cfg.Credentials, // an aws.CredentialsCache
		fingerprint: fingerprint("aws-default-chain", map[string]string{"region": target.region, "service": target.service}),
		check:       check,
	}, nil
}

// bindToSigningRequest is a middleware of the clients of the AWS
// credential chain (STS, SSO, EKS Pod Identity, instance metadata): it ends
// each of their calls, retries and their waits included, when the signing
// request that wanted the credentials ends, although aws.CredentialsCache
// strips that request's deadline from the context it fetches under.
func bindToSigningRequest(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ListkeeperSigningRequestContext",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			bound, ok := signingContext(ctx)
			if !ok {
				return next.HandleInitialize(ctx, in)
			}
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			defer context.AfterFunc(bound, func() { cancel(context.Cause(bound)) })()
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}

// awsSigner signs with SigV4. The credentials cache refreshes temporary
// credentials (web identity, Pod Identity) before they expire. A new
// v4.Signer signs each request: a long-lived one caches the derived key by
// access key ID, region and day, not by secret, and would go on signing
// with a rotated secret's old value.
type awsSigner struct {
	creds   aws.CredentialsProvider
	region  string
	service string
}

// Sign implements etagclient.Signer. Credentials are fetched under the
// request's context: aws.CredentialsCache gives up waiting when the context
// ends, and the fetch itself ends with it (bindToSigningRequest).
func (s *awsSigner) Sign(req *http.Request, body []byte) error {
	creds, err := s.creds.Retrieve(withSigningContext(req.Context()))
	if err != nil {
		return fmt.Errorf("aws credentials: %w", signError(req.Context(), err))
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	// S3 wants the path signed as sent: escaping it again breaks every key
	// that needs escaping.
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = s.service == "s3" })
	return signer.SignHTTP(req.Context(), creds, req, hash, s.service, s.region, time.Now())
}
