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
	"errors"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// TestSharedKeyUploadThenDownload pins that a SharedKey-signed upload
// answers a strong ETag of Azure's form, that a download gives the same
// body and ETag, and that every write gets a new ETag, even with the same
// content.
func TestSharedKeyUploadThenDownload(t *testing.T) {
	bc := blockBlob(newSDKClient(t), newContainer(t), "lists/a.json")

	put := mustUpload(t, bc, docA)
	if !azuriteETag.MatchString(string(put)) {
		t.Errorf("upload ETag = %s, want the form %s", put, azuriteETag)
	}
	body, got := download(t, bc)
	if body != docA || got != put {
		t.Errorf("download = %q with ETag %s, want %q with %s", body, got, docA, put)
	}
	if again := mustUpload(t, bc, docA); again == put {
		t.Errorf("a second upload of the same content kept ETag %s", put)
	}
}

// TestSharedKeyStaleIfMatchIs412ConditionNotMet pins that an upload with
// an If-Match ETag that is no longer current answers 412 ConditionNotMet
// and changes nothing, and that the current ETag is accepted.
func TestSharedKeyStaleIfMatchIs412ConditionNotMet(t *testing.T) {
	ctx := testContext(t)
	bc := blockBlob(newSDKClient(t), newContainer(t), "list.json")
	stale := mustUpload(t, bc, docA)
	current := mustUpload(t, bc, docB)

	_, err := upload(ctx, bc, `{"items":[]}`, ifMatch(stale))
	wantResponseError(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet)
	if body, etag := download(t, bc); body != docB || etag != current {
		t.Errorf("after the refused write the blob is %q (%s), want %q (%s)", body, etag, docB, current)
	}

	next, err := upload(ctx, bc, docA, ifMatch(current))
	if err != nil {
		t.Fatalf("upload with the current If-Match: %v", err)
	}
	if next == current {
		t.Errorf("a conditional write kept ETag %s", current)
	}
}

// TestSharedKeyIfNoneMatchStarIs409BlobAlreadyExists pins that a create
// (If-None-Match: *) succeeds on a missing blob and answers 409
// BlobAlreadyExists, not 412, once the blob exists, leaving it unchanged.
func TestSharedKeyIfNoneMatchStarIs409BlobAlreadyExists(t *testing.T) {
	ctx := testContext(t)
	bc := blockBlob(newSDKClient(t), newContainer(t), "new.json")
	create := &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)},
	}}

	created, err := upload(ctx, bc, docA, create)
	if err != nil {
		t.Fatalf("create of a missing blob: %v", err)
	}
	_, err = upload(ctx, bc, docB, create)
	wantResponseError(t, err, http.StatusConflict, bloberror.BlobAlreadyExists)
	if body, etag := download(t, bc); body != docA || etag != created {
		t.Errorf("after the refused create the blob is %q (%s), want %q (%s)", body, etag, docA, created)
	}
}

// ifMatch returns upload options with If-Match: etag.
func ifMatch(etag azcore.ETag) *blockblob.UploadOptions {
	return &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &etag},
	}}
}

// wantResponseError fails t unless err is the SDK's error for an answer
// with status code and x-ms-error-code.
func wantResponseError(t *testing.T, err error, status int, code bloberror.Code) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("error = %v, want an answer %d %s", err, status, code)
	}
	if re.StatusCode != status || !bloberror.HasCode(err, code) {
		t.Errorf("answer = %d %s, want %d %s", re.StatusCode, re.ErrorCode, status, code)
	}
}
