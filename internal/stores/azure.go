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
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The keys of an Azure shared-key Secret.
const (
	AzureAccountName = "accountName"
	AzureAccountKey  = "accountKey"
)

// azureVersion is the Blob service version listkeeper speaks (bearer
// tokens need 2017-11-09 or later).
const azureVersion = "2021-12-02"

// sasLifetime is how long a service SAS signed with the account key lives;
// a new one is signed when less than sasRenewBefore is left.
const (
	sasLifetime    = time.Hour
	sasRenewBefore = 10 * time.Minute
)

func azureOptions(ctx context.Context, a *v1alpha1.AzureAuth, rawURL string, secret SecretFunc, policy Policy) ([]etagclient.Option, string, error) {
	parts, err := azblob.ParseURL(rawURL)
	if err != nil || parts.ContainerName == "" || parts.BlobName == "" {
		return nil, "", fmt.Errorf("%w: the list's URL does not name a container and a blob", ErrSpec)
	}
	var s etagclient.Signer
	var fp string
	switch {
	case a.SharedKey != nil:
		vals, err := keys(ctx, secret, a.SharedKey.SecretRef.Name, []string{AzureAccountName, AzureAccountKey})
		if err != nil {
			return nil, "", err
		}
		cred, err := azblob.NewSharedKeyCredential(vals[AzureAccountName], vals[AzureAccountKey])
		if err != nil {
			return nil, "", fmt.Errorf("%w: secret %q: the account key is not valid base64", ErrSpec, a.SharedKey.SecretRef.Name)
		}
		s = &sharedKeySAS{cred: cred, container: parts.ContainerName, blob: parts.BlobName}
		fp = fingerprint("azure-shared-key", vals)
	case a.WorkloadIdentity != nil:
		check, err := ambientCheck(policy, rawURL, "spec.auth.azure.workloadIdentity", "Azure Blob Storage's endpoints over https", blobEndpoint)
		if err != nil {
			return nil, "", err
		}
		cred, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
			ClientOptions:            azcore.ClientOptions{Transport: newCredentialClient(context.Background(), credentialTransport)},
			DisableInstanceDiscovery: !azureInstanceDiscovery,
		})
		if err != nil {
			return nil, "", fmt.Errorf("%w: Azure workload identity: %w", ErrSpec, err)
		}
		s = &ambientGate{check: check, next: &entraBearer{cred: cred}}
		fp = fingerprint("azure-workload-identity", nil)
	default:
		return nil, "", fmt.Errorf("%w: spec.auth.azure names no method", ErrSpec)
	}
	return []etagclient.Option{
		etagclient.WithSigner(blobHeaders{s}),
		etagclient.WithDialect(AzureBlob),
	}, fp, nil
}

// blobHeaders adds what every Blob request needs before its authentication
// (next; none for a SAS URL): the service version, and the blob type on a
// write.
type blobHeaders struct{ next etagclient.Signer }

// Sign implements etagclient.Signer.
func (b blobHeaders) Sign(req *http.Request, body []byte) error {
	req.Header.Set("x-ms-version", azureVersion)
	if req.Method == http.MethodPut {
		req.Header.Set("x-ms-blob-type", "BlockBlob")
	}
	if b.next == nil {
		return nil
	}
	return b.next.Sign(req, body)
}

// sharedKeySAS authenticates with a service SAS for the one blob, signed by
// the Azure SDK with the account key, valid for an hour and renewed ten
// minutes before it expires.
type sharedKeySAS struct {
	cred            *azblob.SharedKeyCredential
	container, blob string

	mu      sync.Mutex
	query   string
	expires time.Time
}

// Sign implements etagclient.Signer.
func (s *sharedKeySAS) Sign(req *http.Request, _ []byte) error {
	q, err := s.sas()
	if err != nil {
		return err
	}
	u := *req.URL
	if u.RawQuery != "" {
		u.RawQuery += "&" + q
	} else {
		u.RawQuery = q
	}
	req.URL = &u
	return nil
}

func (s *sharedKeySAS) sas() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.query != "" && s.expires.Sub(now) > sasRenewBefore {
		return s.query, nil
	}
	expires := now.Add(sasLifetime)
	qp, err := sas.BlobSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     now.Add(-5 * time.Minute), // clock skew
		ExpiryTime:    expires,
		Permissions:   (&sas.BlobPermissions{Read: true, Write: true, Create: true}).String(),
		ContainerName: s.container,
		BlobName:      s.blob,
	}.SignWithSharedKey(s.cred)
	if err != nil {
		return "", fmt.Errorf("sign a SAS with the account key: %w", err)
	}
	s.query, s.expires = qp.Encode(), expires
	return s.query, nil
}

// azureInstanceDiscovery is whether azidentity asks Entra's instance
// metadata (at login.microsoftonline.com) about an authority host it does
// not know. Tests turn it off for their fake authority (export_test.go).
var azureInstanceDiscovery = true

// entraBearer sends an Entra access token for Azure Storage; azidentity
// caches it and renews it before it expires, under the context of the
// request that needs it.
type entraBearer struct{ cred azcore.TokenCredential }

// Sign implements etagclient.Signer.
func (e *entraBearer) Sign(req *http.Request, _ []byte) error {
	tok, err := e.cred.GetToken(req.Context(), policy.TokenRequestOptions{Scopes: []string{"https://storage.azure.com/.default"}})
	if err != nil {
		return fmt.Errorf("entra token: %w", signError(req.Context(), err))
	}
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	return nil
}
