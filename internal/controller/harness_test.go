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
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/metrics"
	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// testConflictPolicy retries lost writes fast, so contended tests finish
// quickly, and gives up only after a long time, so they do not flake.
var testConflictPolicy = etagclient.ConflictPolicy{
	InitialInterval:     time.Millisecond,
	MaxInterval:         20 * time.Millisecond,
	Multiplier:          2,
	RandomizationFactor: 0.5,
	MaxAttempts:         0,
	MaxElapsedTime:      30 * time.Second,
}

// managerConfig configures one in-process replica.
// never is a FinalizerAtBirth for the path without the policy.
func never() bool { return false }

type managerConfig struct {
	// namespace restricts the manager's cache, like --namespace.
	namespace string
	// maxConcurrent is --max-concurrent-reconciles (default 4).
	maxConcurrent int
	// devLog logs at debug level (V(1) included), for the secret test.
	devLog bool
	// clientOptions are appended to the harness's ETag client options.
	clientOptions []etagclient.Option
	// member makes the replica a member with its own Lease in namespace,
	// as cmd/manager does; without it the replica owns everything.
	member bool
	// extraNamespaces are watched too.
	extraNamespaces []string
	// restConfig replaces the suite's, for example to count requests.
	restConfig *rest.Config
	// newRateLimiter is Options.NewRateLimiter (default: controller-runtime's).
	newRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]
	// interceptor, when set, wraps the manager's client (its writes and
	// its cache reads), to fail or delay chosen calls.
	interceptor *interceptor.Funcs
	// lateWriteBound is Options.LateWriteBound (default: 2s, so that
	// Delete cleanups do not make the tests slow).
	lateWriteBound time.Duration
	// namespacedOnly is Options.NamespacedOnly, as cmd/manager sets it with
	// --namespace.
	namespacedOnly bool
	// reconcileTimeout is Options.ReconcileTimeout (default: its default).
	reconcileTimeout time.Duration
	// leaseNamespace is where a member's Lease lives (default: namespace),
	// and memberGroup its group (default: membership's).
	leaseNamespace, memberGroup string
	// clusterAmbient is Options.ClusterAmbientCredentials.
	clusterAmbient bool
	// clusterNamespace is Options.ClusterResourceNamespace, where the
	// Secrets of ClusterExternalLists are read; empty: Setup's default
	// (namespace when the replica is a member).
	clusterNamespace string
	// secretAccess and secretRefresh are Options.SecretAccess and
	// Options.SecretRefresh.
	secretAccess  SecretAccess
	secretRefresh time.Duration
	// storePolicy is Options.StorePolicy (a test token endpoint a key may
	// name).
	storePolicy stores.Policy
	// allowedHosts is Options.AllowedHosts; nil: 127.0.0.0/8, the
	// allowance every test server on loopback needs past the dial fence.
	// A test of the fence's default refusals sets an empty, non-nil one.
	allowedHosts []string
	// dialResolver is Options.DialResolver (default: the system's).
	dialResolver netfence.Resolver
	// finalizerAtBirth is Options.FinalizerAtBirth; nil: what the API
	// server does (the MutatingAdmissionPolicy is installed where it is
	// served). A test of the path without the policy sets it to never.
	finalizerAtBirth func() bool
	// memoryBudget is Options.MemoryBudgetBytes (default: derived from
	// the memory limit).
	memoryBudget int64
}

// Lease timing of in-process members: short, so tests that stop a member
// see its buckets move within seconds.
const (
	testLeaseDuration = 30 * time.Second
	testRenewPeriod   = 2 * time.Second
)

// replica is a manager running in the test process, wired by Setup like
// cmd/manager: its own cache, client, list clients and membership.
type replica struct {
	mgr      ctrl.Manager
	counters *etagclient.Counters
	member   *membership.Member // nil when the replica owns everything
	log      *syncBuffer
	stop     func() // stops the manager and waits for it; idempotent
}

// startManager starts a replica and stops it (waiting for it to end) when
// the test ends. Its log goes to a buffer that is printed only when the
// test fails.
func startManager(t *testing.T, c managerConfig) *replica {
	t.Helper()
	requireEnv(t)
	if c.maxConcurrent == 0 {
		c.maxConcurrent = 4
	}
	logBuf := &syncBuffer{}
	logger := zap.New(zap.WriteTo(logBuf), zap.UseDevMode(c.devLog), zap.StacktraceLevel(zapcore.DPanicLevel))
	cfg := restConfig
	if c.restConfig != nil {
		cfg = c.restConfig
	}
	namespaces := map[string]cache.Config{c.namespace: {}}
	for _, ns := range c.extraNamespaces {
		namespaces[ns] = cache.Config{}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 testScheme,
		Logger:                 logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		// As cmd/manager: a read of a kind nothing watches fails.
		Cache: cache.Options{DefaultNamespaces: namespaces, ReaderFailOnMissingInformer: true, DefaultTransform: CacheTransform},
		// Several managers in one process register controllers of the same
		// name.
		Controller:              config.Controller{SkipNameValidation: ptr(true)},
		GracefulShutdownTimeout: ptr(10 * time.Second),
		NewClient: func(cfg *rest.Config, opts client.Options) (client.Client, error) {
			cl, err := client.New(cfg, opts)
			if err != nil || c.interceptor == nil {
				return cl, err
			}
			return interceptor.NewClient(noWatch{cl}, *c.interceptor), nil
		},
	})
	if err != nil {
		t.Fatalf("create manager: %v", err)
	}
	counters := &etagclient.Counters{}
	opts := []etagclient.Option{
		etagclient.WithObserver(etagclient.MultiObserver{counters, metrics.Observer{}}),
		etagclient.WithRequestTimeout(5 * time.Second),
		etagclient.WithConflictPolicy(testConflictPolicy),
		etagclient.WithTransportRetries(1, 5*time.Millisecond, 20*time.Millisecond),
		etagclient.WithLogger(logger.WithName("etagclient")),
		etagclient.WithBatchInterval(etagclient.DefaultBatchInterval), // as cmd/manager
	}
	if c.lateWriteBound == 0 {
		c.lateWriteBound = 2 * time.Second
	}
	o := Options{MaxConcurrentReconciles: c.maxConcurrent, ClientOptions: append(opts, c.clientOptions...),
		NewRateLimiter: c.newRateLimiter, LateWriteBound: c.lateWriteBound, NamespacedOnly: c.namespacedOnly,
		ReconcileTimeout: c.reconcileTimeout, SecretAccess: c.secretAccess,
		SecretRefresh: c.secretRefresh, ClusterAmbientCredentials: c.clusterAmbient, StorePolicy: c.storePolicy,
		FinalizerAtBirth: c.finalizerAtBirth, MemoryBudgetBytes: c.memoryBudget,
		AllowedHosts: c.allowedHosts, DialResolver: c.dialResolver, ClusterResourceNamespace: c.clusterNamespace}
	if o.AllowedHosts == nil {
		o.AllowedHosts = []string{"127.0.0.0/8"}
	}
	var member *membership.Member
	if c.member {
		kube, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		leaseNS := c.namespace
		if c.leaseNamespace != "" {
			leaseNS = c.leaseNamespace
		}
		member, err = membership.New(kube, membership.Options{
			Namespace: leaseNS, LeaseDuration: testLeaseDuration, RenewPeriod: testRenewPeriod,
			Group: c.memberGroup, Log: logger.WithName("membership"),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.Add(member); err != nil {
			t.Fatal(err)
		}
		o.Owner = member
	}
	if err := Setup(mgr, o); err != nil {
		t.Fatalf("set up controllers: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("manager ended with: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("manager did not stop within 30s")
			}
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("manager log (last %d lines):\n%s", logTailLines, tail(logBuf.String(), logTailLines))
		}
	})
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		t.Fatal("manager cache did not sync")
	}
	return &replica{mgr: mgr, counters: counters, member: member, log: logBuf, stop: stop}
}

func ptr[T any](v T) *T { return &v }

// noWatch makes a client.Client an interceptor's client.WithWatch; the
// manager's client never watches (its cache does).
type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("the manager's client does not watch")
}

// logTailLines is how much of a manager's log a failed test prints.
const logTailLines = 200

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	requireEnv(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "lk-"}}
	if err := k8sClient.Create(ctxFor(t), ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return ns.Name
}

// listPath returns a path on the shared fake server unique to the test.
func listPath(t *testing.T, ns string) string {
	return "/" + ns + "/" + strings.ReplaceAll(t.Name(), "/", "_")
}

func newExternalList(ns, name, url string, mutate ...func(*v1alpha1.ExternalListSpec)) *v1alpha1.ExternalList {
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       v1alpha1.ExternalListSpec{URL: url},
	}
	for _, m := range mutate {
		m(&xl.Spec)
	}
	return xl
}

func newListEntry(ns, name, list, id string) *v1alpha1.ListEntry {
	return &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: list}, ID: id},
	}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k8sClient.Create(ctxFor(t), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

func deleteObj(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k8sClient.Delete(ctxFor(t), obj); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete %T %s: %v", obj, obj.GetName(), err)
	}
}

// setDoc stores body at path on srv.
func setDoc(t *testing.T, srv *fakeapi.Server, path string, body any) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Set(path, raw); err != nil {
		t.Fatalf("set %s: %v", path, err)
	}
}

// docItems reads the array at pointer ("" or "/items") of the document at
// path.
func docItems(srv *fakeapi.Server, path, pointer string) ([]string, error) {
	raw, _, ok := srv.Get(path)
	if !ok {
		return nil, fmt.Errorf("no document at %s", path)
	}
	p, err := etagclient.ParsePointer(pointer)
	if err != nil {
		return nil, err
	}
	doc, err := etagclient.ParseDocument(raw, p)
	if err != nil {
		return nil, err
	}
	return doc.Items(), nil
}

func mustDocItems(t *testing.T, srv *fakeapi.Server, path, pointer string) []string {
	t.Helper()
	items, err := docItems(srv, path, pointer)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// waitOnList waits until id is (present) or is not (!present) on the list.
func waitOnList(t *testing.T, srv *fakeapi.Server, path, pointer, id string, present bool, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("ID %q present=%t on %s", id, present, path), func() error {
		items, err := docItems(srv, path, pointer)
		if err != nil {
			return err
		}
		if slices.Contains(items, id) != present {
			return fmt.Errorf("items: %v", items)
		}
		return nil
	})
}

// waitCondition waits until obj's condition typ has status and reason, and
// returns the condition.
func waitCondition(t *testing.T, obj client.Object, typ string, status metav1.ConditionStatus, reason string, timeout time.Duration) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	eventually(t, timeout, fmt.Sprintf("%T %s condition %s=%s/%s", obj, obj.GetName(), typ, status, reason), func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		c := meta.FindStatusCondition(conditionsOf(obj), typ)
		if c == nil {
			return errors.New("no condition yet")
		}
		got = *c
		if c.Status != status || c.Reason != reason {
			return fmt.Errorf("condition is %s/%s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	return got
}

func conditionsOf(obj client.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *v1alpha1.ListEntry:
		return o.Status.Conditions
	case v1alpha1.List:
		return o.ListStatus().Conditions
	}
	return nil
}

// waitGone waits until obj no longer exists in the API server.
func waitGone(t *testing.T, obj client.Object, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("%T %s to be gone", obj, obj.GetName()), func() error {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still there, finalizers %v, deletion %v", obj.GetFinalizers(), obj.GetDeletionTimestamp())
	})
}

// events returns the events of the namespace, from the events.k8s.io API
// (what the manager's recorder writes) and the core API.
func events(t *testing.T, ns string) []eventsv1.Event {
	t.Helper()
	var list eventsv1.EventList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatalf("list events: %v", err)
	}
	out := list.Items
	var core corev1.EventList
	if err := k8sClient.List(context.Background(), &core, client.InNamespace(ns)); err != nil {
		t.Fatalf("list core events: %v", err)
	}
	for _, e := range core.Items {
		out = append(out, eventsv1.Event{
			ObjectMeta: e.ObjectMeta, Regarding: e.InvolvedObject, Reason: e.Reason,
			Note: e.Message, Type: e.Type, Action: e.Action,
		})
	}
	return out
}

// waitEvent waits for an event of type typ and reason regarding the object
// named name, and returns it.
func waitEvent(t *testing.T, ns, kind, name, typ, reason string, timeout time.Duration) eventsv1.Event {
	t.Helper()
	return waitEventAction(t, ns, kind, name, typ, reason, "", timeout)
}

// waitEventAction is waitEvent for an event of the given action ("" for
// any).
func waitEventAction(t *testing.T, ns, kind, name, typ, reason, action string, timeout time.Duration) eventsv1.Event {
	t.Helper()
	var got eventsv1.Event
	eventually(t, timeout, fmt.Sprintf("%s event %s (action %q) on %s %s", typ, reason, action, kind, name), func() error {
		var seen []string
		for _, e := range events(t, ns) {
			if e.Regarding.Kind == kind && e.Regarding.Name == name && e.Type == typ && e.Reason == reason &&
				(action == "" || e.Action == action) {
				got = e
				return nil
			}
			seen = append(seen, fmt.Sprintf("%s/%s %s %s %s", e.Regarding.Kind, e.Regarding.Name, e.Type, e.Reason, e.Action))
		}
		return fmt.Errorf("events so far: %v", seen)
	})
	return got
}

// putCount returns the number of PUT requests srv answered (any code).
func putCount(srv *fakeapi.Server) int64 {
	var n int64
	for _, c := range srv.Stats().Requests["PUT"] {
		n += c
	}
	return n
}

// fakeServer is a fake list server of one test, so that its request and
// commit counts are the test's alone.
type fakeServer struct {
	srv *fakeapi.Server
	url string
}

func newFakeServer(t *testing.T, opts ...fakeapi.Option) *fakeServer {
	t.Helper()
	srv, err := fakeapi.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &fakeServer{srv: srv, url: hs.URL}
}

// setSpec reads an ExternalList and patches its spec with mutate.
func setSpec(t *testing.T, xl *v1alpha1.ExternalList, mutate func(*v1alpha1.ExternalListSpec)) {
	t.Helper()
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(xl.DeepCopy())
	mutate(&xl.Spec)
	if err := k8sClient.Patch(context.Background(), xl, patch); err != nil {
		t.Fatal(err)
	}
}
