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
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// Hot IDs are where changes of the same ID meet.
//
// The rest of the workload adds each ID once and removes it only after the
// addition returned, so no client ever holds an addition and a removal of
// one ID at once. Hot operations do. In every phase each list has
// Config.HotIDs shared hot IDs, which every replica adds and removes, and
// Config.HotIDs owned hot IDs per replica, which only that replica
// touches. A hot operation picks one of them (a shared one with
// Config.HotSharedRate) and either makes one change of a random kind, or a
// pair: an addition and a removal in random order, the first submitted with
// Submit and the second right after it, without waiting, with Submit or
// Update; then it waits for both. So the goroutines of one replica put
// additions and removals of the same ID into one cycle of their client,
// and the replicas race each other on the shared ones.
//
// The changes of an owned hot ID are sequenced: the ID's mutex is held from
// taking a sequence number until the submission is done, so the records'
// Seq is the order in which the client received them. Update submits and
// waits in one call, so its mutex is held until it returns; changes of the
// ID by other goroutines then wait, except when the Update ends at its
// deadline, which leaves its change in the client's cycle while later ones
// join it. checkOrder holds those IDs to the client's promise that changes
// of one ID take effect in the order they were submitted.

// hotID is one hot ID of one list in one phase.
type hotID struct {
	id    string
	owner int // the only replica that changes it; -1 when every replica does

	// mu, for an owned ID, is held from taking a sequence number to the
	// end of the submission.
	mu sync.Mutex
}

// hotIDs are the hot IDs of one list in one phase.
type hotIDs struct {
	shared []*hotID
	owned  [][]*hotID // per replica
}

func newHotIDs(cfg Config, phase, l int) *hotIDs {
	h := &hotIDs{owned: make([][]*hotID, cfg.Replicas)}
	for i := 0; i < cfg.HotIDs; i++ {
		h.shared = append(h.shared, &hotID{id: fmt.Sprintf("hot-%d-p%d-l%d-any-%d", cfg.Seed, phase, l, i), owner: -1})
		for rep := range h.owned {
			h.owned[rep] = append(h.owned[rep], &hotID{id: fmt.Sprintf("hot-%d-p%d-l%d-r%d-%d", cfg.Seed, phase, l, rep, i), owner: rep})
		}
	}
	return h
}

// pick returns the hot ID of an operation of replica rep.
func (h *hotIDs) pick(rng *rand.Rand, rep int, sharedRate float64) *hotID {
	if rng.Float64() < sharedRate {
		return h.shared[rng.IntN(len(h.shared))]
	}
	own := h.owned[rep]
	return own[rng.IntN(len(own))]
}

// hotOp makes one hot operation of worker w on list l in phase p.
func (r *round) hotOp(ctx context.Context, rng *rand.Rand, rep *replica, l *list, w, p int) {
	h := r.hotIDs[p][l.idx].pick(rng, rep.idx, r.cfg.HotSharedRate)
	kinds := []OpKind{OpAdd, OpRemove}
	if rng.IntN(2) == 0 {
		kinds[0], kinds[1] = kinds[1], kinds[0]
	}
	if rng.Float64() >= r.cfg.HotPairRate {
		kinds = kinds[:1]
	}
	viaUpdate := rng.IntN(2) == 0 // the last change is made with Update
	timeout := r.cfg.OpTimeout
	if rng.Float64() < r.cfg.HotDeadlineRate {
		timeout = time.Duration(1 + rng.Int64N(int64(r.cfg.MaxDeadline)))
	}
	opCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	owned := h.owner >= 0
	if owned {
		h.mu.Lock()
	}
	var subs []*submission
	for _, kind := range kinds[:len(kinds)-1] {
		subs = append(subs, r.submit(rep, l, w, kind, h.id, r.nextSeq(rep, h)))
	}
	last := kinds[len(kinds)-1]
	if viaUpdate {
		seq := r.nextSeq(rep, h)
		rec := r.update(opCtx, rep, l, w, last, h.id)
		rec.Hot, rec.Seq = true, seq
		r.rec.add(rec)
	} else {
		subs = append(subs, r.submit(rep, l, w, last, h.id, r.nextSeq(rep, h)))
	}
	if owned {
		h.mu.Unlock()
	}
	for _, s := range subs {
		r.await(opCtx, s)
	}
}

// nextSeq returns the sequence number of the next change of h by replica
// rep, or 0 when h is shared. h.mu must be held for an owned ID.
func (r *round) nextSeq(rep *replica, h *hotID) int64 {
	if h.owner < 0 {
		return 0
	}
	return rep.seq.Add(1)
}

func changeOf(kind OpKind, id string) etagclient.Change {
	if kind == OpRemove {
		return etagclient.Change{Remove: []string{id}}
	}
	return etagclient.Change{Add: []string{id}}
}

// submission is a change made with Submit whose outcome is not recorded
// yet.
type submission struct {
	rec     Record
	change  etagclient.Change
	pending *etagclient.Pending // nil when Submit refused the change

	notified chan struct{} // closed by the client's notify, after ret is set
	ret      int64         // when the change completed
}

// submit submits one change of a hot ID through the replica's client
// without waiting for it.
func (r *round) submit(rep *replica, l *list, w int, kind OpKind, id string, seq int64) *submission {
	s := &submission{
		rec:      Record{Kind: kind, List: l.idx, ID: id, Replica: rep.idx, Worker: w, Hot: true, Submitted: true, Seq: seq},
		change:   changeOf(kind, id),
		notified: make(chan struct{}),
	}
	s.rec.Call = r.rec.now()
	p, err := rep.clients[l.idx].Submit(s.change, func() {
		s.ret = r.rec.now()
		close(s.notified)
	})
	if err != nil {
		s.rec.Return, s.rec.Outcome, s.rec.Err = r.rec.now(), classify(s.change, err), err.Error()
		return s
	}
	s.pending = p
	return s
}

// await waits for a submitted change until ctx ends and records its
// outcome: ambiguous when it was not complete by then, since it is still
// in the client's hands.
func (r *round) await(ctx context.Context, s *submission) {
	if s.pending != nil {
		select {
		case <-s.notified:
		case <-ctx.Done():
		}
		select {
		case <-s.notified:
			_, err := s.pending.Result()
			s.rec.Return, s.rec.Outcome = s.ret, classify(s.change, err)
			if err != nil {
				s.rec.Err = err.Error()
			}
		default:
			s.rec.Return, s.rec.Outcome = r.rec.now(), OutcomeAmbiguous
			s.rec.Err = fmt.Sprintf("stopped waiting for a submitted change: %v", ctx.Err())
		}
	}
	r.rec.add(s.rec)
}
