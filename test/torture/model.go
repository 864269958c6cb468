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
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
)

// The porcupine model: a set of strings under add, remove and read.
//
// A partition's IDs are numbered (its universe) and a set is a bitset held
// in a string, so states are comparable and cheap to hash. The effect of an
// ambiguous change may land at any time after its call, or never. Modelled
// naively, "may or may not apply" makes the checker search every
// combination; instead the state carries the ambiguous changes linearized
// so far but not yet applied (pending), and a read may fire any pending
// change that explains a difference between the set and what the read
// returned. Firing a pending change only when a read needs it loses
// nothing: an unfired change can still fire later or never, which allows
// every behaviour that firing it earlier would. So the model stays
// deterministic and the check linear in the common case.
//
// An ambiguous change enters porcupine with the time its caller gave up as
// its return, not at infinity as porcupine's documentation suggests for an
// unknown outcome: what porcupine linearizes is only the change joining
// pending, and joining early allows everything that joining later would,
// since a pending change never has to fire. At infinity, every point after
// its call where it could join would be one more state to search, and
// once changes of one ID make porcupine backtrack, the search explodes.

// opInput is the porcupine input of an operation.
type opInput struct {
	kind      OpKind
	part      int // the partition, for descriptions
	bit       int // add and remove: the ID's number in the partition's universe
	ambiguous bool
	rec       int // index of the Record, for descriptions
}

// opOutput is the porcupine output of an operation.
type opOutput struct {
	items   string // read: the bitset of what it returned
	invalid string // read: why the result can be no state at all (unknown ID, duplicate)
}

// modelState is the state of one partition.
type modelState struct {
	part    int
	items   string // bitset
	pending string // sorted records of pendingWidth bytes: kind, then the bit, big endian
}

const pendingWidth = 5

func pendingRecord(kind OpKind, bit int) string {
	return string([]byte{byte(kind), byte(bit >> 24), byte(bit >> 16), byte(bit >> 8), byte(bit)})
}

func insertPending(pending, rec string) string {
	n := len(pending) / pendingWidth
	i := sort.Search(n, func(i int) bool { return pending[i*pendingWidth:(i+1)*pendingWidth] >= rec })
	return pending[:i*pendingWidth] + rec + pending[i*pendingWidth:]
}

// takePending removes one occurrence of rec and reports whether there was
// one.
func takePending(pending, rec string) (string, bool) {
	for i := 0; i+pendingWidth <= len(pending); i += pendingWidth {
		if pending[i:i+pendingWidth] == rec {
			return pending[:i] + pending[i+pendingWidth:], true
		}
	}
	return pending, false
}

func hasBit(set string, bit int) bool { return set[bit/8]&(1<<(bit%8)) != 0 }

func withBit(set string, bit int, on bool) string {
	if hasBit(set, bit) == on {
		return set
	}
	b := []byte(set)
	b[bit/8] ^= 1 << (bit % 8)
	return string(b)
}

// modelStep is the sequential specification.
func modelStep(st modelState, in opInput, out opOutput) (bool, modelState) {
	st.part = in.part
	switch in.kind {
	case OpAdd, OpRemove:
		if in.ambiguous {
			st.pending = insertPending(st.pending, pendingRecord(in.kind, in.bit))
			return true, st
		}
		st.items = withBit(st.items, in.bit, in.kind == OpAdd)
		return true, st
	default:
		if out.invalid != "" || len(out.items) != len(st.items) {
			return false, st
		}
		pending := st.pending
		for i := 0; i < len(st.items); i++ {
			diff := st.items[i] ^ out.items[i]
			for b := 0; diff != 0; b++ {
				if diff&1 != 0 {
					bit := i*8 + b
					kind := OpRemove
					if hasBit(out.items, bit) {
						kind = OpAdd
					}
					var ok bool
					if pending, ok = takePending(pending, pendingRecord(kind, bit)); !ok {
						return false, st
					}
				}
				diff >>= 1
			}
		}
		st.items, st.pending = out.items, pending
		return true, st
	}
}

// universe numbers the IDs of one partition.
type universe struct {
	name  string
	ids   []string
	index map[string]int
}

func newUniverse(name string) *universe {
	return &universe{name: name, index: map[string]int{}}
}

func (u *universe) bit(id string) int {
	if i, ok := u.index[id]; ok {
		return i
	}
	u.index[id] = len(u.ids)
	u.ids = append(u.ids, id)
	return len(u.ids) - 1
}

// setModel builds the porcupine model over the given universes (one per
// partition), each state a bitset of nbytes starting from init. records
// serve the descriptions of the visualisation.
func setModel(universes []*universe, init string, records []Record, fixed int) porcupine.Model {
	describeSet := func(part int, set string) string {
		if part < 0 || part >= len(universes) {
			return fmt.Sprintf("%d IDs", popcount(set))
		}
		u := universes[part]
		var b strings.Builder
		n, fixedPresent := 0, 0
		for bit, id := range u.ids {
			if !hasBit(set, bit) {
				continue
			}
			n++
			if bit < fixed {
				fixedPresent++
				continue
			}
			b.WriteString(" " + id)
		}
		if fixed > 0 {
			return fmt.Sprintf("%d IDs (%d/%d bystanders)%s", n, fixedPresent, fixed, b.String())
		}
		return fmt.Sprintf("%d IDs:%s", n, b.String())
	}
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			parts := make([][]porcupine.Operation, len(universes))
			for _, op := range history {
				p := op.Input.(opInput).part
				parts[p] = append(parts[p], op)
			}
			out := parts[:0]
			for _, p := range parts {
				if len(p) > 0 {
					out = append(out, p)
				}
			}
			return out
		},
		Init: func() interface{} { return modelState{part: -1, items: init} },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			return modelStep(state.(modelState), input.(opInput), output.(opOutput))
		},
		Equal: func(a, b interface{}) bool { return a.(modelState) == b.(modelState) },
		Hash: func(state interface{}) uint64 {
			st := state.(modelState)
			h := fnv.New64a()
			_, _ = h.Write([]byte(st.items))
			_, _ = h.Write([]byte{0xff})
			_, _ = h.Write([]byte(st.pending))
			return h.Sum64()
		},
		DescribeOperation: func(input, output interface{}) string {
			in, out := input.(opInput), output.(opOutput)
			rec := records[in.rec]
			who := fmt.Sprintf("r%d", rec.Replica)
			if rec.Worker >= 0 {
				who += fmt.Sprintf("/w%d", rec.Worker)
			}
			switch in.kind {
			case OpAdd, OpRemove:
				return fmt.Sprintf("%s %s(%s) %s", who, in.kind, rec.ID, rec.Outcome)
			default:
				if out.invalid != "" {
					return fmt.Sprintf("%s read -> INVALID: %s", who, out.invalid)
				}
				return fmt.Sprintf("%s read -> %s", who, describeSet(in.part, out.items))
			}
		},
		DescribeState: func(state interface{}) string {
			st := state.(modelState)
			s := describeSet(st.part, st.items)
			if st.pending != "" && st.part >= 0 && st.part < len(universes) {
				var p []string
				for i := 0; i < len(st.pending); i += pendingWidth {
					r := st.pending[i : i+pendingWidth]
					bit := int(r[1])<<24 | int(r[2])<<16 | int(r[3])<<8 | int(r[4])
					p = append(p, fmt.Sprintf("%s(%s)", OpKind(r[0]), universes[st.part].ids[bit]))
				}
				s += "; may still land: " + strings.Join(p, " ")
			}
			return s
		},
	}
}

func popcount(set string) int {
	n := 0
	for i := 0; i < len(set); i++ {
		for b := set[i]; b != 0; b &= b - 1 {
			n++
		}
	}
	return n
}

// bitset returns an all-zero bitset able to hold n bits.
func bitset(n int) string { return string(make([]byte, (n+7)/8)) }
