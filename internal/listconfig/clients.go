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

package listconfig

import (
	"context"
	"sync"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/metrics"
)

// ListClients keeps one combining ETag client per claim (document and items
// pointer) per process. Only a claim's holder writes it, and its writes go
// through that one client, in submission order, whatever configuration
// (URL, headers, credentials) it carries: a changed configuration, or a new
// holder's, is swapped in between two cycles (etagclient.Reconfigure), so a
// write in flight finishes as it began and no change overtakes another.
// Every client is fenced by this replica's right to act on the document's
// bucket. Its fields are set before first use; it is safe for concurrent
// use.
type ListClients struct {
	// Options are passed to every client (observer, timeouts, backoff).
	Options []etagclient.Option
	// Audit, when set, observes every committed write of every client.
	Audit Auditor
	// Owner fences every client's writes (see bucketFence).
	Owner Owner
	// Resolver resolves the lists' configurations.
	Resolver *Resolver

	mu      sync.Mutex
	byClaim map[string]*claimClient
}

// Owner is what the clients need of this replica's share of the work, which
// is cut into buckets by document (DocumentBucketKey): a document's writes
// are fenced by this replica's right to act on its bucket, and a client is
// kept only while this replica owns it. *membership.Member implements
// Owner.
type Owner interface {
	// Bucket returns the bucket of key.
	Bucket(key string) int
	// Owns reports whether this replica still holds the bucket and its
	// right to act on it has not ended.
	Owns(bucket int) bool
	// ActUntil reports until when this replica may act on the bucket (ok
	// false: not now); renewals move the time forward.
	ActUntil(bucket int) (until time.Time, ok bool)
	// SettleAfter returns the time before which a write of the bucket's
	// previous owner may still land (zero after a graceful handover).
	SettleAfter(bucket int) time.Time
}

var _ Owner = (*membership.Member)(nil)

// Auditor observes the committed writes of a claim's client.
type Auditor interface {
	// Observer returns the observer of the writes of the client of claim
	// (Config.Claim).
	Observer(claim string) etagclient.Observer
}

// bucketFence is the etagclient.Fence of a document's client: this
// replica's right to act on the document's bucket.
type bucketFence struct {
	owner  Owner
	bucket int
}

var _ etagclient.Fence = bucketFence{}

// Until implements etagclient.Fence.
func (f bucketFence) Until() (time.Time, bool) { return f.owner.ActUntil(f.bucket) }

// SettleAfter implements etagclient.Fence.
func (f bucketFence) SettleAfter() time.Time { return f.owner.SettleAfter(f.bucket) }

// claimClient is the client of one claim.
type claimClient struct {
	client *etagclient.Client
	hash   string // the configuration it carries (Config.hash)
	holder Ref    // the list whose configuration that is
	// obs counts the client's requests and writes under its holder
	// (listkeeper_http_requests_total, listkeeper_list_writes_total).
	obs *metrics.ListObserver
	// bucket is the bucket of the document.
	bucket int
}

// Resolve returns l's configuration, from what was last resolved when
// neither l nor its Secrets changed since.
func (r *ListClients) Resolve(ctx context.Context, l v1alpha1.List) (*Config, error) {
	return r.Resolver.resolve(ctx, l)
}

// Client returns the client of cfg's claim, carrying cfg, which is the
// configuration of the claim's holder, holder.
func (r *ListClients) Client(cfg *Config, holder Ref) (*etagclient.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byClaim == nil {
		r.byClaim = map[string]*claimClient{}
	}
	cc, ok := r.byClaim[cfg.claim]
	switch {
	case !ok:
		obs := &metrics.ListObserver{}
		bucket := r.Owner.Bucket(DocumentBucketKey(cfg.document))
		c, err := etagclient.New(cfg.rawURL, append(r.options(cfg, bucket), etagclient.WithExtraObserver(obs))...)
		if err != nil {
			return nil, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: err.Error()}
		}
		cc = &claimClient{client: c, hash: cfg.hash, obs: obs, bucket: bucket}
		r.byClaim[cfg.claim] = cc
	case cc.hash != cfg.hash:
		if err := cc.client.Reconfigure(cfg.rawURL, r.options(cfg, cc.bucket)...); err != nil {
			return nil, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: err.Error()}
		}
		cc.hash = cfg.hash
	}
	cc.holder = holder
	cc.obs.SetList(holder.metric())
	return cc.client, nil
}

// Probe reads the document of cfg with a client of its own, made for this
// one read and closed after it: cfg's configuration (URL, headers,
// credentials) is used for nothing else. A list that has not yet earned
// its place in a claim proves with it that it can read the document; the
// claim's client carries the holder's configuration, and must neither lend
// it to another list nor take that list's on.
func (r *ListClients) Probe(ctx context.Context, cfg *Config) (etagclient.Snapshot, error) {
	c, err := etagclient.New(cfg.rawURL, r.listOptions(cfg, 0)...)
	if err != nil {
		return etagclient.Snapshot{}, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: err.Error()}
	}
	defer c.Close()
	return c.Read(ctx)
}

// listOptions are the options every client of cfg starts from: the shared
// ones and the list's own, with room for extra more.
func (r *ListClients) listOptions(cfg *Config, extra int) []etagclient.Option {
	opts := make([]etagclient.Option, 0, len(r.Options)+len(cfg.opts)+extra)
	opts = append(opts, r.Options...)
	return append(opts, cfg.opts...)
}

// options are every option of the client of cfg's claim, whose document
// is in bucket: the shared ones, the list's, its fence and its audit.
func (r *ListClients) options(cfg *Config, bucket int) []etagclient.Option {
	opts := append(r.listOptions(cfg, 2), etagclient.WithFence(bucketFence{owner: r.Owner, bucket: bucket}))
	if r.Audit != nil {
		opts = append(opts, etagclient.WithExtraObserver(r.Audit.Observer(cfg.claim)))
	}
	return opts
}

// Forget drops what was resolved for a list that is gone, and its
// per-list counters. The client of a claim it held stays while changes are
// in flight in it (a list that takes the claim over goes on with it, in
// order); once idle and held by no list, it is closed.
func (r *ListClients) Forget(ref Ref) {
	r.Resolver.forget(ref)
	metrics.ForgetList(ref.metric())
	r.mu.Lock()
	var idle []*etagclient.Client
	for claim, cc := range r.byClaim {
		if cc.holder == ref {
			cc.holder = Ref{}
		}
		if cc.holder == (Ref{}) && cc.client.Idle() {
			idle = append(idle, cc.client)
			delete(r.byClaim, claim)
		}
	}
	r.mu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// Sweep closes the clients that hold nothing in flight and whose document
// this replica no longer owns (its bucket moved to another replica): each
// keeps a copy of its document, and a replica should keep only those of the
// documents it writes. A client is made again when its document comes
// back.
func (r *ListClients) Sweep() {
	r.mu.Lock()
	var idle []*etagclient.Client
	for claim, cc := range r.byClaim {
		if !r.Owner.Owns(cc.bucket) && cc.client.Idle() {
			idle = append(idle, cc.client)
			delete(r.byClaim, claim)
		}
	}
	r.mu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// Close closes every client.
func (r *ListClients) Close() {
	r.mu.Lock()
	clients := r.byClaim
	r.byClaim = nil
	r.mu.Unlock()
	for _, cc := range clients {
		cc.client.Close()
	}
}
