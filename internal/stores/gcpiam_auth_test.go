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
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestGCPIAMLostAnswer: a write that reached the API and committed, but
// whose answer never came back, is WriteUnknown with its cause: only a
// fresh read can tell, and it shows the write.
func TestGCPIAMLostAnswer(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	b := e.backend(t, iamProjectRN, &dropAnswers{next: closingTransport(t)})
	ans := readIAM(t, b)
	w, err := b.Write(t.Context(), docOf(t, "user:late@example.com"), false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteUnknown || !errors.Is(w.Cause, syscall.ECONNRESET) {
		t.Fatalf("Write whose answer was lost: %+v, %v, want WriteUnknown caused by the reset", w, err)
	}
	if e.fake.Commits() != 1 {
		t.Fatalf("the fake committed %d writes, want the one whose answer was lost", e.fake.Commits())
	}
	if got := readIAM(t, b).Doc.Items(); len(got) != 1 || got[0] != "user:late@example.com" {
		t.Errorf("a fresh read shows %v", got)
	}
}

// dropAnswers passes requests on, and loses the answer of every
// setIamPolicy: the connection is reset after the API answered.
type dropAnswers struct{ next http.RoundTripper }

func (d *dropAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := d.next.RoundTrip(r)
	if err != nil || !strings.HasSuffix(r.URL.Path, ":setIamPolicy") {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// TestGCPIAMTokens: tokens the API does not accept, or that cannot be
// had, are ErrUnauthorized; a token endpoint's failure is reported by its
// status only.
func TestGCPIAMTokens(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())

	t.Run("a key the API does not know", func(t *testing.T) {
		other := startIAM(t) // another token endpoint: its tokens are unknown to e's fake
		f, _, err := stores.GCPIAMBackend(t.Context(), e.binding(iamProjectRN), iamAuth, other.sec, other.policy, true)
		if err != nil {
			t.Fatal(err)
		}
		_, err = buildBackend(t, f, nil).Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrUnauthorized, "401", "UNAUTHENTICATED")
		if e.tokens.Stats().Unknown == 0 {
			t.Error("the fake never refused a token")
		}
	})
	t.Run("a token endpoint that fails", func(t *testing.T) {
		failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"` + internalSecret + `"}`))
		}))
		t.Cleanup(failing.Close)
		_, sec := gcpKey(t, failing.URL+"/token")
		f, _, err := stores.GCPIAMBackend(t.Context(), e.binding(iamProjectRN), iamAuth, sec,
			stores.Policy{GCPTokenURIs: []string{failing.URL + "/token"}}, true)
		if err != nil {
			t.Fatal(err)
		}
		before := e.fake.Stats().Total
		_, err = buildBackend(t, f, nil).Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrUnauthorized, "500")
		if strings.Contains(err.Error(), "INTERNAL-ONLY") {
			t.Errorf("the error reads back the token endpoint's body: %v", err)
		}
		if n := e.fake.Stats().Total - before; n != 0 {
			t.Errorf("the API got %d requests without a token", n)
		}
	})
}

// TestGCPIAMSpec: a spec that cannot work is an ErrSpec error before any
// request; an http endpoint needs allowInsecureHTTP.
func TestGCPIAMSpec(t *testing.T) {
	e := startIAM(t)
	valid := func() *v1alpha1.GCPIAMBinding { return e.binding(iamProjectRN) }
	for _, tc := range []struct {
		name     string
		b        *v1alpha1.GCPIAMBinding
		auth     *v1alpha1.GCPAuth
		insecure bool
		want     error
		says     string
	}{
		{"no auth", valid(), nil, true, stores.ErrSpec, "spec.gcpIAM needs spec.auth.gcp"},
		{"http without allowInsecureHTTP", valid(), iamAuth, false, stores.ErrInsecureEndpoint, "allowInsecureHTTP"},
		{"a resource of another service", &v1alpha1.GCPIAMBinding{Resource: "//compute.googleapis.com/projects/p/zones/z/instances/i", Role: iamRole}, iamAuth, true, stores.ErrSpec, "spec.gcpIAM.resource"},
		{"a bucket's object", &v1alpha1.GCPIAMBinding{Resource: iamBucketRN + "/objects/o", Role: iamRole}, iamAuth, true, stores.ErrSpec, "spec.gcpIAM.resource"},
		{"a project without an ID", &v1alpha1.GCPIAMBinding{Resource: "//cloudresourcemanager.googleapis.com/projects/", Role: iamRole}, iamAuth, true, stores.ErrSpec, "spec.gcpIAM.resource"},
		{"no role", &v1alpha1.GCPIAMBinding{Resource: iamProjectRN}, iamAuth, true, stores.ErrSpec, "role"},
		{"an endpoint with a query", &v1alpha1.GCPIAMBinding{Resource: iamProjectRN, Role: iamRole, Endpoint: e.fake.URL() + "/?key=x"}, iamAuth, true, stores.ErrSpec, "endpoint"},
		{"an endpoint that is not http", &v1alpha1.GCPIAMBinding{Resource: iamProjectRN, Role: iamRole, Endpoint: "ftp://example.com/"}, iamAuth, true, stores.ErrSpec, "endpoint"},
		{"a Secret without the key", valid(), &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "empty"}}, true, stores.ErrSpec, "credentials.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sec := func(ctx context.Context, name string) (map[string][]byte, error) {
				if name == "empty" {
					return map[string][]byte{}, nil
				}
				return e.sec(ctx, name)
			}
			f, _, err := stores.GCPIAMBackend(t.Context(), tc.b, tc.auth, sec, e.policy, tc.insecure)
			if f != nil || !errors.Is(err, tc.want) || !errors.Is(err, stores.ErrSpec) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want %v (an ErrSpec) saying %q", err, tc.want, tc.says)
			}
		})
	}
	if st := e.fake.Stats(); st.Total != 0 {
		t.Errorf("the API got %d requests", st.Total)
	}
	if st := e.tokens.Stats(); st.Issued+st.Refused != 0 {
		t.Errorf("the token endpoint got %d requests", st.Issued+st.Refused)
	}
	if _, _, err := stores.GCPIAMBackend(t.Context(), valid(), iamAuth, e.sec, stores.Policy{}, true); !errors.Is(err, stores.ErrTokenURINotAllowed) {
		t.Errorf("a key whose token_uri the policy does not allow: %v, want ErrTokenURINotAllowed", err)
	}
}

// TestGCPIAMFingerprint: the fingerprint changes with the credentials, so
// that the operator builds a new backend when the Secret changes.
func TestGCPIAMFingerprint(t *testing.T) {
	e, other := startIAM(t), startIAM(t)
	fp := func(sec stores.SecretFunc, policy stores.Policy) string {
		_, fp, err := stores.GCPIAMBackend(t.Context(), e.binding(iamProjectRN), iamAuth, sec, policy, true)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	a, again, b := fp(e.sec, e.policy), fp(e.sec, e.policy), fp(other.sec, other.policy)
	if a == "" || a != again || a == b {
		t.Errorf("fingerprints %q, %q (same key), %q (another key)", a, again, b)
	}
}

// TestGCPIAMAmbient: without a Secret, the operator's Application Default
// Credentials are used only when the policy allows ambient credentials,
// and only for the APIs' own hosts or the hosts the policy adds; refused,
// no token is fetched and the API sees nothing.
func TestGCPIAMAmbient(t *testing.T) {
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
	fake, err := iamfake.New(iamfake.WithTokenCheck(tokens.Valid)) // the ambient identity's tokens
	if err != nil {
		t.Fatal(err)
	}
	fake.Start()
	t.Cleanup(fake.Close)
	seedIAM(t, fake, iamProject, iamProjectPolicy())
	adc := &v1alpha1.GCPAuth{}
	atFake := &v1alpha1.GCPIAMBinding{Resource: iamProjectRN, Role: iamRole, Endpoint: fake.URL()}

	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := stores.GCPIAMBackend(t.Context(), atFake, adc, noSecrets, tc.policy, true)
			wantRefused(t, err)
			if n := tokenHits.n.Load(); n > 0 {
				t.Errorf("the token endpoint got %d requests", n)
			}
		})
	}
	if st := fake.Stats(); st.Total != 0 {
		t.Errorf("the API got %d requests", st.Total)
	}

	t.Run("the APIs' own endpoints", func(t *testing.T) {
		for _, rn := range []string{iamProjectRN, iamBucketRN} {
			if _, _, err := stores.GCPIAMBackend(t.Context(), &v1alpha1.GCPIAMBinding{Resource: rn, Role: iamRole}, adc, noSecrets, stores.Policy{Ambient: true}, false); err != nil {
				t.Errorf("%s at its default endpoint: %v", rn, err)
			}
		}
		_, _, err := stores.GCPIAMBackend(t.Context(), &v1alpha1.GCPIAMBinding{Resource: iamProjectRN, Role: iamRole, Endpoint: "https://iam-proxy.example.net/"},
			adc, noSecrets, stores.Policy{Ambient: true}, false)
		wantRefused(t, err)
	})

	t.Run("a host the policy adds", func(t *testing.T) {
		f, _, err := stores.GCPIAMBackend(t.Context(), atFake, adc, noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}}, true)
		if err != nil {
			t.Fatal(err)
		}
		ans := readIAM(t, buildBackend(t, f, nil))
		if len(ans.Doc.Items()) != 3 {
			t.Errorf("read %v", ans.Doc.Items())
		}
		if tokens.Stats().Issued == 0 {
			t.Error("no token was issued to the ambient identity")
		}
	})
}

// TestCheckIAMMember: a list's IDs are principals IAM grants roles to;
// the public principals, deleted principals and Cloud Storage's
// convenience values are refused, as is anything else, with ErrRejected
// and without the ID in the message.
func TestCheckIAMMember(t *testing.T) {
	e := startIAM(t)
	checker, ok := e.backend(t, iamProjectRN, nil).(etagclient.ItemChecker)
	if !ok {
		t.Fatal("the backend is not an ItemChecker")
	}
	for _, tc := range []struct {
		id   string
		ok   bool
		says string
	}{
		{"user:alice@example.com", true, ""},
		{"group:team@example.com", true, ""},
		{"serviceAccount:app@p-123.iam.gserviceaccount.com", true, ""},
		{"serviceAccount:p-123.svc.id.goog[listkeeper/manager]", true, ""},
		{"domain:example.com", true, ""},
		{"principal://iam.googleapis.com/locations/global/workforcePools/pool/subject/dana", true, ""},
		{"principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/attribute.team/x", true, ""},
		{"allUsers", false, "public"},
		{"allAuthenticatedUsers", false, "public"},
		{"deleted:user:gone@example.com?uid=1234", false, "deleted"},
		{"projectViewer:p-123", false, "every viewer"},
		{"user:alice", false, "email"},
		{"user:Alice <alice@example.com>", false, "email"},
		{"group:", false, "KIND:VALUE"},
		{"carol@example.org", false, "KIND:VALUE"},
		{"robot:r2d2@example.com", false, "kind must be"},
		{"domain:localhost", false, "domain name"},
		{"serviceAccount:p.svc.id.goog[ns]", false, "service account"},
		{"principal://evil.example/subject/x", false, "//iam.googleapis.com/"},
		{"principalSet://iam.googleapis.com/", false, "//iam.googleapis.com/"},
		{"", false, "KIND:VALUE"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			err := checker.CheckItem(tc.id)
			if direct := stores.CheckIAMMember(tc.id); (direct == nil) != (err == nil) {
				t.Errorf("CheckIAMMember(%q) = %v, but the backend's CheckItem = %v", tc.id, direct, err)
			}
			if (err == nil) != tc.ok {
				t.Fatalf("CheckItem(%q) = %v, want accepted %v", tc.id, err, tc.ok)
			}
			if tc.ok {
				return
			}
			if !errors.Is(err, etagclient.ErrRejected) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("CheckItem(%q) = %v, want ErrRejected saying %q", tc.id, err, tc.says)
			}
			// Only the two public principals, words of a fixed
			// vocabulary, may be named.
			if len(tc.id) > 8 && !strings.HasPrefix(tc.id, "all") && strings.Contains(err.Error(), tc.id) {
				t.Errorf("CheckItem(%q) repeats the ID: %v", tc.id, err)
			}
		})
	}
}
