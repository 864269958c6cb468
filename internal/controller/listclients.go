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
	"sync"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/metrics"
)

// ListClients keeps one combining ETag client per claim (document and items
// pointer) per process. Only a claim's holder writes it, and its writes go
// through that one client, in submission order, whatever configuration
// (URL, headers, credentials) it carries: a changed configuration, or a new
// holder's, is swapped in between two cycles (etagclient.Reconfigure), so a
// write in flight finishes as it began and no change overtakes another.
// Every client is fenced by this replica's right to act on the document's
// bucket. It is safe for concurrent use.
type ListClients struct {
	// Options are passed to every client (observer, timeouts, backoff).
	Options []etagclient.Option
	// Audit, when set, logs every committed write of every client.
	Audit *Audit
	// Owner fences every client's writes (see bucketFence).
	Owner Owner

	resolver *resolver

	mu      sync.Mutex
	byClaim map[string]*claimClient
}

// claimClient is the client of one claim.
type claimClient struct {
	client *etagclient.Client
	hash   string  // the configuration it carries (listConfig.hash)
	holder listRef // the list whose configuration that is
	// obs counts the client's requests and writes under its holder
	// (listkeeper_http_requests_total, listkeeper_list_writes_total).
	obs *metrics.ListObserver
	// bucket is the bucket of the document.
	bucket int
}

// resolve returns l's configuration (see resolver.resolve).
func (r *ListClients) resolve(ctx context.Context, l v1alpha1.List) (*listConfig, error) {
	return r.resolver.resolve(ctx, l)
}

// Client returns the client of cfg's claim, carrying cfg, which is the
// configuration of the claim's holder, holder.
func (r *ListClients) Client(cfg *listConfig, holder listRef) (*etagclient.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byClaim == nil {
		r.byClaim = map[string]*claimClient{}
	}
	cc, ok := r.byClaim[cfg.claim]
	switch {
	case !ok:
		obs := &metrics.ListObserver{}
		c, err := etagclient.New(cfg.rawURL, append(r.options(cfg), etagclient.WithExtraObserver(obs))...)
		if err != nil {
			return nil, &configError{reason: v1alpha1.ReasonInvalidSpec, msg: err.Error()}
		}
		cc = &claimClient{client: c, hash: cfg.hash, obs: obs, bucket: r.Owner.Bucket(DocumentBucketKey(cfg.document))}
		r.byClaim[cfg.claim] = cc
	case cc.hash != cfg.hash:
		if err := cc.client.Reconfigure(cfg.rawURL, r.options(cfg)...); err != nil {
			return nil, &configError{reason: v1alpha1.ReasonInvalidSpec, msg: err.Error()}
		}
		cc.hash = cfg.hash
	}
	cc.holder = holder
	cc.obs.SetList(holder.metric())
	return cc.client, nil
}

// Probe reads the document of cfg with a client of its own, made for this
// one read and closed after it: cfg's configuration (URL, headers,
// credentials) is used for nothing else. A list that has not earned its
// place in a claim (see hasStanding) proves with it that it can read the
// document; the claim's client carries the holder's configuration, and
// must neither lend it to another list nor take that list's on.
func (r *ListClients) Probe(ctx context.Context, cfg *listConfig) (etagclient.Snapshot, error) {
	opts := make([]etagclient.Option, 0, len(r.Options)+len(cfg.opts))
	opts = append(opts, r.Options...)
	opts = append(opts, cfg.opts...)
	c, err := etagclient.New(cfg.rawURL, opts...)
	if err != nil {
		return etagclient.Snapshot{}, &configError{reason: v1alpha1.ReasonInvalidSpec, msg: err.Error()}
	}
	defer c.Close()
	return c.Read(ctx)
}

// options are every option of the client of cfg's claim: the shared ones,
// the list's, its fence and its audit.
func (r *ListClients) options(cfg *listConfig) []etagclient.Option {
	opts := make([]etagclient.Option, 0, len(r.Options)+len(cfg.opts)+2)
	opts = append(opts, r.Options...)
	opts = append(opts, cfg.opts...)
	bucket := r.Owner.Bucket(DocumentBucketKey(cfg.document))
	return append(opts, etagclient.WithFence(bucketFence{owner: r.Owner, bucket: bucket}), r.Audit.option(cfg.claim))
}

// Forget drops what was resolved for a list that is gone, and its
// per-list counters. The client of a claim it held stays while changes are
// in flight in it (a list that takes the claim over goes on with it, in
// order); once idle and held by no list, it is closed.
func (r *ListClients) Forget(ref listRef) {
	r.resolver.forget(ref)
	metrics.ForgetList(ref.metric())
	r.mu.Lock()
	var idle []*etagclient.Client
	for claim, cc := range r.byClaim {
		if cc.holder == ref {
			cc.holder = listRef{}
		}
		if cc.holder == (listRef{}) && cc.client.Idle() {
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
