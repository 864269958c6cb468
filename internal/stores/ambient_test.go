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
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// noSecrets is the SecretFunc of a list that names no Secret.
func noSecrets(_ context.Context, name string) (map[string][]byte, error) {
	return nil, errors.New("no secret expected, asked for " + name)
}

// readList builds a client for rawURL with the store options of auth under
// policy, as the operator does, and reads the list once. Options errors
// come back as they are.
func readList(t *testing.T, auth *v1alpha1.StoreAuth, rawURL string, sec stores.SecretFunc, policy stores.Policy, extra ...etagclient.Option) error {
	t.Helper()
	opts, _, err := stores.Options(context.Background(), auth, rawURL, sec, policy)
	if err != nil {
		return err
	}
	opts = append(opts, etagclient.WithBatchInterval(0), etagclient.WithTransportRetries(0, time.Millisecond, time.Millisecond),
		etagclient.WithRequestTimeout(10*time.Second))
	c, err := etagclient.New(rawURL, append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Read(context.Background())
	return err
}

// refusals are the two policies under which a list that points at a host
// of its own choosing must not get the operator's identity: ambient
// credentials off, and on but for the providers' own endpoints only.
var refusals = []struct {
	name   string
	policy stores.Policy
}{
	{"ambient credentials not allowed", stores.Policy{}},
	{"allowed, but not to this host", stores.Policy{Ambient: true, AmbientHosts: []string{"storage.example.net", "10.0.0.1"}}},
}

// wantRefused checks that a list was refused for ambient credentials, as a
// class of its own and not as an invalid spec.
func wantRefused(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, stores.ErrAmbientNotAllowed) || errors.Is(err, stores.ErrSpec) {
		t.Errorf("err = %v, want ErrAmbientNotAllowed (and not ErrSpec)", err)
	}
	t.Logf("refused: %v", err)
}

// TestAmbientAWS: the AWS default chain (IRSA web identity here, against a
// fake STS) signs only for S3's endpoints of the region and the hosts the
// policy adds. Refused, the chain is not even loaded: STS sees nothing,
// and the list server gets no signature.
func TestAmbientAWS(t *testing.T) {
	const keyID, secret, session = "ASIAAMBIENTFAKE", "ambient-secret-key", "ambient-session-token-7f3e"
	sts := &hits{answer: fakeSTS(keyID, secret, session)}
	stsSrv := serve(t, sts)
	webIdentity(t, stsSrv.URL)
	auth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion}}

	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			rec := startRecorder(t)
			before := sts.n.Load()
			err := readList(t, auth, rec.srv.URL+"/lists/l.json", noSecrets, tc.policy)
			noCredential(t, rec)
			if n := sts.n.Load() - before; n > 0 {
				t.Errorf("STS got %d requests: the default chain was used", n)
			}
			wantRefused(t, err)
		})
	}

	t.Run("a host the policy adds", func(t *testing.T) {
		s3, err := s3fake.New(s3fake.WithBuckets("lists"), s3fake.WithCredentials(aws.Credentials{
			AccessKeyID: keyID, SecretAccessKey: secret, SessionToken: session}))
		if err != nil {
			t.Fatal(err)
		}
		s3.Start()
		t.Cleanup(s3.Close)
		if _, err := s3.PutObject("lists", "l.json", []byte(`["a"]`)); err != nil {
			t.Fatal(err)
		}
		err = readList(t, auth, s3.URL()+"/lists/l.json", noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}})
		if err != nil {
			t.Fatalf("read with the operator's identity from an allowed host: %v", err)
		}
		if sts.n.Load() == 0 {
			t.Fatal("STS was never asked: the read was not signed with the ambient identity")
		}
	})
}

// TestAmbientGCP: Application Default Credentials (a key file named by
// GOOGLE_APPLICATION_CREDENTIALS, whose token endpoint is a fake on
// 127.0.0.1) go only to Cloud Storage and the hosts the policy adds.
// Refused, no token is fetched.
func TestAmbientGCP(t *testing.T) {
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenHits := &hits{answer: tokens.ServeHTTP}
	tokenSrv := serve(t, tokenHits)
	key, err := tokens.NewServiceAccountKey(tokenSrv.URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", writeFile(t, "adc.json", key))
	auth := &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}

	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			rec := startRecorder(t)
			before := tokenHits.n.Load()
			err := readList(t, auth, rec.srv.URL+"/lists/l.json", noSecrets, tc.policy)
			noCredential(t, rec)
			if n := tokenHits.n.Load() - before; n > 0 {
				t.Errorf("the token endpoint got %d requests: a token was fetched", n)
			}
			wantRefused(t, err)
		})
	}

	t.Run("a host the policy adds", func(t *testing.T) {
		gcs, err := fakeapi.New(fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithTokenCheck(tokens.Valid))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gcs.Set("/lists/l.json", []byte(`["a"]`)); err != nil {
			t.Fatal(err)
		}
		gcsSrv := serve(t, gcs)
		err = readList(t, auth, gcsSrv.URL+"/lists/l.json", noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}})
		if err != nil {
			t.Fatalf("read with the operator's identity from an allowed host: %v", err)
		}
		if tokens.Stats().Issued == 0 {
			t.Fatal("no token was issued")
		}
	})
}

// entraFake is a TLS server standing in for Microsoft Entra ID that counts
// the connections it gets: a refused list must not even dial it.
type entraFake struct {
	srv   *httptest.Server
	conns *hits
}

func startEntraFake(t *testing.T, h http.Handler) *entraFake {
	t.Helper()
	e := &entraFake{conns: &hits{}}
	e.srv = httptest.NewUnstartedServer(h)
	e.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			e.conns.n.Add(1)
		}
	}
	e.srv.StartTLS()
	t.Cleanup(e.srv.Close)
	return e
}

// azureWorkloadIdentity sets the environment AKS injects into a pod with
// workload identity, with authority the Entra endpoint.
func azureWorkloadIdentity(t *testing.T, authority string) {
	t.Helper()
	t.Setenv("AZURE_CLIENT_ID", "00000000-0000-0000-0000-00000000c11d")
	t.Setenv("AZURE_TENANT_ID", "00000000-0000-0000-0000-0000000000aa")
	t.Setenv("AZURE_FEDERATED_TOKEN_FILE", writeFile(t, "azure-token", []byte("eyJhbGciOiJSUzI1NiJ9.projected-azure-token.sig")))
	t.Setenv("AZURE_AUTHORITY_HOST", authority)
}

// TestAmbientAzureRefused: Entra workload identity is refused for a list
// that may not use it, or whose host is not a Blob endpoint; Entra is not
// dialled and the list server gets no token.
func TestAmbientAzureRefused(t *testing.T) {
	entra := startEntraFake(t, http.NotFoundHandler())
	azureWorkloadIdentity(t, entra.srv.URL)
	auth := &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{WorkloadIdentity: &v1alpha1.AzureWorkloadIdentity{}}}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			rec := startRecorder(t)
			before := entra.conns.n.Load()
			err := readList(t, auth, rec.srv.URL+"/account/lists/l.json", noSecrets, tc.policy)
			noCredential(t, rec)
			if n := entra.conns.n.Load() - before; n > 0 {
				t.Errorf("Entra got %d connections: a token was asked for", n)
			}
			wantRefused(t, err)
		})
	}
}

// TestAmbientNotForSecrets: a list with a Secret of its own is not ambient
// and goes to any host, whatever the policy.
func TestAmbientNotForSecrets(t *testing.T) {
	s3 := mustS3(t)
	if _, err := s3.PutObject("lists", "l.json", []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	auth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
	sec := secrets(map[string]map[string]string{"aws": {stores.AWSAccessKeyID: s3fake.TestAccessKeyID, stores.AWSSecretAccessKey: s3fake.TestSecretAccessKey}})
	if err := readList(t, auth, s3.URL()+"/lists/l.json", sec, stores.Policy{}); err != nil {
		t.Fatalf("a list with its own Secret: %v", err)
	}
}

// TestAmbientEveryRequest: the host is checked again for every request,
// as sent: a signer built for an allowed host signs nothing for another
// one, and fetches no token for it.
func TestAmbientEveryRequest(t *testing.T) {
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenHits := &hits{answer: tokens.ServeHTTP}
	key, err := tokens.NewServiceAccountKey(serve(t, tokenHits).URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", writeFile(t, "adc.json", key))
	rec := startRecorder(t)
	policy := stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}}
	opts, _, err := stores.Options(t.Context(), &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}, rec.srv.URL+"/lists/l.json", noSecrets, policy)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(rec.srv.URL, "127.0.0.1", "localhost", 1) + "/lists/l.json"
	c, err := etagclient.New(other, append(opts, etagclient.WithTransportRetries(0, time.Millisecond, time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Read(t.Context())
	if !errors.Is(err, stores.ErrAmbientNotAllowed) || !errors.Is(err, etagclient.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrAmbientNotAllowed as ErrUnauthorized", err)
	}
	if _, n := rec.credentials(); n > 0 {
		t.Errorf("the other host got %d requests", n)
	}
	if n := tokenHits.n.Load(); n > 0 {
		t.Errorf("the token endpoint got %d requests", n)
	}
}

// TestAmbientWAFv2: a WAFv2 list without a Secret signs with the AWS
// default chain (IRSA web identity here, against a fake STS) only for AWS
// WAF's own endpoints of its region over https and the hosts the policy
// adds. Refused, the chain is not even loaded: STS sees nothing, and the
// endpoint gets no request.
func TestAmbientWAFv2(t *testing.T) {
	const keyID, secret, session = "ASIAAMBIENTWAFFAKE", "ambient-waf-secret-key", "ambient-waf-session-token-4c1d"
	sts := &hits{answer: fakeSTS(keyID, secret, session)}
	stsSrv := serve(t, sts)
	webIdentity(t, stsSrv.URL)
	stores.SetWAFv2RetryWait(t, time.Millisecond, time.Millisecond)
	auth := &v1alpha1.AWSAuth{Region: "us-east-1"}
	spec := func(endpoint string) *v1alpha1.WAFv2IPSet {
		return &v1alpha1.WAFv2IPSet{Region: "us-east-1", Scope: v1alpha1.WAFv2ScopeRegional, Name: "allow",
			ID: "00000000-0000-4000-8000-000000000000", Endpoint: endpoint}
	}

	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			rec := startRecorder(t)
			before := sts.n.Load()
			_, _, err := stores.WAFv2Backend(t.Context(), spec(rec.srv.URL), auth, noSecrets, tc.policy, true)
			wantRefused(t, err)
			if _, n := rec.credentials(); n > 0 {
				t.Errorf("the endpoint got %d requests", n)
			}
			if n := sts.n.Load() - before; n > 0 {
				t.Errorf("STS got %d requests: the default chain was used", n)
			}
		})
	}

	t.Run("AWS WAF's own endpoints, over https only", func(t *testing.T) {
		allowed := stores.Policy{Ambient: true}
		for _, endpoint := range []string{"", "https://wafv2.us-east-1.amazonaws.com", "https://wafv2-fips.us-east-1.amazonaws.com/"} {
			if _, _, err := stores.WAFv2Backend(t.Context(), spec(endpoint), auth, noSecrets, allowed, true); err != nil {
				t.Errorf("endpoint %q: %v", endpoint, err)
			}
		}
		for _, endpoint := range []string{"http://wafv2.us-east-1.amazonaws.com", "https://wafv2.eu-west-1.amazonaws.com"} {
			_, _, err := stores.WAFv2Backend(t.Context(), spec(endpoint), auth, noSecrets, allowed, true)
			wantRefused(t, err)
		}
	})

	t.Run("a host the policy adds", func(t *testing.T) {
		waf, err := wafv2fake.New(wafv2fake.WithCredentials(aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret, SessionToken: session}))
		if err != nil {
			t.Fatal(err)
		}
		waf.Start()
		t.Cleanup(waf.Close)
		id, err := waf.CreateIPSet(wafv2fake.ScopeRegional, "allow", "", wafv2fake.IPv4, []string{"192.0.2.0/24"})
		if err != nil {
			t.Fatal(err)
		}
		s := spec(waf.URL())
		s.ID = id
		factory, _, err := stores.WAFv2Backend(t.Context(), s, auth, noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}}, true)
		if err != nil {
			t.Fatal(err)
		}
		b, err := factory(wafEnv(t, 0))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if _, err := b.Read(t.Context(), etagclient.Version{}); err != nil {
			t.Fatalf("read with the operator's identity from an allowed host: %v", err)
		}
		if sts.n.Load() == 0 {
			t.Fatal("STS was never asked: the read was not signed with the ambient identity")
		}
	})

	t.Run("every request, as sent", func(t *testing.T) {
		// An allowed host that redirects to another: the request to the
		// other host is refused before it is signed or sent.
		other := startRecorder(t)
		redirect := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, strings.Replace(other.srv.URL, "127.0.0.1", "localhost", 1)+"/", http.StatusFound)
		}))
		factory, _, err := stores.WAFv2Backend(t.Context(), spec(redirect.URL), auth, noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}}, true)
		if err != nil {
			t.Fatal(err)
		}
		b, err := factory(wafEnv(t, 2))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		_, err = b.Read(t.Context(), etagclient.Version{})
		if !errors.Is(err, stores.ErrAmbientNotAllowed) || !errors.Is(err, etagclient.ErrUnauthorized) {
			t.Errorf("err = %v, want ErrAmbientNotAllowed as ErrUnauthorized", err)
		}
		if _, n := other.credentials(); n > 0 {
			t.Errorf("the other host got %d requests", n)
		}
	})
}
