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
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/finalizerpolicy"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/metrics"
	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// DefaultMaxConcurrentReconciles is the number of workers of the list
// controllers.
const DefaultMaxConcurrentReconciles = 8

// EntryWorkersPerListWorker is the default ratio of the ListEntry
// controller's workers to the list controllers' (see
// Options.MaxConcurrentEntryReconciles).
const EntryWorkersPerListWorker = 4

// Options configure Setup.
type Options struct {
	// MaxConcurrentReconciles is the number of workers of the list
	// controllers. Default: DefaultMaxConcurrentReconciles.
	MaxConcurrentReconciles int
	// MaxConcurrentEntryReconciles is the number of workers of the
	// ListEntry controller. Every entry of a document is worked by the
	// replica that owns the document, and an entry's reconcile mostly
	// waits: for one API write (the finalizer, or the status), while its
	// list change waits in the list client without holding a worker. So
	// the entry pool is sized by the API server's latency, not by CPU, and
	// must keep up with a burst on one document alone. Default:
	// EntryWorkersPerListWorker × MaxConcurrentReconciles.
	MaxConcurrentEntryReconciles int
	// ClientOptions are passed to every list client (observer, timeouts,
	// backoff, batch interval). Default: none (etagclient's defaults).
	ClientOptions []etagclient.Option
	// MemoryBudgetBytes is the memory budget that every list client of
	// the manager shares, for the documents they cache and the answers
	// they read (etagclient.Budget): per-document caps alone let many
	// lists at the caps together exceed the container's memory. 0 derives
	// it from the Go runtime's soft memory limit (etagclient.BudgetFor);
	// negative turns the budget off. Default: 0.
	MemoryBudgetBytes int64
	// AllowedHosts are the entries of --allowed-hosts (see
	// netfence.ParseAllowlist): host name patterns (path.Match) and CIDR
	// ranges, each with an optional port. When not empty, a list's URL or
	// endpoint must match one by name or IP literal and port
	// (HostNotAllowed otherwise). A range entry also lifts the dial fence's
	// default refusals for the addresses it contains. A malformed entry
	// fails Setup. Default: every host, and the default refusals.
	AllowedHosts []string
	// DialResolver resolves list hosts for the dial fence, which Setup
	// always installs in every list client and credential request a
	// list's spec can steer. Default: net.DefaultResolver; tests inject
	// names.
	DialResolver netfence.Resolver
	// Owner decides which replica acts on what. Default: SoleOwner.
	Owner Owner
	// RecorderName names the event source. Default: "listkeeper".
	RecorderName string
	// NewRateLimiter, when set, makes each controller's work-queue rate
	// limiter (the backoff of failed reconciles); it is called once per
	// controller. Default: the ListEntry controller uses
	// controller-runtime's, the list controllers their own
	// (listRateLimiter).
	NewRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]
	// AuditLog receives one Info record per committed list write. It
	// should be neither sampled nor filtered by level (cmd/manager builds
	// such a logger). Default: the manager's logger, named "audit".
	AuditLog logr.Logger
	// Identity names this replica in the audit log of committed writes.
	// Default: the Owner's identity (a membership.Member's), else POD_NAME,
	// else the host name.
	Identity string
	// StuckTerminatingAfter is how long a ListEntry may be deleting before
	// listkeeper_list_entries_stuck_terminating counts it. Default:
	// DefaultStuckTerminatingAfter.
	StuckTerminatingAfter time.Duration
	// ClusterResourceNamespace is where the Secrets of ClusterExternalLists
	// live: the operator's own namespace (cmd/manager passes
	// --cluster-resource-namespace). Default: "default".
	ClusterResourceNamespace string
	// ReconcileTimeout is the deadline of one reconcile: what it waits for
	// (API calls, Secret reads, token fetches, a list's read or drift
	// write) ends by then, so that a hung server or token endpoint cannot
	// hold a worker. A change an entry submitted goes on in the list
	// client, under the request timeout and the replica's right to act.
	// Default: DefaultReconcileTimeout.
	ReconcileTimeout time.Duration
	// NamespacedAmbientCredentials lets ExternalLists use the operator's
	// own cloud identity (spec.auth without a Secret). Default: false: a
	// namespace user must never gain the operator's identity.
	NamespacedAmbientCredentials bool
	// ClusterAmbientCredentials lets ClusterExternalLists use it.
	// Cluster administrators make those; cmd/manager turns it on by
	// default (--cluster-ambient-credentials).
	ClusterAmbientCredentials bool
	// StorePolicy holds where ambient credentials may go besides the
	// providers' own endpoints (AmbientHosts) and the token endpoints a
	// key may name besides Google's (GCPTokenURIs, for tests); its Ambient
	// field is set per list from the two fields above.
	StorePolicy stores.Policy
	// SecretAccess is what the operator may do with Secrets:
	// SecretAccessWatch (default) watches their metadata (list and watch,
	// in every namespace it serves) and picks up a rotated Secret at once;
	// SecretAccessGet only gets the Secrets lists name, and reads them
	// again every SecretRefresh.
	SecretAccess SecretAccess
	// SecretRefresh is how often a list's Secrets are read again with
	// SecretAccessGet: a rotated Secret is used within this long (and the
	// list's next status check, statusRefreshInterval). Default:
	// DefaultSecretRefresh.
	SecretRefresh time.Duration
	// NamespacedOnly serves no ClusterExternalLists: the manager watches
	// one namespace (--namespace) and has no permission on cluster-scoped
	// objects. Entries that refer to one are told so. Default: false.
	NamespacedOnly bool
	// LateWriteBound is how long after a replica lost its right to act a
	// write it sent may still land (a request a slow server or proxy held):
	// a Delete cleanup waits it out. Default: DefaultLateWriteBound.
	LateWriteBound time.Duration
	// FinalizerAtBirth reports whether the API server adds the cleanup
	// finalizer to every ListEntry on CREATE (see
	// EntryReconciler.FinalizerAtBirth). Default: a
	// finalizerpolicy.Detector that Setup adds to the manager, probing in
	// WatchNamespace when NamespacedOnly, else in ClusterResourceNamespace;
	// its Active is false until a probe saw the finalizer.
	FinalizerAtBirth func() bool
	// WatchNamespace is the one namespace the manager caches and watches
	// when NamespacedOnly (--namespace): where the finalizer policy is
	// probed, since the operator may create ListEntries only there.
	// Default: "", ClusterResourceNamespace.
	WatchNamespace string
}

// SecretAccess is what the operator may do with Secrets (see
// Options.SecretAccess).
type SecretAccess string

const (
	// SecretAccessWatch lists and watches Secrets' metadata (their data is
	// only ever read with get, when a list needs it).
	SecretAccessWatch SecretAccess = "watch"
	// SecretAccessGet gets the Secrets a list names, nothing else.
	SecretAccessGet SecretAccess = "get"
)

// clientSweepInterval is how often the list clients of documents this
// replica no longer owns are closed (listconfig.ListClients.Sweep).
const clientSweepInterval = time.Minute

// DefaultSecretRefresh is the default of Options.SecretRefresh.
const DefaultSecretRefresh = time.Minute

// DefaultReconcileTimeout is the default of Options.ReconcileTimeout: well
// under the seven seconds a replica acts without renewing its Lease.
const DefaultReconcileTimeout = 5 * time.Second

// DefaultLateWriteBound is the default of Options.LateWriteBound: the ETag
// client's default request timeout, after which the client has given a
// request up.
const DefaultLateWriteBound = etagclient.DefaultRequestTimeout

// Setup wires listkeeper's controllers into mgr: the shared list clients
// (closed when the manager stops), the detector of the finalizer policy
// (unless Options.FinalizerAtBirth is set), the ListEntry and ExternalList
// controllers, their indexes and watches. cmd/manager and the tests both
// call it, so the tests run the production wiring.
func Setup(mgr ctrl.Manager, o Options) error {
	if mgr == nil {
		return errors.New("controller.Setup needs a manager")
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	if o.MaxConcurrentEntryReconciles <= 0 {
		o.MaxConcurrentEntryReconciles = EntryWorkersPerListWorker * o.MaxConcurrentReconciles
	}
	if o.Owner == nil {
		o.Owner = SoleOwner{}
	}
	if o.RecorderName == "" {
		o.RecorderName = "listkeeper"
	}
	if o.Identity == "" {
		o.Identity = defaultIdentity(o.Owner)
	}
	if o.AuditLog.GetSink() == nil {
		o.AuditLog = mgr.GetLogger().WithName("audit")
	}
	if o.ClusterResourceNamespace == "" {
		o.ClusterResourceNamespace = "default"
	}
	if o.LateWriteBound <= 0 {
		o.LateWriteBound = DefaultLateWriteBound
	}
	if o.ReconcileTimeout <= 0 {
		o.ReconcileTimeout = DefaultReconcileTimeout
	}
	allow, err := netfence.ParseAllowlist(o.AllowedHosts)
	if err != nil {
		return err
	}
	// The API server's addresses are refused to lists: the host the
	// manager itself talks to, and the in-cluster service's.
	apiHosts := []string{os.Getenv("KUBERNETES_SERVICE_HOST")}
	if cfg := mgr.GetConfig(); cfg != nil && cfg.Host != "" {
		apiHosts = append(apiHosts, apiServerHost(cfg.Host))
	}
	fence, err := netfence.New(context.Background(), netfence.Options{Allow: allow, APIServerHosts: apiHosts, Resolver: o.DialResolver})
	if err != nil {
		// The fence works without the names it could not resolve; the
		// API server's service IP is a literal in a cluster.
		mgr.GetLogger().Error(err, "the dial fence could not resolve the API server's host; its addresses are not refused by name")
	}
	o.ClientOptions = append(slices.Clip(o.ClientOptions), etagclient.WithDialFence(fence))
	o.StorePolicy.DialFence = fence
	if err := o.StorePolicy.Validate(); err != nil {
		return fmt.Errorf("store credentials policy: %w", err)
	}
	if o.SecretRefresh <= 0 {
		o.SecretRefresh = DefaultSecretRefresh
	}
	switch o.SecretAccess {
	case "":
		o.SecretAccess = SecretAccessWatch
	case SecretAccessWatch, SecretAccessGet:
	default:
		return fmt.Errorf("secret access %q: want %q or %q", o.SecretAccess, SecretAccessWatch, SecretAccessGet)
	}
	clientOptions := o.ClientOptions
	if o.MemoryBudgetBytes >= 0 {
		n := o.MemoryBudgetBytes
		if n == 0 {
			n = etagclient.BudgetFor(debug.SetMemoryLimit(-1))
		}
		budget := etagclient.NewBudget(n)
		metrics.ObserveBudget(budget)
		clientOptions = append(slices.Clip(clientOptions), etagclient.WithBudget(budget))
	}
	lists := &listconfig.ListClients{
		Options: clientOptions,
		Audit:   &Audit{Log: o.AuditLog, Lists: mgr.GetClient(), Replica: o.Identity},
		Owner:   o.Owner,
		Resolver: &listconfig.Resolver{Cached: mgr.GetClient(), Live: mgr.GetAPIReader(), AllowedHosts: allow,
			ClusterNamespace: o.ClusterResourceNamespace, SecretsByGet: o.SecretAccess == SecretAccessGet,
			SecretRefresh: o.SecretRefresh, Stores: o.StorePolicy,
			ClusterAmbient: o.ClusterAmbientCredentials, NamespacedAmbient: o.NamespacedAmbientCredentials},
	}
	// The list clients outlive the controllers' workers: a change in
	// flight at shutdown still completes (the membership drains it) before
	// the clients close.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		sweep := time.NewTicker(clientSweepInterval)
		defer sweep.Stop()
		for {
			select {
			case <-ctx.Done():
				lists.Close()
				return nil
			case <-sweep.C:
				lists.Sweep()
			}
		}
	})); err != nil {
		return fmt.Errorf("add list clients: %w", err)
	}
	if err := addListMetrics(mgr, o.Owner, o.StuckTerminatingAfter); err != nil {
		return err
	}
	if o.FinalizerAtBirth == nil {
		detector := &finalizerpolicy.Detector{Client: mgr.GetClient(), Namespace: o.finalizerProbeNamespace(),
			Log: mgr.GetLogger().WithName("finalizer-policy")}
		if err := mgr.Add(detector); err != nil {
			return fmt.Errorf("add the finalizer policy detector: %w", err)
		}
		o.FinalizerAtBirth = detector.Active
	}
	recorder := safeRecorder{mgr.GetEventRecorder(o.RecorderName)}
	if err := addIndexes(context.Background(), mgr.GetFieldIndexer(), listIndexes(o.ClusterResourceNamespace)); err != nil {
		return err
	}
	if err := (&EntryReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Lists: lists, Recorder: recorder, Owner: o.Owner,
		MaxConcurrentReconciles: o.MaxConcurrentEntryReconciles, NewRateLimiter: o.NewRateLimiter, NamespacedOnly: o.NamespacedOnly,
		ReconcileTimeout: o.ReconcileTimeout, FinalizerAtBirth: o.FinalizerAtBirth,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the ListEntry controller: %w", err)
	}
	kinds := []v1alpha1.ListKind{v1alpha1.ListKindExternalList, v1alpha1.ListKindClusterExternalList}
	if o.NamespacedOnly {
		kinds = kinds[:1]
	}
	for _, kind := range kinds {
		if err := (&ListReconciler{
			Kind: kind, Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Lists: lists, Recorder: recorder, Owner: o.Owner,
			MaxConcurrentReconciles: o.MaxConcurrentReconciles, NewRateLimiter: o.NewRateLimiter, LateWriteBound: o.LateWriteBound,
			NamespacedOnly: o.NamespacedOnly, ReconcileTimeout: o.ReconcileTimeout,
			WatchSecrets: o.SecretAccess != SecretAccessGet,
		}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("set up the %s controller: %w", kind, err)
		}
	}
	return nil
}

// finalizerProbeNamespace is where the finalizer policy is probed: a
// namespace the operator serves and may create ListEntries in.
func (o Options) finalizerProbeNamespace() string {
	if o.NamespacedOnly && o.WatchNamespace != "" {
		return o.WatchNamespace
	}
	return o.ClusterResourceNamespace
}

// apiServerHost returns the host (and port) of a rest.Config's Host, which
// is a URL or a bare host[:port].
func apiServerHost(h string) string {
	if u, err := url.Parse(h); err == nil && u.Host != "" {
		return u.Host
	}
	return h
}
