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

package conformance_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
)

// TestAzureBlob: a blob in Azurite, Microsoft's emulator, signed with the
// account key from a Secret. As in every test of the project that needs
// it, a missing Azurite fails the test ('make azurite' installs it; 'make
// test' depends on it): it does not skip.
func TestAzureBlob(t *testing.T) { conformance.Run(t, azureBlobHarness()) }

func azureBlobHarness() conformance.Harness {
	return conformance.Harness{
		Kind: "azureblob", Start: startAzureBlob, IDs: entryIDs, IsWrite: isPut,
		Absent: true, Create: true, Ordered: true,
		Unsafe: etagUnsafe,
	}
}

// One Azurite serves every subtest, each in a container of its own:
// starting the emulator takes seconds.
var (
	azOnce     sync.Once
	az         *azurite.Azurite
	azErr      error
	containers atomic.Int64
)

func sharedAzurite(t *testing.T) *azurite.Azurite {
	t.Helper()
	azOnce.Do(func() { az, azErr = azurite.Start(context.Background(), azurite.Options{}) })
	if azErr != nil {
		t.Fatalf("azurite: %v", azErr)
	}
	return az
}

// stopAzurite stops the shared Azurite, if it was started.
func stopAzurite() {
	if az != nil {
		_ = az.Stop()
	}
}

func startAzureBlob(t *testing.T, probe *conformance.Probe) *conformance.Target {
	a := sharedAzurite(t)
	sdk, err := a.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	container := fmt.Sprintf("conformance-%d", containers.Add(1))
	if err := a.CreateContainer(t.Context(), container); err != nil {
		t.Fatal(err)
	}
	auth := &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{SharedKey: &v1alpha1.AzureSharedKey{SecretRef: v1alpha1.SecretReference{Name: "az"}}}}
	sec := secrets(map[string]map[string]string{"az": {stores.AzureAccountName: azurite.AccountName, stores.AzureAccountKey: azurite.AccountKey}})
	target := func(t *testing.T, container string) *conformance.Target {
		url := a.BlobURL(container, "allow.json")
		opts, _, err := stores.Options(t.Context(), auth, url, sec, stores.Policy{})
		if err != nil {
			t.Fatalf("stores.Options: %v", err)
		}
		return &conformance.Target{
			URL: url, Options: opts, ItemsPointer: docPointer,
			Seed: func(t *testing.T, items []string) {
				if _, err := sdk.UploadBuffer(t.Context(), container, "allow.json", jsonDoc(t, items), nil); err != nil {
					t.Fatal(err)
				}
			},
			Stored: func(t *testing.T) ([]byte, bool) {
				resp, err := sdk.DownloadStream(t.Context(), container, "allow.json", nil)
				if bloberror.HasCode(err, bloberror.BlobNotFound, bloberror.ContainerNotFound) {
					return nil, false
				}
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = resp.Body.Close() }()
				raw, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				return raw, true
			},
			Items: docItems, Foreign: docForeign,
			Inject: func(f conformance.Fault, pick func(*http.Request) bool) error {
				// Azurite has no fault hook: the probe drops connections,
				// and answers in Blob Storage's words.
				switch f {
				case conformance.FaultDropBefore, conformance.FaultDropAfter:
					return probe.Inject(f, pick)
				}
				status, code := map[conformance.Fault]int{
					conformance.FaultThrottled: http.StatusServiceUnavailable, conformance.FaultUnavailable: http.StatusServiceUnavailable,
					conformance.FaultInternal: http.StatusInternalServerError,
				}[f], map[conformance.Fault]string{
					conformance.FaultThrottled: "ServerBusy", conformance.FaultUnavailable: "ServiceUnavailable",
					conformance.FaultInternal: "InternalError",
				}[f]
				if status == 0 {
					return fmt.Errorf("%w: %s", conformance.ErrNoFault, f)
				}
				probe.Answer(pick, func(*http.Request) *http.Response {
					return answer(status, http.Header{"Content-Type": {"application/xml"}, "X-Ms-Error-Code": {code}},
						`<?xml version="1.0" encoding="utf-8"?><Error><Code>`+code+`</Code><Message>`+code+`</Message></Error>`)
				})
				return nil
			},
		}
	}
	tg := target(t, container)
	tg.Missing = func(t *testing.T, _ *conformance.Probe) *conformance.Target {
		return target(t, fmt.Sprintf("missing-%d", containers.Add(1)))
	}
	return tg
}
