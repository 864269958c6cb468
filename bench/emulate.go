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

package bench

import (
	"context"
	"runtime"
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// emulation describes changes to the product client that the benchmark
// emulates from the outside, through the client's public API and its HTTP
// transport, so that their effect can be measured before anyone changes
// the client. They are not the product's behavior.
type emulation struct {
	// yield: let callers woken by a completed batch submit their next
	// change before the client takes the next batch (see yieldRemove).
	yield bool
}

// yieldSuffix on a sweep spec selects the yield emulation, such as
// "default+yield".
const yieldSuffix = "+yield"

func (e emulation) suffix() string {
	if e.yield {
		return yieldSuffix
	}
	return ""
}

// parseVariant parses a sweep spec: a policy (see ParsePolicy), optionally
// followed by "+yield".
func parseVariant(spec string) (listkeeperStrategy, error) {
	base, yield := strings.CutSuffix(strings.TrimSpace(spec), yieldSuffix)
	p, err := ParsePolicy(base)
	return listkeeperStrategy{policy: p, emulate: emulation{yield: yield}}, err
}

// yieldRemove submits the change with a completion callback that calls
// runtime.Gosched. The client finishes a batch's changes one by one and
// then takes the next batch; yielding after each lets the caller just woken
// submit its next change first, so it joins the next batch instead of the
// one after. It emulates a client that lets woken callers resubmit before
// it takes the next batch.
func (l *listkeeperRemover) yieldRemove(ctx context.Context, ch etagclient.Change) error {
	p, err := l.c.Submit(ch, runtime.Gosched)
	if err != nil {
		return err
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err = p.Result()
	return err
}
