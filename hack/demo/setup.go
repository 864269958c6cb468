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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// The samples (config/samples): the names of the ExternalList and the
// ListEntry in them, and the sample ExternalList's server, path and token.
const (
	samplesDir  = "config/samples"
	sampleList  = "allow-list"
	sampleEntry = "tenant-a"
	samplePort  = 8090
	// sampleHost is the in-cluster fake server the samples name
	// (config/fakeapi); the demo serves the list on loopback instead and
	// rewrites the samples' URL to it.
	sampleHost  = "fakeapi.listkeeper-demo.svc.cluster.local"
	localHost   = "127.0.0.1"
	listPath    = "/lists/allow"
	sampleToken = "demo-token"
	// sampleEntryFile is the sample ListEntry, applied alone in s3 mode.
	sampleEntryFile = "listkeeper_v1alpha1_listentry.yaml"
)

const (
	// listLatency is the latency the server adds to every list request.
	listLatency = time.Millisecond
	// docOwner is a field outside the items array that every write must
	// preserve.
	docOwner = "demo"
	// replicaWorkers is each replica's --max-concurrent-reconciles.
	replicaWorkers = 8
	// demoLabel marks the ListEntries the demo creates.
	demoLabel      = "listkeeper.dev/demo"
	demoLabelValue = "true"
)

// setUp starts the cluster, the list server and the replicas, applies the
// samples and waits until the sample entry is on the list.
func (d *demo) setUp(ctx context.Context) error {
	d.logf("starting kube-apiserver and etcd (envtest, %s)", d.cfg.assets)
	var err error
	d.cluster, err = harness.StartCluster(harness.ClusterOptions{Assets: d.cfg.assets, CRDDir: crdDir, Dir: d.dir, User: "listkeeper-demo", PolicyRoot: repoRoot})
	if err != nil {
		return err // d.cluster still knows its logs
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	d.entries.Client = d.cluster.Client
	d.logf("cluster up; kubeconfig %s; %s", d.cluster.Kubeconfig, policyState(d.cluster.FinalizerPolicy))
	if d.store, err = d.startStore(ctx); err != nil {
		return err
	}
	d.logf("%s; %s seeded with %d bystander IDs", d.store.describe(), d.store.url(), len(d.bystanders))
	// The members' Leases live beside the samples, wherever the managers
	// would otherwise put them (POD_NAMESPACE), so that the demo can read
	// who owns the list.
	d.replicas, err = harness.StartManagers(ctx, d.sup, harness.ManagerOptions{
		Bin: filepath.Join(d.cfg.bin, "manager"), Kubeconfig: d.cluster.Kubeconfig, Workers: replicaWorkers,
		// The demo's store is on loopback, which the dial fence
		// refuses unless a CIDR entry allows it.
		Args: []string{"--lease-namespace", namespace, "--allowed-hosts", "127.0.0.0/8"},
	}, d.cfg.replicas)
	if err != nil {
		return err
	}
	d.logf("%d manager replicas ready (--max-concurrent-reconciles %d, no leader election)", len(d.replicas), replicaWorkers)
	switch d.cfg.store {
	case storeS3:
		return d.createS3List(ctx)
	case storeWAFv2:
		return d.createWAFv2List(ctx)
	}
	return d.applySamples(ctx)
}

// startStore starts the list store of --store, seeded with a document of
// the bystander IDs (an IP set of them for wafv2).
func (d *demo) startStore(ctx context.Context) (listStore, error) {
	if d.cfg.store == storeWAFv2 {
		s, err := startWAFv2Store(d.bystanders)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	seed, err := json.Marshal(struct {
		Items []string `json:"items"`
		Owner string   `json:"owner"`
	}{d.bystanders, docOwner})
	if err != nil {
		return nil, err
	}
	if d.cfg.store == storeS3 {
		s, err := startS3Store(seed)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	srv, err := d.startListServer(ctx, seed)
	if err != nil {
		return nil, err
	}
	return &fakeAPIStore{srv: srv}, nil
}

// startListServer starts bin/fakeapi on the samples' port when it is free,
// else on a free port, seeded with seed.
func (d *demo) startListServer(ctx context.Context, seed []byte) (*harness.ListServer, error) {
	addr := ""
	if harness.PortFree(samplePort) {
		addr = localHost + ":" + strconv.Itoa(samplePort)
	}
	return harness.StartListServer(ctx, d.sup, harness.ListServerOptions{
		Bin: filepath.Join(d.cfg.bin, "fakeapi"), Addr: addr, Token: sampleToken, Latency: listLatency,
		History: true, Seed: []harness.SeedDoc{{Path: listPath, Body: seed}},
	})
}

// createS3List creates, instead of the samples' ExternalList, one of the
// same name on the S3 object, with a Secret of the S3's test credentials,
// applies the samples' ListEntry and waits until its ID is on the list.
func (d *demo) createS3List(ctx context.Context) error {
	if err := d.createAWSSecret(ctx, s3fake.TestAccessKeyID, s3fake.TestSecretAccessKey); err != nil {
		return err
	}
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: sampleList, Namespace: namespace},
		Spec: v1alpha1.ExternalListSpec{
			URL:          d.store.url(),
			ItemsPointer: "/items",
			Auth: &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{
				Region: s3fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: awsSecret},
			}},
			// The in-process S3 serves plain http on loopback.
			AllowInsecureHTTP: true,
		},
	}
	if err := d.cluster.Client.Create(ctx, xl); err != nil {
		return fmt.Errorf("create ExternalList %s: %w", sampleList, err)
	}
	entryFile := filepath.Join(samplesDir, sampleEntryFile)
	out, err := d.cluster.Kubectl(ctx, nil, "apply", "-n", namespace, "-f", entryFile)
	if err != nil {
		return fmt.Errorf("apply %s: %w", entryFile, err)
	}
	d.logf("created Secret %s (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and ExternalList %s (url %s, itemsPointer /items, auth.aws region %s); applied %s to namespace %s:\n%s",
		awsSecret, sampleList, xl.Spec.URL, s3fake.DefaultRegion, entryFile, namespace, indent(out))
	return d.readSampleEntry(ctx)
}

// createWAFv2List creates, instead of the samples, an ExternalList of the
// same name on the IP set, with a Secret of the API's test credentials,
// and a ListEntry of the sample entry's name that holds an address block
// (the samples' ID is no CIDR, and an IP set holds nothing else), and
// waits until its ID is in the set.
func (d *demo) createWAFv2List(ctx context.Context) error {
	waf, ok := d.store.(*wafv2Store)
	if !ok {
		return fmt.Errorf("store %s is not the WAFv2 API", d.store.kind())
	}
	if err := d.createAWSSecret(ctx, wafv2fake.TestAccessKeyID, wafv2fake.TestSecretAccessKey); err != nil {
		return err
	}
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: sampleList, Namespace: namespace},
		Spec: v1alpha1.ExternalListSpec{
			WAFv2: &v1alpha1.WAFv2IPSet{Region: wafv2fake.DefaultRegion, Scope: v1alpha1.WAFv2ScopeRegional,
				Name: wafv2SetName, ID: waf.id, Endpoint: waf.endpoint()},
			Auth: &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{
				Region: wafv2fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: awsSecret},
			}},
			// The in-process API serves plain http on loopback.
			AllowInsecureHTTP: true,
		},
	}
	if err := d.cluster.Client.Create(ctx, xl); err != nil {
		return fmt.Errorf("create ExternalList %s: %w", sampleList, err)
	}
	le := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Name: sampleEntry, Namespace: namespace},
		Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: sampleList}, ID: wafv2SampleID},
	}
	if err := d.cluster.Client.Create(ctx, le); err != nil {
		return fmt.Errorf("create ListEntry %s: %w", sampleEntry, err)
	}
	d.logf("created Secret %s (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), ExternalList %s (wafv2: region %s, scope %s, name %s, id %s, endpoint %s; auth.aws with that Secret) and ListEntry %s (id %s) in namespace %s",
		awsSecret, sampleList, wafv2fake.DefaultRegion, v1alpha1.WAFv2ScopeRegional, wafv2SetName, waf.id, waf.endpoint(), sampleEntry, wafv2SampleID, namespace)
	return d.readSampleEntry(ctx)
}

// createAWSSecret creates the Secret awsSecret with an AWS key pair.
func (d *demo) createAWSSecret(ctx context.Context, accessKeyID, secretAccessKey string) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: awsSecret, Namespace: namespace},
		StringData: map[string]string{stores.AWSAccessKeyID: accessKeyID, stores.AWSSecretAccessKey: secretAccessKey},
	}
	if err := d.cluster.Client.Create(ctx, secret); err != nil {
		return fmt.Errorf("create Secret %s: %w", awsSecret, err)
	}
	return nil
}

// applySamples applies config/samples and waits until the sample entry's ID
// is on the list beside the bystanders.
func (d *demo) applySamples(ctx context.Context) error {
	out, err := d.cluster.ApplyKustomization(ctx, samplesDir, namespace, func(manifest string) string {
		return pointSamplesAt(manifest, d.store.url())
	})
	if err != nil {
		return err
	}
	d.logf("applied %s to namespace %s:\n%s", samplesDir, namespace, indent(out))
	var xl v1alpha1.ExternalList
	if err := d.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sampleList}, &xl); err != nil {
		return fmt.Errorf("get sample ExternalList: %w", err)
	}
	if xl.Spec.URL != d.store.url() {
		return fmt.Errorf("sample ExternalList %s points at %s, not at the demo's list %s", sampleList, xl.Spec.URL, d.store.url())
	}
	return d.readSampleEntry(ctx)
}

// pointSamplesAt rewrites the rendered samples so that their list URL (the
// in-cluster fake server) is listURL, the demo's list on loopback.
func pointSamplesAt(manifest, listURL string) string {
	sampleServer := fmt.Sprintf("http://%s:%d/", sampleHost, samplePort)
	return strings.ReplaceAll(manifest, sampleServer, strings.TrimSuffix(listURL, listPath)+"/")
}

// readSampleEntry learns the sample entry's ID and waits until it is on the
// list.
func (d *demo) readSampleEntry(ctx context.Context) error {
	var le v1alpha1.ListEntry
	if err := d.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sampleEntry}, &le); err != nil {
		return fmt.Errorf("get sample ListEntry: %w", err)
	}
	d.sampleID = le.Spec.ID
	return d.waitSample(ctx)
}

// waitSample waits until the sample list is Ready, the sample entry Synced
// and the list holds exactly the bystanders and the sample ID.
func (d *demo) waitSample(ctx context.Context) error {
	want := append(slices.Clone(d.bystanders), d.sampleID)
	var state string
	err := d.poll(ctx, d.cfg.timeout, pollPlain, func(ctx context.Context) (bool, error) {
		ready, synced, missing, leftover, err := d.sampleState(ctx, want)
		if err != nil {
			return false, err
		}
		state = fmt.Sprintf("ExternalList Ready=%v, ListEntry %s Synced=%v, list missing %v, left over %v",
			ready, sampleEntry, synced, missing, leftover)
		return ready && synced && len(missing)+len(leftover) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("sample entry never reached the list: %w (%s)", err, state)
	}
	d.logf("sample entry %s Synced: the list holds %d items (%d bystanders + %q), the document's other fields intact",
		sampleEntry, len(want), len(d.bystanders), d.sampleID)
	return nil
}

// sampleState reads where the samples stand.
func (d *demo) sampleState(ctx context.Context, want []string) (ready, synced bool, missing, leftover []string, err error) {
	var xl v1alpha1.ExternalList
	if err = d.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sampleList}, &xl); err != nil {
		return
	}
	var le v1alpha1.ListEntry
	if err = d.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sampleEntry}, &le); err != nil {
		return
	}
	doc, err := d.store.document(ctx)
	if err != nil {
		return
	}
	if owner := doc.Field("owner"); owner != docOwner {
		err = harness.Fatal(fmt.Errorf("the list document lost its field \"owner\": %q, want %q", owner, docOwner))
		return
	}
	ready = meta.IsStatusConditionTrue(xl.Status.Conditions, v1alpha1.ConditionReady)
	synced = meta.IsStatusConditionTrue(le.Status.Conditions, v1alpha1.ConditionSynced)
	missing, leftover = harness.DiffItems(want, doc.Items)
	return
}

// policyState says whether the finalizer policy is installed.
func policyState(installed bool) string {
	if installed {
		return "the finalizer policy puts the cleanup finalizer on every ListEntry at creation"
	}
	return "no finalizer policy (the kube-apiserver does not serve MutatingAdmissionPolicy): the replicas patch the finalizer on"
}
