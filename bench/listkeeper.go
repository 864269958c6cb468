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
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// Policy is a named etagclient conflict policy.
type Policy struct {
	// Name is "default" or the spec it was parsed from.
	Name   string                    `json:"name"`
	Policy etagclient.ConflictPolicy `json:"policy"`
}

// ParsePolicy parses "default" (etagclient.DefaultConflictPolicy) or
// "initial/max/randomization", such as "10ms/500ms/0.5"; the multiplier,
// attempt and time limits stay those of the default.
func ParsePolicy(spec string) (Policy, error) {
	spec = strings.TrimSpace(spec)
	p := etagclient.DefaultConflictPolicy
	if spec == "" || spec == "default" {
		return Policy{Name: "default", Policy: p}, nil
	}
	parts := strings.Split(spec, "/")
	if len(parts) != 3 {
		return Policy{}, fmt.Errorf("policy %q: want default or initial/max/randomization, such as 10ms/500ms/0.5", spec)
	}
	var err error
	if p.InitialInterval, err = time.ParseDuration(parts[0]); err != nil {
		return Policy{}, fmt.Errorf("policy %q: initial: %w", spec, err)
	}
	if p.MaxInterval, err = time.ParseDuration(parts[1]); err != nil {
		return Policy{}, fmt.Errorf("policy %q: max: %w", spec, err)
	}
	if p.RandomizationFactor, err = strconv.ParseFloat(parts[2], 64); err != nil {
		return Policy{}, fmt.Errorf("policy %q: randomization: %w", spec, err)
	}
	if p.InitialInterval <= 0 || p.MaxInterval < p.InitialInterval || p.RandomizationFactor < 0 || p.RandomizationFactor > 1 {
		return Policy{}, fmt.Errorf("policy %q: need 0 < initial <= max and randomization in [0,1]", spec)
	}
	return Policy{Name: spec, Policy: p}, nil
}

// listkeeperStrategy is the product: one etagclient.Client per replica.
type listkeeperStrategy struct {
	policy Policy
	// emulate holds emulations of proposed client changes; zero for the
	// product as it is.
	emulate emulation
}

func (listkeeperStrategy) name() string { return StrategyListkeeper }
func (s listkeeperStrategy) variant() string {
	return s.policy.Name + s.emulate.suffix()
}
func (listkeeperStrategy) blindWrites() bool { return false }
func (s listkeeperStrategy) newReplica(env replicaEnv) (remover, error) {
	counters := &etagclient.Counters{}
	c, err := etagclient.New(env.url,
		etagclient.WithBatchInterval(0),
		etagclient.WithHTTPClient(env.http),
		etagclient.WithObserver(counters),
		etagclient.WithConflictPolicy(s.policy.Policy))
	if err != nil {
		return nil, err
	}
	return &listkeeperRemover{c: c, counters: counters, yield: s.emulate.yield}, nil
}

type listkeeperRemover struct {
	c        *etagclient.Client
	counters *etagclient.Counters
	yield    bool
}

func (l *listkeeperRemover) remove(ctx context.Context, id string) error {
	ch := etagclient.Change{Remove: []string{id}}
	if !l.yield {
		_, err := l.c.Update(ctx, ch)
		return err
	}
	return l.yieldRemove(ctx, ch)
}

func (l *listkeeperRemover) stats() *productStats {
	c := l.counters
	return &productStats{
		Requests:  c.Requests.Load(),
		Puts:      c.Puts.Load(),
		Gets:      c.Gets.Load(),
		Status412: c.PreconditionFailed.Load(),
		Written:   c.Written.Load(),
		Conflicts: c.Conflicts.Load(),
		Batches:   c.Batches.Load(),
		Batched:   c.BatchedChanges.Load(),
	}
}

func (l *listkeeperRemover) close() { l.c.Close() }

// productStats are the product client's own counters (etagclient.Counters)
// for one replica or summed over all.
type productStats struct {
	Requests  int64 `json:"requests"`
	Gets      int64 `json:"gets"`
	Puts      int64 `json:"puts"`
	Status412 int64 `json:"status412"`
	Written   int64 `json:"written"`
	Conflicts int64 `json:"conflicts"`
	// Batches counts PUT attempts; Batched the changes they carried.
	Batches int64 `json:"batches"`
	Batched int64 `json:"batched"`
}

func (p *productStats) add(o *productStats) {
	p.Requests += o.Requests
	p.Gets += o.Gets
	p.Puts += o.Puts
	p.Status412 += o.Status412
	p.Written += o.Written
	p.Conflicts += o.Conflicts
	p.Batches += o.Batches
	p.Batched += o.Batched
}
