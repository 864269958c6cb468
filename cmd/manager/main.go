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

// Command manager runs the listkeeper operator: the ListEntry and
// ExternalList controllers in one controller-runtime manager. Every replica
// is active; leader election is off by default because no correctness
// depends on it.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	// CA roots compiled in, used when the system has none: the release
	// image (hack/release) is a static binary with no CA bundle beside it.
	_ "golang.org/x/crypto/x509roots/fallback"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/controller"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/metrics"
	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/version"
)

// options are the manager's flags.
type options struct {
	metricsAddr     string
	metricsSecure   bool
	metricsCertPath string
	probeAddr       string
	leaderElect     bool
	maxConcurrent   int
	maxEntryWorkers int
	namespace       string
	allowedHosts    string
	requestTimeout  time.Duration
	maxBodyBytes    int64
	maxItems        int
	conflictInitial time.Duration
	conflictMax     time.Duration
	conflictTries   int
	conflictElapsed time.Duration
	transportTries  int
	batchInterval   time.Duration
	leaseNamespace  string
	clusterNS       string
	memberGroup     string
	reconcileTO     time.Duration
	secretAccess    string
	nsAmbient       bool
	clusterAmbient  bool
	ambientHosts    string
	gcpTokenURIs    string
	leaseDuration   time.Duration
	renewPeriod     time.Duration
	buckets         int
	stuckAfter      time.Duration
	memoryBudget    int64
	showVersion     bool
}

func (o *options) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "Address of the metrics endpoint (:8443 for HTTPS, :8080 for HTTP); 0 disables it.")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "Serve metrics over HTTPS with authentication and authorization.")
	fs.StringVar(&o.metricsCertPath, "metrics-cert-path", "", "Directory holding the metrics server's certificate and key, "+metricsCertName+" and "+metricsKeyName+" (e.g. a mounted cert-manager Secret), reloaded when they change; empty: a self-signed certificate.")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address of the /healthz and /readyz probes; 0 disables them.")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "Elect a leader. Off by default: every replica is active and correct.")
	fs.IntVar(&o.maxConcurrent, "max-concurrent-reconciles", controller.DefaultMaxConcurrentReconciles, "Workers of the ExternalList and ClusterExternalList controllers.")
	fs.IntVar(&o.maxEntryWorkers, "max-concurrent-entry-reconciles", 0, fmt.Sprintf("Workers of the ListEntry controller; 0: %d × --max-concurrent-reconciles. An entry's reconcile mostly waits for one API write, and one replica works every entry of a document, so this pool is sized by the API server's latency.", controller.EntryWorkersPerListWorker))
	fs.StringVar(&o.namespace, "namespace", "", "Only watch this namespace (empty: all).")
	fs.StringVar(&o.allowedHosts, "allowed-hosts", "", "Comma-separated entries that a list's URL or endpoint must match: host patterns (path.Match, e.g. '*.lists.example.com'), "+
		"optionally with a port ('*.lists.example.com:443'), and CIDR ranges or IP addresses, optionally with a port ('10.20.0.0/16', '10.20.0.0/16:8443', '[fd00::/8]:443'). "+
		"Empty allows every host by name. Whatever it says, the operator never dials link-local (cloud metadata), loopback, unspecified or the API server's addresses for a list "+
		"unless a CIDR entry contains the address ('127.0.0.0/8' for a list server on loopback). A malformed entry stops the manager.")
	fs.DurationVar(&o.requestTimeout, "request-timeout", etagclient.DefaultRequestTimeout, "Timeout of one HTTP request to a list server, body included.")
	fs.Int64Var(&o.maxBodyBytes, "max-body-bytes", etagclient.DefaultMaxBodyBytes, "Largest list document read or written; a larger one is refused before anything of it is kept.")
	fs.IntVar(&o.maxItems, "max-items", etagclient.DefaultMaxItems, "Most items a list document may hold; a document with more is refused before anything of it is kept.")
	p := etagclient.DefaultConflictPolicy
	fs.DurationVar(&o.conflictInitial, "conflict-backoff-initial", p.InitialInterval, "First backoff after a 412.")
	fs.DurationVar(&o.conflictMax, "conflict-backoff-max", p.MaxInterval, "Largest backoff after a 412 (before jitter).")
	fs.IntVar(&o.conflictTries, "conflict-max-attempts", p.MaxAttempts, "Write attempts per cycle before ConflictRetriesExhausted (0: no limit).")
	fs.DurationVar(&o.conflictElapsed, "conflict-max-elapsed", p.MaxElapsedTime, "Longest a cycle retries after 412s (0: no limit).")
	fs.DurationVar(&o.batchInterval, "batch-interval", etagclient.DefaultBatchInterval, "Least time between two write cycles of a replica to one list; changes arriving meanwhile share the next write. 0 writes as soon as the previous write ends.")
	fs.IntVar(&o.transportTries, "transport-retries", etagclient.DefaultTransportRetries, "Retries of one request after a connection error, 5xx or 429.")
	fs.StringVar(&o.leaseNamespace, "lease-namespace", defaultLeaseNamespace(), "Namespace of the members' Leases: the operator's own (default: POD_NAMESPACE, else the service account's namespace, else default).")
	fs.StringVar(&o.memberGroup, "member-group", defaultMemberGroup(os.Getenv("POD_NAME")), "The replicas that share the work: Leases carry listkeeper.dev/member=<group>, and instances with different groups never share buckets (default: the Deployment's name, taken from POD_NAME, else "+membership.DefaultGroup+"). The chart and config/manager set it.")
	fs.DurationVar(&o.reconcileTO, "reconcile-timeout", controller.DefaultReconcileTimeout, "Deadline of one reconcile: the reads and writes it waits for (API calls, Secret reads, token fetches, a list's read) end by then, so a hung server cannot hold a worker.")
	fs.StringVar(&o.secretAccess, "secret-access", string(controller.SecretAccessWatch), "What the operator does with Secrets: watch (list and watch their metadata; a rotated Secret is used at once) or get (get only the Secrets lists name, read again every minute).")
	fs.BoolVar(&o.nsAmbient, "namespaced-ambient-credentials", false, "Let ExternalLists use the operator's own cloud identity (spec.auth without a Secret: IRSA, Workload Identity, Entra). Off: whoever may create an ExternalList in a namespace must not gain it.")
	fs.BoolVar(&o.clusterAmbient, "cluster-ambient-credentials", true, "Let ClusterExternalLists use the operator's own cloud identity.")
	fs.StringVar(&o.ambientHosts, "ambient-credentials-hosts", "", "Comma-separated host names or IPs (any port) that may receive the operator's own credentials besides the providers' own endpoints (S3, GCS, Blob hosts of the configured region or account).")
	fs.StringVar(&o.gcpTokenURIs, "gcp-token-uris", "", "Comma-separated token endpoints a Google service-account key may name besides Google's own (for tests and private endpoints).")
	fs.StringVar(&o.clusterNS, "cluster-resource-namespace", "", "Namespace of the Secrets that ClusterExternalLists read (default: --lease-namespace, the operator's own).")
	fs.DurationVar(&o.leaseDuration, "lease-duration", membership.DefaultLeaseDuration, "How long a replica's Lease lives without renewal; a dead replica's work moves after about this long.")
	fs.DurationVar(&o.renewPeriod, "lease-renew-period", membership.DefaultRenewPeriod, "How often a replica renews its Lease (less than a third of --lease-duration).")
	fs.IntVar(&o.buckets, "buckets", membership.DefaultBuckets, "Number of buckets the work is cut into; every replica must use the same number.")
	fs.DurationVar(&o.stuckAfter, "stuck-terminating-after", controller.DefaultStuckTerminatingAfter, "How long a ListEntry may be deleting before listkeeper_list_entries_stuck_terminating counts it.")
	fs.Int64Var(&o.memoryBudget, "memory-budget-bytes", 0, fmt.Sprintf("Memory budget of the replica's lists, all together: the documents it caches and the answers it reads (at about %d bytes a byte, %d for the AWS and Google SDKs' answers). A read that does not fit waits its turn, and fails with MemoryBudgetExceeded when it needs more than the whole budget or waited too long; idle lists' cached documents are dropped first. 0: half of the soft memory limit (GOMEMLIMIT, which the chart sets to 90%% of the container's limit), or %d MiB without one; negative: no budget.", etagclient.ReadCostFactor, etagclient.SDKReadCostFactor, etagclient.DefaultBudgetBytes>>20))
	fs.BoolVar(&o.showVersion, "version", false, "Print the version and exit.")
}

// defaultMemberGroup is the name of the Deployment that runs a pod named
// podName (<deployment>-<replicaset hash>-<pod suffix>), the same for every
// replica and across rollouts; membership.DefaultGroup when the name does
// not look like a Deployment's pod.
func defaultMemberGroup(podName string) string {
	parts := strings.Split(podName, "-")
	if len(parts) < 3 {
		return membership.DefaultGroup
	}
	group := strings.Join(parts[:len(parts)-2], "-")
	if len(group) > 63 || group == "" {
		return membership.DefaultGroup
	}
	return group
}

// defaultLeaseNamespace is POD_NAMESPACE, else the namespace of the pod's
// service account, else "default".
func defaultLeaseNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns
		}
	}
	return "default"
}

// clusterResourceNamespace is --cluster-resource-namespace, defaulting to
// the operator's own namespace (--lease-namespace).
func (o *options) clusterResourceNamespace() string {
	if o.clusterNS != "" {
		return o.clusterNS
	}
	return o.leaseNamespace
}

func (o *options) clientOptions() []etagclient.Option {
	p := etagclient.DefaultConflictPolicy
	p.InitialInterval, p.MaxInterval = o.conflictInitial, o.conflictMax
	p.MaxAttempts, p.MaxElapsedTime = o.conflictTries, o.conflictElapsed
	return []etagclient.Option{
		etagclient.WithObserver(metrics.Observer{}),
		etagclient.WithRequestTimeout(o.requestTimeout),
		etagclient.WithMaxBodyBytes(o.maxBodyBytes),
		etagclient.WithMaxItems(o.maxItems),
		etagclient.WithConflictPolicy(p),
		etagclient.WithTransportRetries(o.transportTries, etagclient.DefaultTransportWaitMin, etagclient.DefaultTransportWaitMax),
		etagclient.WithLogger(ctrl.Log.WithName("etagclient")),
		etagclient.WithBatchInterval(o.batchInterval),
	}
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
}

func run() error {
	var o options
	o.bind(flag.CommandLine)
	zapOpts := defaultLogOptions()
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse() // --kubeconfig is registered by controller-runtime's config package
	if o.showVersion {
		fmt.Println(version.String("manager"))
		return nil
	}
	if err := o.checkMetricsCert(); err != nil {
		return err
	}
	// Checked before anything starts: a fence other than the one the
	// administrator meant must not run (controller.Setup checks again).
	if _, err := netfence.ParseAllowlist(splitList(o.allowedHosts)); err != nil {
		return err
	}
	ctrl.SetLogger(newLogger(&zapOpts, os.Stderr))
	log := ctrl.Log.WithName("setup")
	if err := setMemoryLimit(log); err != nil {
		return err
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, managerOptions(&o, scheme))
	if err != nil {
		return fmt.Errorf("create manager: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	member, err := membership.New(kube, membership.Options{
		Namespace: o.leaseNamespace, LeaseDuration: o.leaseDuration, RenewPeriod: o.renewPeriod,
		Group: o.memberGroup, LateWriteBound: o.requestTimeout,
		Buckets: o.buckets, Log: ctrl.Log.WithName("membership"),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(member); err != nil {
		return fmt.Errorf("add membership: %w", err)
	}
	if err := controller.Setup(mgr, controller.Options{
		AuditLog:                     newAuditLogger(&zapOpts, os.Stderr),
		MaxConcurrentReconciles:      o.maxConcurrent,
		MaxConcurrentEntryReconciles: o.maxEntryWorkers,
		ClientOptions:                o.clientOptions(),
		MemoryBudgetBytes:            o.memoryBudget,
		AllowedHosts:                 splitList(o.allowedHosts),
		Owner:                        member,
		Identity:                     member.Identity(),
		StuckTerminatingAfter:        o.stuckAfter,
		ClusterResourceNamespace:     o.clusterResourceNamespace(),
		NamespacedOnly:               o.namespace != "",
		WatchNamespace:               o.namespace,
		ReconcileTimeout:             o.reconcileTO,
		SecretAccess:                 controller.SecretAccess(o.secretAccess),
		NamespacedAmbientCredentials: o.nsAmbient,
		ClusterAmbientCredentials:    o.clusterAmbient,
		StorePolicy:                  stores.Policy{AmbientHosts: splitList(o.ambientHosts), GCPTokenURIs: splitList(o.gcpTokenURIs)},
		// A request is given up after the request timeout; a server or
		// proxy that holds one longer is the residual window (docs/design.md,
		// "Late writes cannot land").
		LateWriteBound: o.requestTimeout,
	}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("cache not synced")
		}
		return nil
	}); err != nil {
		return err
	}
	log.Info("starting manager", "version", version.Version, "revision", version.Revision, "leaderElection", o.leaderElect, "namespace", o.namespace,
		"maxConcurrentReconciles", o.maxConcurrent, "member", member.Identity(), "memberGroup", o.memberGroup, "leaseNamespace", o.leaseNamespace)
	ctx := ctrl.SetupSignalHandler()
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("run manager: %w", err)
	}
	return nil
}

func managerOptions(o *options, scheme *runtime.Scheme) ctrl.Options {
	mo := ctrl.Options{
		Scheme: scheme,
		Metrics: metricsserver.Options{
			BindAddress:   o.metricsAddr,
			SecureServing: o.metricsSecure,
			// HTTP/2 is off: it has had request-smuggling and rapid-reset CVEs.
			TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
		},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "listkeeper.dev",
		GracefulShutdownTimeout: ptr(15 * time.Second),
	}
	if o.metricsSecure {
		mo.Metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	if o.metricsCertPath != "" {
		mo.Metrics.CertDir, mo.Metrics.CertName, mo.Metrics.KeyName = o.metricsCertPath, metricsCertName, metricsKeyName
	}
	// A read of a kind nothing watches fails at once instead of starting an
	// informer: with --namespace, ClusterExternalLists are not served and
	// the operator has no permission to watch them.
	mo.Cache = cache.Options{ReaderFailOnMissingInformer: true, DefaultTransform: controller.CacheTransform}
	if o.namespace != "" {
		mo.Cache.DefaultNamespaces = map[string]cache.Config{o.namespace: {}}
	}
	return mo
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
