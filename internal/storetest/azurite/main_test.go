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

package azurite_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
)

// az is the emulator that every test of this package shares; each test has
// its own container.
var az *azurite.Azurite

// testTimeout bounds each test's requests.
const testTimeout = 20 * time.Second

// azuriteETag is the form of the ETags that Azurite 3.35.0 gives blobs:
// strong, quoted, "0x" and at least 15 upper-case hex digits (Azure's own
// are "0x8D" and 13 more).
var azuriteETag = regexp.MustCompile(`^"0x[0-9A-F]{15,}"$`)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), azurite.DefaultStartTimeout)
	defer cancel()
	var err error
	if az, err = azurite.Start(ctx, azurite.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- azurite log (%s), last 16 KiB:\n%s\n", az.LogPath(), az.LogTail(16<<10))
	}
	if err := az.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	return code
}

var containers atomic.Int64

// newContainer creates a container of its own for t and returns its name.
func newContainer(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("c%d-%s", containers.Add(1), strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")))
	name = strings.TrimRight(name[:min(len(name), 63)], "-")
	if err := az.CreateContainer(testContext(t), name); err != nil {
		t.Fatal(err)
	}
	return name
}

// testContext returns a context that ends with t or after testTimeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newSDKClient returns a SharedKey client that never retries, so that every
// answer is the emulator's first.
func newSDKClient(t *testing.T) *azblob.Client {
	t.Helper()
	c, err := az.NewClient(&azblob.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// blockBlob returns the SDK client of one block blob.
func blockBlob(c *azblob.Client, container, blob string) *blockblob.Client {
	return c.ServiceClient().NewContainerClient(container).NewBlockBlobClient(blob)
}

// upload writes body to bc with the given access conditions (nil for none)
// and returns the new ETag.
func upload(ctx context.Context, bc *blockblob.Client, body string, opts *blockblob.UploadOptions) (azcore.ETag, error) {
	resp, err := bc.Upload(ctx, streaming.NopCloser(strings.NewReader(body)), opts)
	if err != nil {
		return "", err
	}
	if resp.ETag == nil {
		return "", fmt.Errorf("upload answered no ETag")
	}
	return *resp.ETag, nil
}

// mustUpload is upload without conditions that fails t on error.
func mustUpload(t *testing.T, bc *blockblob.Client, body string) azcore.ETag {
	t.Helper()
	etag, err := upload(testContext(t), bc, body, nil)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	return etag
}

// download reads bc and returns its body and ETag.
func download(t *testing.T, bc *blockblob.Client) (string, azcore.ETag) {
	t.Helper()
	resp, err := bc.DownloadStream(testContext(t), nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		t.Fatalf("download body: %v", err)
	}
	if resp.ETag == nil {
		t.Fatal("download answered no ETag")
	}
	return buf.String(), *resp.ETag
}

const (
	docA = `{"items":["a"]}`
	docB = `{"items":["a","b"]}`
)
