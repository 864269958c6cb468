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

package stores_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
)

// secrets serves Secret data from a map, as the operator's API reader would.
func secrets(data map[string]map[string]string) stores.SecretFunc {
	return func(_ context.Context, name string) (map[string][]byte, error) {
		d, ok := data[name]
		if !ok {
			return nil, fmt.Errorf("secret %q not found", name)
		}
		out := map[string][]byte{}
		for k, v := range d {
			out[k] = []byte(v)
		}
		return out, nil
	}
}

// newClient builds an ETag client for rawURL with the options spec.auth
// asks for under policy, as the operator does.
func newClient(t *testing.T, rawURL string, auth *v1alpha1.StoreAuth, sec stores.SecretFunc, policy stores.Policy, extra ...etagclient.Option) (*etagclient.Client, error) {
	t.Helper()
	opts, _, err := stores.Options(context.Background(), auth, rawURL, sec, policy)
	if err != nil {
		return nil, err
	}
	opts = append(opts, etagclient.WithBatchInterval(0), etagclient.WithTransportRetries(1, time.Millisecond, time.Millisecond))
	c, err := etagclient.New(rawURL, append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, nil
}

// raceAdds has three clients, built as newClient does, add eight IDs each
// ("r<client>-g<goroutine>") from concurrent goroutines, and waits for all.
func raceAdds(t *testing.T, rawURL string, auth *v1alpha1.StoreAuth, sec stores.SecretFunc, policy stores.Policy, extra ...etagclient.Option) {
	t.Helper()
	var wg sync.WaitGroup
	for r := range 3 {
		c, err := newClient(t, rawURL, auth, sec, policy, extra...)
		if err != nil {
			t.Fatal(err)
		}
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{fmt.Sprintf("r%d-g%d", r, g)}}); err != nil {
					t.Errorf("update: %v", err)
				}
			}()
		}
	}
	wg.Wait()
}

// TestS3 writes a list through S3 (gofakes3 behind a SigV4 verifier) with
// the credentials of a Secret: three clients race, nothing is lost; bad
// credentials, an expired session token, a wrong region and a missing
// bucket each fail with their class and write nothing.
func TestS3(t *testing.T) {
	s3 := mustS3(t)
	url := s3.URL() + "/lists/allow.json"
	if _, err := s3.PutObject("lists", "allow.json", []byte(`{"items":["keep"]}`)); err != nil {
		t.Fatal(err)
	}
	good := secrets(map[string]map[string]string{"aws": {
		stores.AWSAccessKeyID: s3fake.TestAccessKeyID, stores.AWSSecretAccessKey: s3fake.TestSecretAccessKey,
	}})
	auth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}

	raceAdds(t, url, auth, good, stores.Policy{}, etagclient.WithItemsPointer("/items"))
	body, _, err := s3.GetObject("lists", "allow.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := etagclient.ParseDocument(body, etagclient.Pointer{"items"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Items()); n != 1+3*8 || doc.Items()[0] != "keep" {
		t.Fatalf("S3 holds %d items %v, want keep and 24 more", n, doc.Items())
	}
	st := s3.Stats()
	t.Logf("S3: %d requests: GET %v, PUT %v", st.Total, st.Requests["GET"], st.Requests["PUT"])

	bad := []struct {
		name  string
		auth  *v1alpha1.StoreAuth
		sec   stores.SecretFunc
		url   string
		class error
	}{
		{"wrong secret key", auth, secrets(map[string]map[string]string{"aws": {
			stores.AWSAccessKeyID: s3fake.TestAccessKeyID, stores.AWSSecretAccessKey: "not-the-key"}}), url, etagclient.ErrUnauthorized},
		{"unknown access key", auth, secrets(map[string]map[string]string{"aws": {
			stores.AWSAccessKeyID: "NOSUCHKEY", stores.AWSSecretAccessKey: "x"}}), url, etagclient.ErrUnauthorized},
		{"wrong region", &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-3", SecretRef: &v1alpha1.SecretReference{Name: "aws"}}},
			good, url, etagclient.ErrUnauthorized},
		{"bucket does not exist", auth, good, s3.URL() + "/no-such-bucket/allow.json", etagclient.ErrNotFound},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			before := s3.Stats().Count(http.MethodPut, http.StatusOK)
			c, err := newClient(t, tc.url, tc.auth, tc.sec, stores.Policy{}, etagclient.WithItemsPointer("/items"), etagclient.WithCreateIfMissing(true))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Update(context.Background(), etagclient.Change{Add: []string{"intruder"}})
			if !errors.Is(err, tc.class) {
				t.Fatalf("err = %v, want %v", err, tc.class)
			}
			if strings.Contains(err.Error(), "not-the-key") {
				t.Fatalf("the error shows the secret: %v", err)
			}
			if after := s3.Stats().Count(http.MethodPut, http.StatusOK); after != before {
				t.Fatalf("%d writes happened", after-before)
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
	t.Run("missing secret key", func(t *testing.T) {
		_, err := newClient(t, url, auth, secrets(map[string]map[string]string{"aws": {stores.AWSAccessKeyID: "x"}}), stores.Policy{})
		if !errors.Is(err, stores.ErrSpec) || !strings.Contains(err.Error(), stores.AWSSecretAccessKey) {
			t.Fatalf("err = %v, want ErrSpec naming the missing key", err)
		}
	})
}

func mustS3(t *testing.T) *s3fake.Server {
	t.Helper()
	s3, err := s3fake.New(s3fake.WithBuckets("lists"))
	if err != nil {
		t.Fatal(err)
	}
	s3.Start()
	t.Cleanup(s3.Close)
	return s3
}

// TestS3ExpiredSessionToken: temporary credentials that expired are refused
// as unauthorized, and nothing is written.
func TestS3ExpiredSessionToken(t *testing.T) {
	creds := s3fake.DefaultCredentials()
	creds.SessionToken = "session-token-planted-0xABCD"
	s3, err := s3fake.New(s3fake.WithBuckets("lists"), s3fake.WithCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	s3.Start()
	t.Cleanup(s3.Close)
	if _, err := s3.PutObject("lists", "l.json", []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	sec := secrets(map[string]map[string]string{"aws": {
		stores.AWSAccessKeyID: creds.AccessKeyID, stores.AWSSecretAccessKey: creds.SecretAccessKey, stores.AWSSessionToken: creds.SessionToken,
	}})
	auth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
	c, err := newClient(t, s3.URL()+"/lists/l.json", auth, sec, stores.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{"a"}}); err != nil {
		t.Fatalf("with a valid session token: %v", err)
	}
	if err := s3.ExpireSessionToken(creds.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Update(context.Background(), etagclient.Change{Add: []string{"b"}})
	if !errors.Is(err, etagclient.ErrUnauthorized) {
		t.Fatalf("expired token: err = %v, want ErrUnauthorized", err)
	}
	if strings.Contains(err.Error(), "planted-0xABCD") {
		t.Fatalf("the error shows the session token: %v", err)
	}
	body, _, _ := s3.GetObject("lists", "l.json")
	if string(body) != `["a"]` {
		t.Fatalf("stored %s after the refused write", body)
	}
}

// TestGCS writes a list through the fake server's gcs profile with OAuth2
// tokens from a service-account key (a fake token endpoint that checks the
// key's signed assertions): writes are conditional on generations and
// tokens are renewed as they expire; a key the endpoint does not know is
// unauthorized.
func TestGCS(t *testing.T) {
	tokens, err := gcstoken.New(gcstoken.WithLifetime(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tokenSrv := httptest.NewServer(tokens)
	t.Cleanup(tokenSrv.Close)
	gcs, err := fakeapi.New(fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithTokenCheck(tokens.Valid))
	if err != nil {
		t.Fatal(err)
	}
	gcsSrv := httptest.NewServer(gcs)
	t.Cleanup(gcsSrv.Close)
	if _, err := gcs.Set("/lists/allow.json", []byte(`["keep"]`)); err != nil {
		t.Fatal(err)
	}
	key, err := tokens.NewServiceAccountKey(tokenSrv.URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	auth := &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}}
	sec := secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(key)}})
	// The fake token endpoint is on 127.0.0.1, not Google's.
	policy := stores.Policy{GCPTokenURIs: []string{tokenSrv.URL + gcstoken.TokenPath}}
	raceAdds(t, gcsSrv.URL+"/lists/allow.json", auth, sec, policy)
	body, _, _ := gcs.Get("/lists/allow.json")
	doc, err := etagclient.ParseDocument(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Items()); n != 25 || !slices.Contains(doc.Items(), "keep") {
		t.Fatalf("GCS holds %d items, want 25", n)
	}
	t.Logf("GCS: %d tokens issued, server %v", tokens.Stats().Issued, gcs.Stats().Requests)

	other, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := other.NewServiceAccountKey(tokenSrv.URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newClient(t, gcsSrv.URL+"/lists/allow.json", auth, secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(stranger)}}), policy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{"intruder"}}); !errors.Is(err, etagclient.ErrUnauthorized) {
		t.Fatalf("a key the token endpoint does not know: err = %v, want ErrUnauthorized", err)
	}
}

// TestAzureSharedKey writes a list to Azurite (Microsoft's Blob emulator,
// installed by make azurite) with the account key from a Secret: the SDK
// signs a short-lived SAS for the blob, three clients race, nothing is
// lost; a wrong key is unauthorized and writes nothing.
func TestAzureSharedKey(t *testing.T) {
	ctx := context.Background()
	az, err := azurite.Start(ctx, azurite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = az.Stop() })
	if err := az.CreateContainer(ctx, "lists"); err != nil {
		t.Fatal(err)
	}
	url := az.BlobURL("lists", "allow.json")
	auth := &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{SharedKey: &v1alpha1.AzureSharedKey{SecretRef: v1alpha1.SecretReference{Name: "az"}}}}
	good := secrets(map[string]map[string]string{"az": {stores.AzureAccountName: azurite.AccountName, stores.AzureAccountKey: azurite.AccountKey}})
	raceAdds(t, url, auth, good, stores.Policy{}, etagclient.WithItemsPointer("/items"), etagclient.WithCreateIfMissing(true))
	reader, err := newClient(t, url, auth, good, stores.Policy{}, etagclient.WithItemsPointer("/items"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := reader.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Items) != 24 {
		t.Fatalf("the blob holds %d items %v, want 24", len(snap.Items), snap.Items)
	}

	wrongKey := "d3Jvbmcta2V5LXBsYW50ZWQtMHg3Nzc3Nzc3Nwo="
	bad, err := newClient(t, url, auth, secrets(map[string]map[string]string{"az": {stores.AzureAccountName: azurite.AccountName, stores.AzureAccountKey: wrongKey}}), stores.Policy{},
		etagclient.WithItemsPointer("/items"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Update(ctx, etagclient.Change{Add: []string{"intruder"}})
	if !errors.Is(err, etagclient.ErrUnauthorized) {
		t.Fatalf("wrong key: err = %v, want ErrUnauthorized", err)
	}
	if strings.Contains(err.Error(), wrongKey) || strings.Contains(err.Error(), "sig=") {
		t.Fatalf("the error shows the key or a signature: %v", err)
	}
	after, err := reader.Read(ctx)
	if err != nil || len(after.Items) != 24 {
		t.Fatalf("after the refused write: %d items, %v", len(after.Items), err)
	}
}
