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

package controller

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
)

// s3Items returns the IDs of an S3 object.
func s3Items(t *testing.T, s3 *s3fake.Server, bucket, key string) []string {
	t.Helper()
	body, _, err := s3.GetObject(bucket, key)
	if err != nil {
		return nil
	}
	doc, err := etagclient.ParseDocument(body, etagclient.Pointer{"items"})
	if err != nil {
		t.Fatalf("the S3 object is not a list: %v", err)
	}
	return doc.Items()
}

// TestS3ThreeReplicas: three member replicas keep 300 entries on a list in
// S3 (gofakes3 behind a SigV4 verifier, credentials from a Secret, a
// document the first write creates). Nothing is lost; the request counts
// per replica are reported. Then the Secret gets a wrong key: the list and
// a new entry say Unauthorized, and nothing is written.
func TestS3ThreeReplicas(t *testing.T) {
	const entries = 300
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	s3, err := s3fake.New(s3fake.WithBuckets("lists"))
	if err != nil {
		t.Fatal(err)
	}
	s3.Start()
	t.Cleanup(s3.Close)

	reps := make([]*replica, 3)
	for i := range reps {
		reps[i] = startManager(t, managerConfig{namespace: ns, member: true, maxConcurrent: 8})
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "aws", Namespace: ns},
		StringData: map[string]string{stores.AWSAccessKeyID: s3fake.TestAccessKeyID, stores.AWSSecretAccessKey: s3fake.TestSecretAccessKey},
	}
	create(t, secret)
	xl := newExternalList(ns, "s3", s3.URL()+"/lists/allow.json", func(s *v1alpha1.ExternalListSpec) {
		s.ItemsPointer = "/items"
		s.CreateIfMissing = true
		s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
		// A loopback test server: plain http with credentials is opted in.
		s.AllowInsecureHTTP = true
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitSplit(t, reps)
	s3.ResetRequests()

	ids := make([]string, entries)
	for i := range ids {
		ids[i] = fmt.Sprintf("tenant-%03d", i)
	}
	parallel(t, entries, func(i int) error { return k8sClient.Create(ctx, newListEntry(ns, ids[i], "s3", ids[i])) })
	start := time.Now()
	eventually(t, 3*time.Minute, "every ID in S3", func() error {
		if n := len(missing(ids, s3Items(t, s3, "lists", "allow.json"))); n > 0 {
			return fmt.Errorf("%d missing", n)
		}
		return nil
	})
	created := time.Since(start)
	parallel(t, entries, func(i int) error {
		return client.IgnoreNotFound(k8sClient.Delete(ctx, newListEntry(ns, ids[i], "s3", ids[i])))
	})
	eventually(t, 3*time.Minute, "the S3 list empty again", func() error {
		if items := s3Items(t, s3, "lists", "allow.json"); len(items) > 0 {
			return fmt.Errorf("%d left", len(items))
		}
		return nil
	})
	st := s3.Stats()
	var perReplica []string
	for i, r := range reps {
		perReplica = append(perReplica, fmt.Sprintf("replica %d: GET=%d PUT=%d 412=%d", i, r.counters.Gets.Load(), r.counters.Puts.Load(), r.counters.PreconditionFailed.Load()))
	}
	t.Logf("S3, 3 replicas, %d entries created (all in S3 after %s) and deleted: %d requests (%.3f per change): GET %v, PUT %v; %s",
		entries, created.Round(time.Millisecond), st.Total, float64(st.Total)/(2*entries), st.Requests["GET"], st.Requests["PUT"], strings.Join(perReplica, "; "))
	if n := st.CountCode(http.StatusForbidden); n != 0 {
		t.Errorf("%d requests were refused with the right credentials", n)
	}

	// A wrong key: Unauthorized on the list and on a new entry, no write.
	secret.StringData = map[string]string{stores.AWSAccessKeyID: s3fake.TestAccessKeyID, stores.AWSSecretAccessKey: "wrong-secret-planted-0x5EC2E7"}
	if err := k8sClient.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	puts := s3.Stats().Count(http.MethodPut, http.StatusOK)
	// The list's check sees the rotated Secret first (its watch queues
	// it); an entry created after that uses the new key too.
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)
	e := newListEntry(ns, "late", "s3", "late")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)
	if after := s3.Stats().Count(http.MethodPut, http.StatusOK); after != puts {
		t.Errorf("%d writes with a wrong key", after-puts)
	}
}

// parallel runs fn(0..n-1) on 16 goroutines (concurrent API clients) and
// fails on the first error.
func parallel(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// startAzurite starts Azurite for the test, with a container "lists".
func startAzurite(ctx context.Context, t *testing.T) *azurite.Azurite {
	t.Helper()
	az, err := azurite.Start(ctx, azurite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = az.Stop() })
	if err := az.CreateContainer(ctx, "lists"); err != nil {
		t.Fatal(err)
	}
	return az
}

// TestAzureThreeReplicas: three member replicas keep 300 entries on a blob
// in Azurite (Microsoft's emulator), signing with the account key from a
// Secret. Nothing is lost; the request counts per replica are reported.
func TestAzureThreeReplicas(t *testing.T) {
	const entries = 300
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	az := startAzurite(ctx, t)
	reps := make([]*replica, 3)
	for i := range reps {
		reps[i] = startManager(t, managerConfig{namespace: ns, member: true, maxConcurrent: 8})
	}
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: ns},
		StringData: map[string]string{stores.AzureAccountName: azurite.AccountName, stores.AzureAccountKey: azurite.AccountKey},
	})
	xl := newExternalList(ns, "blob", az.BlobURL("lists", "allow.json"), func(s *v1alpha1.ExternalListSpec) {
		s.ItemsPointer = "/items"
		s.CreateIfMissing = true
		s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{SharedKey: &v1alpha1.AzureSharedKey{SecretRef: v1alpha1.SecretReference{Name: "azure"}}}}
		// A loopback test server: plain http with credentials is opted in.
		s.AllowInsecureHTTP = true
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitSplit(t, reps)
	for _, r := range reps {
		r.counters.Requests.Store(0)
	}
	reader, err := etagclient.New(az.BlobURL("lists", "allow.json"), blobReader(t, az.BlobURL("lists", "allow.json"))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reader.Close)
	items := func() []string {
		snap, err := reader.Read(ctx)
		if err != nil {
			return nil
		}
		return snap.Items
	}

	ids := make([]string, entries)
	for i := range ids {
		ids[i] = fmt.Sprintf("tenant-%03d", i)
	}
	parallel(t, entries, func(i int) error { return k8sClient.Create(ctx, newListEntry(ns, ids[i], "blob", ids[i])) })
	eventually(t, 3*time.Minute, "every ID in the blob", func() error {
		if n := len(missing(ids, items())); n > 0 {
			return fmt.Errorf("%d missing", n)
		}
		return nil
	})
	parallel(t, entries, func(i int) error {
		return client.IgnoreNotFound(k8sClient.Delete(ctx, newListEntry(ns, ids[i], "blob", ids[i])))
	})
	eventually(t, 3*time.Minute, "the blob's list empty again", func() error {
		if left := items(); len(left) > 0 {
			return fmt.Errorf("%d left", len(left))
		}
		return nil
	})
	var total int64
	var perReplica []string
	for i, r := range reps {
		total += r.counters.Requests.Load()
		perReplica = append(perReplica, fmt.Sprintf("replica %d: GET=%d PUT=%d 412=%d", i, r.counters.Gets.Load(), r.counters.Puts.Load(), r.counters.PreconditionFailed.Load()))
	}
	t.Logf("Azure (Azurite), 3 replicas, %d entries created and deleted: %d requests (%.3f per change); %s",
		entries, total, float64(total)/(2*entries), strings.Join(perReplica, "; "))
}

// blobReader is a client that reads the Azurite blob with the account key,
// for the test's own checks.
func blobReader(t *testing.T, blobURL string) []etagclient.Option {
	t.Helper()
	opts, _, err := stores.Options(context.Background(), &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{
		SharedKey: &v1alpha1.AzureSharedKey{SecretRef: v1alpha1.SecretReference{Name: "azure"}}}}, blobURL,
		func(context.Context, string) (map[string][]byte, error) {
			return map[string][]byte{stores.AzureAccountName: []byte(azurite.AccountName), stores.AzureAccountKey: []byte(azurite.AccountKey)}, nil
		}, stores.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return append(opts, etagclient.WithItemsPointer("/items"))
}

// TestS3FailuresAsConditions: each way S3 refuses the operator shows as a
// clear reason on the ExternalList and on its entry, and nothing is
// written: a wrong region and an expired session token are Unauthorized, a
// bucket that does not exist is ListNotFound.
func TestS3FailuresAsConditions(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	creds := s3fake.DefaultCredentials()
	creds.SessionToken = "session-planted-0x5E5510"
	s3, err := s3fake.New(s3fake.WithBuckets("lists"), s3fake.WithCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	s3.Start()
	t.Cleanup(s3.Close)
	if _, err := s3.PutObject("lists", "allow.json", []byte(`{"items":[]}`)); err != nil {
		t.Fatal(err)
	}
	rep := startManager(t, managerConfig{namespace: ns, devLog: true})
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "aws", Namespace: ns},
		StringData: map[string]string{stores.AWSAccessKeyID: creds.AccessKeyID, stores.AWSSecretAccessKey: creds.SecretAccessKey, stores.AWSSessionToken: creds.SessionToken},
	})
	list := func(name, url, region string) *v1alpha1.ExternalList {
		return newExternalList(ns, name, url, func(s *v1alpha1.ExternalListSpec) {
			s.ItemsPointer = "/items"
			s.CreateIfMissing = true
			s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: region, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
			s.AllowInsecureHTTP = true // a loopback test server
		})
	}
	cases := []struct {
		list   *v1alpha1.ExternalList
		reason string
		code   string
	}{
		{list("wrong-region", s3.URL()+"/lists/allow.json", "eu-west-3"), v1alpha1.ReasonUnauthorized, "AuthorizationHeaderMalformed"},
		{list("no-bucket", s3.URL()+"/no-such-bucket/allow.json", s3fake.DefaultRegion), v1alpha1.ReasonListNotFound, "NoSuchBucket"},
	}
	for _, tc := range cases {
		create(t, tc.list)
		e := newListEntry(ns, tc.list.Name+"-entry", tc.list.Name, "x")
		create(t, e)
		// The entry may first see no ExternalList in its cache, which is
		// ListNotFound too; wait for the store's answer.
		eventually(t, waitTimeout, tc.list.Name+": the entry to report S3's answer", func() error {
			c := waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, tc.reason, waitTimeout)
			if !strings.Contains(c.Message, tc.code) {
				return fmt.Errorf("entry message %q does not name S3's code %s", c.Message, tc.code)
			}
			return nil
		})
		waitCondition(t, tc.list, v1alpha1.ConditionReady, metav1.ConditionFalse, tc.reason, waitTimeout)
	}

	// The session token expires: a list that worked says Unauthorized. (A
	// document of its own: the wrong-region list holds allow.json's claim.)
	ok := list("expiring", s3.URL()+"/lists/expiring.json", s3fake.DefaultRegion)
	create(t, ok)
	first := newListEntry(ns, "first", "expiring", "first")
	create(t, first)
	waitCondition(t, first, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if err := s3.ExpireSessionToken(creds.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	written := s3.Stats().Count(http.MethodPut, http.StatusOK)
	second := newListEntry(ns, "second", "expiring", "second")
	create(t, second)
	c := waitCondition(t, second, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)
	if !strings.Contains(c.Message, "ExpiredToken") {
		t.Errorf("message %q does not say the token expired", c.Message)
	}
	if after := s3.Stats().Count(http.MethodPut, http.StatusOK); after != written {
		t.Errorf("%d writes after the token expired", after-written)
	}
	if items := s3Items(t, s3, "lists", "expiring.json"); len(items) != 1 || items[0] != "first" {
		t.Errorf("S3 holds %v, want only first", items)
	}
	_ = ctx
	assertNoLeak(t, ns, rep, "session-planted-0x5E5510")
}

// TestAzureSASFromSecret: a SAS URL for a blob in Azurite, made with the
// Azure SDK, sits in a Secret (urlFrom) with no spec.auth; entries sync
// through it, and the signature appears nowhere the operator writes.
func TestAzureSASFromSecret(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	az := startAzurite(ctx, t)
	qp, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		Permissions:   (&sas.BlobPermissions{Read: true, Write: true, Create: true}).String(),
		ContainerName: "lists", BlobName: "sas.json",
	}.SignWithSharedKey(az.Credential())
	if err != nil {
		t.Fatal(err)
	}
	rep := startManager(t, managerConfig{namespace: ns, devLog: true})
	xl := newExternalList(ns, "sas", "", func(s *v1alpha1.ExternalListSpec) {
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "url"}}
		s.CreateIfMissing = true
		s.AllowInsecureHTTP = true // Azurite serves plain http on loopback
	})
	create(t, xl)
	e := newListEntry(ns, "one", "sas", "tenant-one")
	create(t, e)
	// Before the Secret exists the entry waits, with a Warning.
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, waitTimeout)
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "sas", Namespace: ns},
		StringData: map[string]string{"url": az.BlobURL("lists", "sas.json") + "?" + qp.Encode()},
	})
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	assertNoLeak(t, ns, rep, qp.Signature())
}
