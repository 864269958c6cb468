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

package backends

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// TestFor: each list goes to the kind that keeps it, a list behind a URL
// first by its spec.auth and then by what its URL alone says.
func TestFor(t *testing.T) {
	t.Parallel()
	aws := func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-1"}}
	}
	gcp := func(s *v1alpha1.ExternalListSpec) { s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}} }
	azure := func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{WorkloadIdentity: &v1alpha1.AzureWorkloadIdentity{}}}
	}
	fromSecret := func(s *v1alpha1.ExternalListSpec) {
		s.URL = ""
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "u", Key: "url"}}
	}
	unknown := func(l backend.List) backend.List { l.RawURL, l.URL = "", nil; return l }
	tests := []struct {
		name string
		l    backend.List
		want string
	}{
		{"a plain document", atURL("https://lists.example.com/a"), "http"},
		{"S3 with spec.auth.aws", atURL("https://b.s3.eu-west-1.amazonaws.com/a", aws), "s3"},
		{"S3 presigned", atURL("https://b.s3.eu-west-1.amazonaws.com/a?X-Amz-Signature=x"), "s3"},
		{"MinIO with spec.auth.aws", atURL("http://127.0.0.1:9000/b/a", aws), "s3"},
		{"Cloud Storage's endpoint with SigV4 (its HMAC keys)", atURL("https://storage.googleapis.com/b/a", aws), "s3"},
		{"Cloud Storage with spec.auth.gcp", atURL("https://storage.googleapis.com/b/a", gcp), "gcs"},
		{"Cloud Storage signed", atURL("https://b.storage.googleapis.com/a?X-Goog-Signature=x"), "gcs"},
		{"Blob Storage with workload identity", atURL("https://acct.blob.core.windows.net/c/a", azure), "azureblob"},
		{"a SAS URL at Azurite", atURL("http://127.0.0.1:10000/devstoreaccount1/c/a?sv=2021-12-02&sig=x"), "azureblob"},
		{"a SAS on S3's endpoint is Azure's", atURL("https://b.s3.eu-west-1.amazonaws.com/a?sv=1&sig=x"), "azureblob"},
		{"a URL from a Secret, not read yet", unknown(atURL("", fromSecret)), "http"},
		{"a URL from a Secret with spec.auth.azure, not read yet", unknown(atURL("", fromSecret, azure)), "azureblob"},
		{"an IP set", backend.List{Spec: &v1alpha1.ExternalListSpec{WAFv2: &v1alpha1.WAFv2IPSet{}, Auth: &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{}}}}, "wafv2"},
		{"an IAM role", backend.List{Spec: &v1alpha1.ExternalListSpec{GCPIAM: &v1alpha1.GCPIAMBinding{}, Auth: &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}}}, "gcpiam"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := For(tt.l).Name(); got != tt.want {
				t.Errorf("For = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestKindsAreNamedOnce: every kind of the registry has a name of its own,
// and the last takes every list, so For never returns nil.
func TestKindsAreNamedOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range Kinds {
		if seen[k.Name()] {
			t.Errorf("two kinds are named %q", k.Name())
		}
		seen[k.Name()] = true
	}
	if last := Kinds[len(Kinds)-1]; !last.Matches(backend.List{Spec: &v1alpha1.ExternalListSpec{}}) {
		t.Errorf("the last kind, %s, does not take every list", last.Name())
	}
}

// toyKind is a kind of backend written the way a new one is: it
// implements backend.Kind (and, for its item rule,
// etagclient.ItemNormalizer) and builds an etagclient.Backend. It lives in
// this test instead of a package of its own, and borrows spec.url
// ("toy:NAME") for the field of its own that a real kind adds to the CRD.
// Its lists live in toyStore, its IDs are lower case.
type toyKind struct{ store *toyStore }

var (
	_ backend.Kind              = toyKind{}
	_ etagclient.ItemNormalizer = toyKind{}
)

func (toyKind) Name() string    { return "toy" }
func (toyKind) BehindURL() bool { return false }

func (toyKind) Matches(l backend.List) bool { return strings.HasPrefix(l.Spec.URL, "toy:") }

func (toyKind) Locate(l backend.List) backend.Location {
	name := strings.TrimPrefix(l.Spec.URL, "toy:")
	shown := "toy://" + name
	return backend.Location{Shown: shown, Client: shown, Document: "toy:" + strings.ToLower(name),
		Endpoint: &url.URL{Scheme: "https", Host: "toy.example", Path: "/"}, Scope: backend.CanonicalPointer(l.Spec.ItemsPointer)}
}

func (k toyKind) Build(_ context.Context, l backend.List, _ backend.Deps) (backend.Built, error) {
	name := strings.ToLower(strings.TrimPrefix(l.Spec.URL, "toy:"))
	if name == "" {
		return backend.Built{}, backend.Invalid("a toy list needs a name")
	}
	factory := func(etagclient.BackendEnv) (etagclient.Backend, error) {
		return &toyBackend{store: k.store, name: name}, nil
	}
	return backend.Built{Options: []etagclient.Option{etagclient.WithBackend(factory)}}, nil
}

func (toyKind) NormalizeItem(id string) string { return strings.ToLower(id) }

// toyStore keeps toy lists in memory, each with a version that every
// write moves on.
type toyStore struct {
	mu      sync.Mutex
	lists   map[string][]string
	version map[string]int
	writes  int
}

// toyBackend is the engine's seam to one list of a toyStore.
type toyBackend struct {
	store *toyStore
	name  string
}

func (b *toyBackend) Read(context.Context, etagclient.Version) (etagclient.ReadAnswer, error) {
	b.store.mu.Lock()
	defer b.store.mu.Unlock()
	items, ok := b.store.lists[b.name]
	if !ok {
		return etagclient.ReadAnswer{Absent: true}, nil
	}
	doc, err := etagclient.NewDocument(nil)
	if err == nil {
		doc, err = doc.WithItems(items)
	}
	if err != nil {
		return etagclient.ReadAnswer{}, err
	}
	return etagclient.ReadAnswer{Doc: doc, Version: etagclient.Version{Tag: fmt.Sprint(b.store.version[b.name])}}, nil
}

func (b *toyBackend) Write(_ context.Context, next *etagclient.Document, _ bool, base etagclient.Version) (etagclient.WriteAnswer, error) {
	b.store.mu.Lock()
	defer b.store.mu.Unlock()
	if base.Tag != fmt.Sprint(b.store.version[b.name]) {
		return etagclient.WriteAnswer{Outcome: etagclient.WriteLost}, nil
	}
	b.store.lists[b.name] = slices.Clone(next.Items())
	b.store.version[b.name]++
	b.store.writes++
	return etagclient.WriteAnswer{Outcome: etagclient.WriteCommitted, Version: etagclient.Version{Tag: fmt.Sprint(b.store.version[b.name])}}, nil
}

func (b *toyBackend) Close() {}

// TestNewKindIsOnePackageAndOneLine: a kind the registry has never seen is
// added with one line, and gets what every kind gets without another
// change anywhere: it is picked for its lists, its endpoint passes the
// shared checks (--allowed-hosts), its document and claim have identities,
// its item rule reaches the caller, and the engine keeps its list through
// its backend, read-modify-write on its version.
func TestNewKindIsOnePackageAndOneLine(t *testing.T) {
	t.Parallel()
	store := &toyStore{lists: map[string][]string{"allow": {"a"}}, version: map[string]int{"allow": 7}}
	reg := append(Registry{toyKind{store: store}}, Kinds...) // the one line

	spec := &v1alpha1.ExternalListSpec{URL: "toy:Allow"}
	l := backend.List{Spec: spec}
	k := reg.For(l)
	if k == nil || k.Name() != "toy" {
		t.Fatalf("For = %v, want the toy kind", k)
	}
	if other := reg.For(atURL("https://lists.example.com/a")); other.Name() != "http" {
		t.Errorf("a plain document went to %s", other.Name())
	}
	loc := k.Locate(l)
	if err := Check(k, l, loc, netfence.MustParseAllowlist("toy.example")); err != nil {
		t.Errorf("Check with the toy's host allowed: %v", err)
	}
	var refusal *backend.Refusal
	if err := Check(k, l, loc, netfence.MustParseAllowlist("lists.example.com")); !errors.As(err, &refusal) || refusal.Reason != v1alpha1.ReasonHostNotAllowed {
		t.Errorf("Check with another host allowed = %v, want HostNotAllowed", err)
	}
	identity, known := reg.Identity(spec)
	if !known || identity != "toy:allow" {
		t.Errorf("Identity = %q, %t", identity, known)
	}
	if again, _ := reg.Identity(&v1alpha1.ExternalListSpec{URL: "toy:ALLOW"}); again != identity {
		t.Errorf("two spellings of one toy list are two documents: %q, %q", identity, again)
	}
	if key := reg.ClaimKey("doc", spec); key != "doc\x00" {
		t.Errorf("ClaimKey = %q", key)
	}
	n, ok := k.(etagclient.ItemNormalizer)
	if !ok || n.NormalizeItem("B") != "b" {
		t.Errorf("the toy's item rule does not reach the caller")
	}

	built, err := k.Build(context.Background(), l, backend.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := etagclient.New(loc.Client, append(built.Options, etagclient.WithShownURL(loc.Shown), etagclient.WithBatchInterval(0))...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Another writer moves the list on after the engine's first read: the
	// engine's write is lost, and it reads again and writes on the new
	// version.
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	store.lists["allow"] = append(store.lists["allow"], "z")
	store.version["allow"]++
	store.mu.Unlock()
	res, err := c.Update(context.Background(), etagclient.Change{Add: []string{"b", "c"}, Remove: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Written || res.Items != 3 {
		t.Errorf("Update = %+v, want written, 3 items", res)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if got := store.lists["allow"]; !slices.Equal(got, []string{"z", "b", "c"}) || store.writes != 1 {
		t.Errorf("the toy list is %v after %d writes, want [z b c] after 1", got, store.writes)
	}
}
