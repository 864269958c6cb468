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

package torture

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// itemsPointer is where the IDs live in every torture document.
const itemsPointer = "/items"

// list is one list document of a round.
type list struct {
	idx        int
	path       string
	seed       []byte   // the document as first stored
	bystanders []string // the IDs nobody touches, in order
	pool       idPool   // IDs added and not yet handed to a remover
}

// poolEntry is an ID waiting to be removed, with the replica that added it.
type poolEntry struct {
	id      string
	replica int
}

// idPool holds the IDs that were added and may be removed. It is safe for
// concurrent use.
type idPool struct {
	mu      sync.Mutex
	entries []poolEntry
}

func (p *idPool) put(e poolEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.entries = append(p.entries, e)
}

// take removes and returns a random entry, preferring one added by another
// replica than exclude: cross-replica removals are where lost updates show.
func (p *idPool) take(rng *rand.Rand, exclude int) (poolEntry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.entries) == 0 {
		return poolEntry{}, false
	}
	i := rng.IntN(len(p.entries))
	for try := 0; try < 3 && p.entries[i].replica == exclude; try++ {
		i = rng.IntN(len(p.entries))
	}
	e := p.entries[i]
	p.entries[i] = p.entries[len(p.entries)-1]
	p.entries = p.entries[:len(p.entries)-1]
	return e, true
}

// replica is one independent client process: its own transport, its own
// counters and one etagclient.Client per list.
type replica struct {
	idx       int
	transport *http.Transport
	counters  *etagclient.Counters
	clients   []*etagclient.Client
	seq       atomic.Int64 // the last sequence number of a change of an owned hot ID
}

// round is the state of one torture round while it runs.
type round struct {
	cfg      Config
	api      *fakeapi.Server
	ts       *httptest.Server
	lists    []*list
	hotIDs   [][]*hotIDs // per phase, per list
	replicas []*replica
	rec      *recorder

	mu           sync.Mutex
	crossRemoves int64
}

// seedDocument builds list l's first document: the items array among other
// keys (a decoy "items" inside metadata, odd white space, escapes, numbers
// in exotic forms), so that a write which touches anything outside the
// array shows.
func seedDocument(l, bystanders int) ([]byte, []string) {
	ids := make([]string, bystanders)
	for i := range ids {
		ids[i] = fmt.Sprintf("by-%d-%02d", l, i)
		switch i % 17 {
		case 7:
			ids[i] += "/ü~é"
		case 11:
			ids[i] += `"q"\`
		case 13:
			ids[i] += "<&>"
		}
	}
	quoted := make([]string, len(ids))
	for i, id := range ids {
		b, _ := json.Marshal(id) // escapes <, > and & as \u003c...
		quoted[i] = string(b)
	}
	doc := fmt.Sprintf(`{
  "apiVersion": "listkeeper.dev/v1",  "kind" :"AllowList",
  "metadata": {"name": "list-%d", "items": ["decoy"], "note": "caf\u00e9 \/ \"items\": []"},
  "items" :
    [ %s ],
  "spec": {"ttl": 1.50e1, "nested": [[], {}, null, true, -0.0]},
  "trailer": "items"
}
`, l, strings.Join(quoted, " ,\n      "))
	return []byte(doc), ids
}

// start serves a fresh fake server on 127.0.0.1, seeds the lists and builds
// the replicas.
func start(cfg Config) (*round, error) {
	api, err := fakeapi.New(
		fakeapi.WithFaults(cfg.Faults),
		fakeapi.WithLatency(0, cfg.LatencyJitter),
		fakeapi.WithSeed(cfg.Seed),
		fakeapi.WithHistory(true),
	)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	var h http.Handler = api
	if cfg.wrap != nil {
		h = cfg.wrap(api, api)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	ts.Start()
	r := &round{cfg: cfg, api: api, ts: ts}
	for l := 0; l < cfg.Lists; l++ {
		doc, ids := seedDocument(l, cfg.Bystanders)
		lst := &list{idx: l, path: fmt.Sprintf("/lists/l%d", l), seed: doc, bystanders: ids}
		if _, err := api.Set(lst.path, doc); err != nil {
			ts.Close()
			return nil, err
		}
		r.lists = append(r.lists, lst)
	}
	for p := 0; p < cfg.Phases; p++ {
		var hs []*hotIDs
		for l := range r.lists {
			hs = append(hs, newHotIDs(cfg, p, l))
		}
		r.hotIDs = append(r.hotIDs, hs)
	}
	for i := 0; i < cfg.Replicas; i++ {
		rep, err := r.newReplica(i)
		if err != nil {
			r.close()
			return nil, err
		}
		r.replicas = append(r.replicas, rep)
	}
	r.rec = newRecorder()
	return r, nil
}

func (r *round) newReplica(i int) (*replica, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.Proxy = nil // never leave the loopback
	rep := &replica{idx: i, transport: tr, counters: &etagclient.Counters{}}
	hc := &http.Client{Transport: tr}
	for _, l := range r.lists {
		c, err := etagclient.New(r.ts.URL+l.path,
			etagclient.WithBatchInterval(0),
			etagclient.WithHTTPClient(hc),
			etagclient.WithItemsPointer(itemsPointer),
			etagclient.WithConflictPolicy(r.cfg.Conflict),
			etagclient.WithMaxRetryAfter(r.cfg.MaxRetryAfter),
			etagclient.WithRequestTimeout(10*time.Second),
			etagclient.WithObserver(rep.counters),
		)
		if err != nil {
			rep.close()
			return nil, err
		}
		rep.clients = append(rep.clients, c)
	}
	return rep, nil
}

func (rep *replica) close() {
	for _, c := range rep.clients {
		c.Close()
	}
	rep.transport.CloseIdleConnections()
}

// closeClients ends every client: cycles still carrying abandoned changes
// are cancelled and waited for, so the server's state is final afterwards.
func (r *round) closeClients() {
	for _, rep := range r.replicas {
		rep.close()
	}
}

func (r *round) close() {
	r.closeClients()
	r.ts.Close()
}

// run executes the phases and the final reads.
func (r *round) run(ctx context.Context) error {
	nw := r.cfg.workers()
	rngs := make([]*rand.Rand, nw)
	next := make([]int, nw) // each worker's next ID number
	for w := range rngs {
		rngs[w] = rand.New(rand.NewPCG(uint64(r.cfg.Seed), uint64(w)+1))
	}
	for p := 0; p < r.cfg.Phases; p++ {
		var wg sync.WaitGroup
		for w := 0; w < nw; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.worker(ctx, w, p, rngs[w], &next[w])
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		r.quiescentReads(ctx, false)
	}
	if err := r.api.SetFaults(fakeapi.Faults{}); err != nil {
		return err
	}
	if err := r.api.SetLatency(0, 0); err != nil {
		return err
	}
	r.quiescentReads(ctx, true)
	return ctx.Err()
}

// worker makes the operations of phase p.
func (r *round) worker(ctx context.Context, w, p int, rng *rand.Rand, next *int) {
	rep := r.replicas[w/r.cfg.WorkersPerReplica]
	for i := 0; i < r.cfg.OpsPerPhase && ctx.Err() == nil; i++ {
		l := r.lists[rng.IntN(len(r.lists))]
		if rng.Float64() < r.cfg.ReadRate {
			r.read(ctx, rep, l, w, false, false)
			continue
		}
		if rng.Float64() < r.cfg.HotRate {
			r.hotOp(ctx, rng, rep, l, w, p)
			continue
		}
		if rng.IntN(2) == 0 {
			if e, ok := l.pool.take(rng, rep.idx); ok {
				if e.replica != rep.idx {
					r.mu.Lock()
					r.crossRemoves++
					r.mu.Unlock()
				}
				r.change(ctx, rng, rep, l, w, OpRemove, e.id)
				continue
			}
		}
		id := fmt.Sprintf("id-%d-w%02d-%03d", r.cfg.Seed, w, *next)
		*next++
		if r.change(ctx, rng, rep, l, w, OpAdd, id) != OutcomeFailed {
			l.pool.put(poolEntry{id: id, replica: rep.idx})
		}
	}
}

// change adds or removes one ID through the replica's client and records
// the outcome.
func (r *round) change(ctx context.Context, rng *rand.Rand, rep *replica, l *list, w int, kind OpKind, id string) Outcome {
	timeout := r.cfg.OpTimeout
	if rng.Float64() < r.cfg.DeadlineRate {
		timeout = time.Duration(1 + rng.Int64N(int64(r.cfg.MaxDeadline)))
	}
	opCtx, cancel := context.WithTimeout(ctx, timeout)
	rec := r.update(opCtx, rep, l, w, kind, id)
	cancel()
	r.rec.add(rec)
	return rec.Outcome
}

// update makes one change with Update and returns its record.
func (r *round) update(ctx context.Context, rep *replica, l *list, w int, kind OpKind, id string) Record {
	ch := changeOf(kind, id)
	call := r.rec.now()
	_, err := rep.clients[l.idx].Update(ctx, ch)
	ret := r.rec.now()
	rec := Record{Kind: kind, List: l.idx, ID: id, Replica: rep.idx, Worker: w, Call: call, Return: ret, Outcome: classify(ch, err)}
	if err != nil {
		rec.Err = err.Error()
	}
	return rec
}

// classify maps what Update returned to an outcome. Only a change the
// client refused before queueing it provably did not apply. Every other
// error is ambiguous: the client does not tell a change withdrawn before
// its cycle (never applied) from one whose cycle was still running when the
// deadline came (it may still be applied) other than by the error's text,
// and an error after a write attempt (ErrUnreachable,
// ErrConflictRetriesExhausted) may follow an earlier attempt that committed.
func classify(ch etagclient.Change, err error) Outcome {
	switch {
	case err == nil:
		return OutcomeOK
	case ch.Validate() != nil:
		return OutcomeFailed
	default:
		return OutcomeAmbiguous
	}
}

// read reads list l through the replica's client and records what it saw.
func (r *round) read(ctx context.Context, rep *replica, l *list, w int, quiescent, final bool) {
	opCtx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
	defer cancel()
	call := r.rec.now()
	snap, err := rep.clients[l.idx].Read(opCtx)
	ret := r.rec.now()
	rec := Record{Kind: OpRead, List: l.idx, Replica: rep.idx, Worker: w, Call: call, Return: ret, Quiescent: quiescent, Final: final}
	if err != nil {
		rec.Outcome, rec.Err = OutcomeFailed, err.Error()
	} else {
		rec.Items = append([]string{}, snap.Items...)
	}
	r.rec.add(rec)
}

// quiescentReads has every replica read every list while no worker runs:
// the lists at once, the replicas one after another, so that the reads of
// one list never overlap (see checkSetModel).
func (r *round) quiescentReads(ctx context.Context, final bool) {
	var wg sync.WaitGroup
	for _, l := range r.lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, rep := range r.replicas {
				r.read(ctx, rep, l, -1, true, final)
			}
		}()
	}
	wg.Wait()
}
