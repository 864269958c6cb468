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
	var provider aws.CredentialsProvider
	var fp string
	var check func(*url.URL) error
	if a.SecretRef != nil {
		vals, err := keys(ctx, secret, a.SecretRef.Name, []string{AWSAccessKeyID, AWSSecretAccessKey}, AWSSessionToken)
		if err != nil {
			return nil, "", err
		}
		provider = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(vals[AWSAccessKeyID], vals[AWSSecretAccessKey], vals[AWSSessionToken]))
		vals["region"], vals["service"] = a.Region, service
		fp = fingerprint("aws-secret", vals)
	} else {
		endpoint, endpoints := func(string) bool { return false }, "no endpoint of "+service
		if service == "s3" {
			endpoint, endpoints = s3Endpoint(a.Region), fmt.Sprintf("Amazon S3's endpoints of region %q over https", a.Region)
		}
		var err error
		if check, err = ambientCheck(policy, rawURL, "spec.auth.aws without a Secret", endpoints, endpoint); err != nil {
			return nil, "", err
		}
		// The chain's own calls (STS, EKS Pod Identity, instance
		// metadata) end with the signing request that wanted them. The
		// SDK's own HTTP client stays: it honours AWS_CA_BUNDLE.
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(a.Region),
			config.WithAPIOptions([]func(*middleware.Stack) error{bindToSigningRequest}))
		if err != nil {
			return nil, "", fmt.Errorf("%w: AWS default credential chain: %w", ErrSpec, err)
		}
		provider = cfg.Credentials // an aws.CredentialsCache
		fp = fingerprint("aws-default-chain", map[string]string{"region": a.Region, "service": service})
	}
	var s etagclient.Signer = &awsSigner{creds: provider, region: a.Region, service: service}
	if check != nil {
		s = &ambientGate{check: check, next: s}
	}
	return []etagclient.Option{
		etagclient.WithSigner(s),
		etagclient.WithDialect(S3),
	}, fp, nil
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
