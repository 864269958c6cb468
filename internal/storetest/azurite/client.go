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

package azurite

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// Credential returns the Azure SDK's SharedKey credential of the
// development account (AccountName, AccountKey).
func (a *Azurite) Credential() *azblob.SharedKeyCredential {
	cred, err := azblob.NewSharedKeyCredential(AccountName, AccountKey)
	if err != nil {
		// AccountKey is a constant that decodes: this cannot happen.
		panic(fmt.Sprintf("azurite: the development account key does not decode: %v", err))
	}
	return cred
}

// RequestTimeout bounds each request of HTTPClient.
const RequestTimeout = 30 * time.Second

// HTTPClient returns the emulator's own HTTP client, for plain requests
// (such as ones with a SAS URL). Its timeout is RequestTimeout; Stop closes
// its idle connections.
func (a *Azurite) HTTPClient() *http.Client { return a.http }

// NewClient returns an Azure SDK blob client for BlobEndpoint that signs
// with Credential. opts may be nil; the SDK's defaults then apply (it
// retries 5xx answers with backoff), except that a nil opts.Transport
// becomes HTTPClient.
func (a *Azurite) NewClient(opts *azblob.ClientOptions) (*azblob.Client, error) {
	o := azblob.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Transport == nil {
		o.Transport = a.http
	}
	c, err := azblob.NewClientWithSharedKeyCredential(a.BlobEndpoint()+"/", a.Credential(), &o)
	if err != nil {
		return nil, fmt.Errorf("azurite blob client: %w", err)
	}
	return c, nil
}

// CreateContainer creates the container name with SharedKey signing. It
// fails when the container exists (409 ContainerAlreadyExists).
func (a *Azurite) CreateContainer(ctx context.Context, name string) error {
	c, err := a.NewClient(nil)
	if err != nil {
		return err
	}
	if _, err := c.CreateContainer(ctx, name, nil); err != nil {
		return fmt.Errorf("create container %s: %w", name, err)
	}
	return nil
}
