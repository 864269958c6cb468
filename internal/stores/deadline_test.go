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
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
)

// requestTimeout is the clients' request timeout in these tests; a read
// must end within requestTimeout plus grace, and a test gives up waiting
// at stuck.
const (
	requestTimeout = time.Second
	grace          = 1500 * time.Millisecond
	stuck          = 5 * time.Second
)

// readWithin reads rawURL once with a client whose request timeout is
// requestTimeout, and fails the test unless the read ends in time with an
// error. h is released when the read is stuck, so that the test ends.
func readWithin(t *testing.T, h *hang, auth *v1alpha1.StoreAuth, rawURL string, sec stores.SecretFunc, policy stores.Policy) {
	t.Helper()
	opts, _, err := stores.Options(context.Background(), auth, rawURL, sec, policy)
	if err != nil {
		t.Fatal(err)
	}
	opts = append(opts, etagclient.WithBatchInterval(0), etagclient.WithTransportRetries(0, time.Millisecond, time.Millisecond),
		etagclient.WithRequestTimeout(requestTimeout))
	c, err := etagclient.New(rawURL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(stuck):
		t.Errorf("with a %s request timeout, the read is still blocked after %s", requestTimeout, stuck)
		h.release()
		err = <-done
	}
	took := time.Since(start)
	if h.entered.Load() == 0 {
		t.Errorf("the token endpoint was never asked")
	}
	if err == nil {
		t.Fatalf("the read succeeded without a token")
	}
	if took > requestTimeout+grace {
		t.Errorf("the read took %s, want at most %s", took.Round(time.Millisecond), requestTimeout+grace)
	}
	// The fetch ends with the request that wanted it: nothing keeps
	// waiting on the endpoint in the background.
	for deadline := time.Now().Add(grace); h.open() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := h.open(); n > 0 {
		t.Errorf("%d token requests still open %s after the read gave up", n, grace)
	}
	t.Logf("read ended after %s: %v", took.Round(time.Millisecond), err)
}

// TestDeadlineGCPKey: a token endpoint that never answers holds a read no
// longer than the request's timeout (service-account key from a Secret).
func TestDeadlineGCPKey(t *testing.T) {
	h := newHang(t)
	tokenURI := serve(t, h).URL + "/token"
	_, sec := gcpKey(t, tokenURI)
	rec := startRecorder(t)
	readWithin(t, h, gcpSecretAuth, rec.srv.URL+"/lists/l.json", sec, stores.Policy{GCPTokenURIs: []string{tokenURI}})
	noCredential(t, rec)
}

// TestDeadlineGCPDefault: the same with Application Default Credentials.
func TestDeadlineGCPDefault(t *testing.T) {
	h := newHang(t)
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	key, err := tokens.NewServiceAccountKey(serve(t, h).URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", writeFile(t, "adc.json", key))
	rec := startRecorder(t)
	readWithin(t, h, &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}, rec.srv.URL+"/lists/l.json", noSecrets,
		stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}})
	noCredential(t, rec)
}

// TestDeadlineAWSWebIdentity: an STS that never answers holds a read no
// longer than the request's timeout (IRSA web identity).
func TestDeadlineAWSWebIdentity(t *testing.T) {
	h := newHang(t)
	webIdentity(t, serve(t, h).URL)
	rec := startRecorder(t)
	readWithin(t, h, &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion}}, rec.srv.URL+"/lists/l.json", noSecrets,
		stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}})
	noCredential(t, rec)
}

// TestGCPTokenReused: a valid token is fetched once and reused by later
// requests.
func TestGCPTokenReused(t *testing.T) {
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenURI := serve(t, tokens).URL + gcstoken.TokenPath
	key, err := tokens.NewServiceAccountKey(tokenURI)
	if err != nil {
		t.Fatal(err)
	}
	sec := secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(key)}})
	rec := startRecorder(t)
	opts, _, err := stores.Options(context.Background(), gcpSecretAuth, rec.srv.URL+"/lists/l.json", sec, stores.Policy{GCPTokenURIs: []string{tokenURI}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := etagclient.New(rec.srv.URL+"/lists/l.json", append(opts, etagclient.WithBatchInterval(0))...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if _, err := c.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got, n := rec.credentials(); n != 3 || len(got) != 3 {
		t.Fatalf("%d requests carried %d credentials, want 3 and 3", n, len(got))
	}
	if n := tokens.Stats().Issued; n != 1 {
		t.Fatalf("%d tokens issued for three reads, want 1", n)
	}
}
