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

package etagclient

import (
	"crypto/tls"
	"net/http"
	"time"

	"github.com/go-logr/logr"

	"github.com/listkeeper/listkeeper/internal/netfence"
)

// Defaults of the options. Each option's doc names the one it overrides.
const (
	// DefaultRequestTimeout bounds one HTTP attempt, body included, so a
	// server that never answers or drips bytes cannot wedge a worker.
	DefaultRequestTimeout = 10 * time.Second
	// DefaultMaxBodyBytes is the largest document the client reads or
	// writes (8 MiB). With DefaultMaxItems it bounds what one list costs:
	// a client keeps one copy of its document, and needs about two more
	// while it reads or writes one.
	DefaultMaxBodyBytes int64 = 8 << 20
	// DefaultMaxItems is the most items the client accepts in a document
	// it reads or writes. Each item costs the client memory beside its
	// bytes, so a document of short IDs can cost many times its size; the
	// cap keeps that bounded whatever the IDs' length.
	DefaultMaxItems = 100_000
	// DefaultTransportRetries is how often one request is retried after a
	// connection error, a 5xx or a 429, before the cycle fails.
	DefaultTransportRetries = 4
	// DefaultTransportWaitMin and DefaultTransportWaitMax bound the
	// exponential wait between transport retries.
	DefaultTransportWaitMin = 50 * time.Millisecond //nolint:revive // Min/Max as in retryablehttp's RetryWaitMin/Max, not minutes
	DefaultTransportWaitMax = 2 * time.Second
	// DefaultMaxRetryAfter caps how long a Retry-After header can make the
	// client wait, so a hostile server cannot park a worker.
	DefaultMaxRetryAfter = 30 * time.Second
	// DefaultWeakETagWait is how long a read that got a weak ETag is
	// repeated, hoping for a strong one, before the client gives up with
	// ErrWeakETag. Apache serves weak ETags for a second after each write.
	DefaultWeakETagWait = 2 * time.Second
	// DefaultBatchInterval paces the cycles of one client: 250 ms keeps a
	// process at about four writes a second per list, lets a burst of
	// changes ride on one write, and adds at most twice that to a change's
	// latency. WithBatchInterval(0) writes as soon as the previous write
	// ends, for a single process that needs the lowest latency.
	DefaultBatchInterval = 250 * time.Millisecond
	// DefaultBudgetWait is how long a read waits for room in the memory
	// budget (WithBudget) before it fails with ErrMemoryBudget: half the
	// request timeout, since the wait happens with the answer's headers
	// in and its body unread, within the request's own time, so that a
	// list whose turn does not come is reported as such and retried
	// rather than timed out as unreachable.
	DefaultBudgetWait = DefaultRequestTimeout / 2
)

// DefaultConflictPolicy is the backoff after a 412 or an ambiguous write:
// exponential from 5 ms, doubling, ±50% jitter, capped at 200 ms a wait, for
// at most 100 attempts or one minute.
var DefaultConflictPolicy = ConflictPolicy{
	InitialInterval:     5 * time.Millisecond,
	MaxInterval:         200 * time.Millisecond,
	Multiplier:          2,
	RandomizationFactor: 0.5,
	MaxAttempts:         100,
	MaxElapsedTime:      time.Minute,
}

// ConflictPolicy is the retry policy of the read-modify-write loop: how long
// to back off after losing a write to another writer, and when to give up. It
// is a plain value: read it, copy it, change a field, pass it to
// WithConflictPolicy.
type ConflictPolicy struct {
	// InitialInterval is the first wait.
	InitialInterval time.Duration
	// MaxInterval caps one wait (before jitter).
	MaxInterval time.Duration
	// Multiplier grows the wait after each lost attempt.
	Multiplier float64
	// RandomizationFactor spreads each wait over
	// [wait*(1-f), wait*(1+f)], so writers that lost together do not retry
	// together.
	RandomizationFactor float64
	// MaxAttempts is the most PUT attempts that one change rides in before
	// it fails; 0 means no limit. Each change counts its own, from its
	// submission, whatever the cycle it joined had spent before.
	MaxAttempts int
	// MaxElapsedTime is the longest one change is retried after lost
	// writes, counted from its submission; 0 means no limit.
	MaxElapsedTime time.Duration
}

// Clock tells time and waits. The default is the real clock; tests inject a
// fake one so they never sleep through backoff.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Option configures a Client.
type Option func(*config)

type config struct {
	httpClient       *http.Client
	tlsConfig        *tls.Config
	headers          http.Header
	requestTimeout   time.Duration
	maxBodyBytes     int64
	maxItems         int
	itemsPointer     string
	createIfMissing  bool
	conflict         ConflictPolicy
	dialect          Dialect
	signer           Signer
	backend          BackendFactory
	fence            Fence
	dialFence        *netfence.Fence
	shownURL         string
	weakETagWait     time.Duration
	transportRetries int
	transportWaitMin time.Duration
	transportWaitMax time.Duration
	maxRetryAfter    time.Duration
	batchInterval    time.Duration
	clock            Clock
	observer         Observer
	log              logr.Logger
	budget           *Budget
	budgetWait       time.Duration
}

func defaultConfig() config {
	return config{
		requestTimeout:   DefaultRequestTimeout,
		maxBodyBytes:     DefaultMaxBodyBytes,
		maxItems:         DefaultMaxItems,
		conflict:         DefaultConflictPolicy,
		transportRetries: DefaultTransportRetries,
		transportWaitMin: DefaultTransportWaitMin,
		transportWaitMax: DefaultTransportWaitMax,
		maxRetryAfter:    DefaultMaxRetryAfter,
		weakETagWait:     DefaultWeakETagWait,
		batchInterval:    DefaultBatchInterval,
		budgetWait:       DefaultBudgetWait,
		clock:            realClock{},
		observer:         NopObserver{},
		log:              logr.Discard(),
	}
}

// WithHTTPClient sets the HTTP client whose transport the Client uses. The
// client is copied, not changed. Default: a pooled transport shared by every
// Client without a TLS config.
func WithHTTPClient(c *http.Client) Option { return func(o *config) { o.httpClient = c } }

// WithDialFence sends every connection of the Client through f (see
// package netfence): the shared transport, the transport of a TLS config,
// and a client given with WithHTTPClient (an *http.Transport is cloned
// with the fence's dialer, any other transport gets the fence's check of
// each request's target). Redirects are dials too, and pass it. A
// connection the fence refuses fails with netfence.ErrNotAllowed before
// anything is sent, and is never retried. Default: none; a Client used
// alone dials wherever its URL leads. The operator's manager always gives
// one.
func WithDialFence(f *netfence.Fence) Option { return func(o *config) { o.dialFence = f } }

// WithTLSConfig sets the TLS configuration, for example a private CA pool.
// Ignored when WithHTTPClient is given. Default: the system roots.
func WithTLSConfig(t *tls.Config) Option { return func(o *config) { o.tlsConfig = t } }

// WithHeaders adds headers to every request, such as Authorization. Their
// values never appear in errors or logs. Default: none.
func WithHeaders(h http.Header) Option { return func(o *config) { o.headers = h.Clone() } }

// WithRequestTimeout bounds each HTTP attempt, reading the body included.
// Default: DefaultRequestTimeout.
func WithRequestTimeout(d time.Duration) Option { return func(o *config) { o.requestTimeout = d } }

// WithMaxBodyBytes sets the largest document the client reads or writes:
// a larger one fails with ErrTooLarge. Default: DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option { return func(o *config) { o.maxBodyBytes = n } }

// WithMaxItems sets the most items a document the client reads or writes
// may hold: a read of a document with more fails with ErrTooManyItems
// before the client keeps anything of it, and so does a change that would
// take the list past n. n must be positive. Default: DefaultMaxItems.
func WithMaxItems(n int) Option { return func(o *config) { o.maxItems = n } }

// WithItemsPointer sets the RFC 6901 pointer to the array of IDs. Default: ""
// (the document is the array).
func WithItemsPointer(p string) Option { return func(o *config) { o.itemsPointer = p } }

// WithCreateIfMissing makes a change that adds IDs to a missing document (404)
// create it with If-None-Match: *. Default: false (ErrNotFound).
func WithCreateIfMissing(b bool) Option { return func(o *config) { o.createIfMissing = b } }

// WithConflictPolicy sets the backoff after 412s and ambiguous writes.
// Default: DefaultConflictPolicy.
func WithConflictPolicy(p ConflictPolicy) Option { return func(o *config) { o.conflict = p } }

// WithSigner signs every HTTP attempt just before it is sent (SigV4,
// SharedKey, or a bearer token that is renewed before it expires). Default:
// none; WithHeaders' static headers are sent as they are.
func WithSigner(s Signer) Option { return func(o *config) { o.signer = s } }

// WithTransportRetries sets how often one request is retried after a
// connection error, 5xx or 429, and the wait bounds between tries. Default:
// DefaultTransportRetries, DefaultTransportWaitMin, DefaultTransportWaitMax.
func WithTransportRetries(n int, waitMin, waitMax time.Duration) Option {
	return func(o *config) {
		o.transportRetries, o.transportWaitMin, o.transportWaitMax = n, waitMin, waitMax
	}
}

// WithMaxRetryAfter caps the wait that a Retry-After header asks for.
// Default: DefaultMaxRetryAfter.
func WithMaxRetryAfter(d time.Duration) Option { return func(o *config) { o.maxRetryAfter = d } }

// WithBatchInterval sets the least time between the starts of two cycles
// of this client; each cycle waits a random extra of up to the interval
// again, so that replicas drift apart. Changes that arrive meanwhile wait and
// go out together in the next cycle; a change after a quiet spell goes out
// at once. It trades a little latency for far fewer requests when changes
// trickle in faster than the server answers. 0 starts a new cycle as soon as
// the previous one ends. Default: DefaultBatchInterval.
func WithBatchInterval(d time.Duration) Option { return func(o *config) { o.batchInterval = d } }

// WithShownURL sets how errors, logs and commits show the list's URL.
// Default: RedactURL of it (scheme, host and path). A URL that came from a
// Secret may carry a token in its path too: show OriginOf it.
func WithShownURL(s string) Option { return func(o *config) { o.shownURL = s } }

// WithWeakETagWait sets how long a read that got a weak ETag is repeated
// before the client gives up with ErrWeakETag; 0 gives up at once. Default:
// DefaultWeakETagWait. The operator keeps the default; test harnesses that
// drive a server with weak ETags shorten it.
func WithWeakETagWait(d time.Duration) Option { return func(o *config) { o.weakETagWait = d } }

// WithClock sets the clock of the conflict backoff. Default: the real clock.
func WithClock(c Clock) Option { return func(o *config) { o.clock = c } }

// WithObserver receives requests, write results, batch sizes and commit
// latencies, for metrics. Default: NopObserver.
func WithObserver(obs Observer) Option { return func(o *config) { o.observer = obs } }

// WithExtraObserver also sends everything to obs, beside the observer that
// the options before it set (WithObserver), so that a caller can add its
// own observer to options it did not build.
func WithExtraObserver(obs Observer) Option {
	return func(o *config) { o.observer = MultiObserver{o.observer, obs} }
}

// WithLogger sets the logger for conflicts and retries (at V(1)). URLs are
// logged without credentials or query values. Default: discard.
func WithLogger(l logr.Logger) Option { return func(o *config) { o.log = l } }

// WithBudget makes the Client's reads and its cached document count
// against b, a memory budget shared by every Client of the process (see
// Budget). A read that does not fit waits its turn, for up to the budget
// wait (WithBudgetWait), and then fails with ErrMemoryBudget, as does one
// larger than the whole budget. The budget stays the one given to New;
// Reconfigure does not change it. Default: none, no bound beyond
// WithMaxBodyBytes.
func WithBudget(b *Budget) Option { return func(o *config) { o.budget = b } }

// WithBudgetWait sets how long one read waits for room in the memory
// budget before it fails with ErrMemoryBudget. Default: DefaultBudgetWait.
func WithBudgetWait(d time.Duration) Option { return func(o *config) { o.budgetWait = d } }
