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

package stores_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tortureSeed returns the seed of a torture: tortureSeedEnv's value, or
// tortureDefaultSeed. The seed drives the fault hook's dice; the requests
// the dice are rolled for come in the order the goroutines make them, so a
// replay is the same fault plan, not the same history.
func tortureSeed(t *testing.T) uint64 {
	t.Helper()
	raw := os.Getenv(tortureSeedEnv)
	if raw == "" {
		return tortureDefaultSeed
	}
	seed, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q is not a seed: %v", tortureSeedEnv, raw, err)
	}
	return seed
}

// faultKind is a fault a torture injects.
type faultKind string

// The faults of the tortures; each fake injects its own spelling of them.
const (
	faultThrottled   faultKind = "throttled"
	faultUnavailable faultKind = "503"
	faultInternal    faultKind = "500"
	// faultPropagating is WAF's WAFUnavailableEntityException.
	faultPropagating faultKind = "propagating"
	// faultDropBefore closes the connection before the request is served.
	faultDropBefore faultKind = "drop-before"
	// faultDropAfter serves the request and closes the connection before
	// the answer: a write lands, and its client cannot know.
	faultDropAfter faultKind = "drop-after"
)

// faultDice picks the requests a fault hook fails, and the fault, from one
// seeded source. The kinds are dealt per operation from a shuffled deck of
// all of them, so that every kind of fault comes once in every len(kinds)
// faults of an operation: a run that injects a few dozen faults injects
// each kind, and the test's checks that each kind happened do not depend
// on luck. It counts what it dealt by kind and operation. It is safe for
// concurrent use.
type faultDice struct {
	kinds []faultKind
	rate  float64

	mu     sync.Mutex
	rnd    *rand.Rand
	decks  map[string][]faultKind // by operation: the kinds left to deal
	counts map[string]int64       // by kind+" "+operation
}

func newFaultDice(seed uint64, rate float64, kinds ...faultKind) *faultDice {
	return &faultDice{kinds: kinds, rate: rate, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		decks: map[string][]faultKind{}, counts: map[string]int64{}}
}

// roll decides whether a request of op fails, and how: it fails with the
// dice's rate, or always when must (a fault that outlasts the client's
// retries), with the next kind of op's deck.
func (d *faultDice) roll(op string, must bool) (faultKind, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !must && d.rnd.Float64() >= d.rate {
		return "", false
	}
	deck := d.decks[op]
	if len(deck) == 0 {
		deck = slices.Clone(d.kinds)
		d.rnd.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	}
	k := deck[0]
	d.decks[op] = deck[1:]
	d.counts[string(k)+" "+op]++
	return k, true
}

// chance reports true with probability p, from the dice's source.
func (d *faultDice) chance(p float64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rnd.Float64() < p
}

// count returns how many faults of kind the dice picked for op ("" for
// every operation).
func (d *faultDice) count(kind faultKind, op string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	for key, c := range d.counts {
		k, o, _ := strings.Cut(key, " ")
		if k == string(kind) && (op == "" || o == op) {
			n += c
		}
	}
	return n
}

// summary lists the faults picked, by kind and operation, sorted.
func (d *faultDice) summary() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range d.counts {
			if !yield(k) {
				return
			}
		}
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, d.counts[k]))
	}
	return strings.Join(parts, ", ")
}
