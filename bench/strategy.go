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
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"k8s.io/client-go/util/retry"
)

// strategy builds the per-replica removers of one way of changing the list.
type strategy interface {
	// name is the strategy's name in reports.
	name() string
	// variant qualifies the name, such as a conflict policy; "" for none.
	variant() string
	// blindWrites reports whether the server must accept PUTs without
	// If-Match.
	blindWrites() bool
	// newReplica builds the state of one replica: env holds its own HTTP
	// client, used by nothing else.
	newReplica(env replicaEnv) (remover, error)
}

// replicaEnv is what a replica gets: its own HTTP client and the list URL.
type replicaEnv struct {
	url  string
	http *http.Client
}

// remover removes one ID from the list and reports whether it succeeded. It
// is shared by the goroutines of one replica.
type remover interface {
	remove(ctx context.Context, id string) error
	// stats returns strategy-specific counters; nil when there are none.
	stats() *productStats
	close()
}

// newStrategy returns the strategy with the given name, using policy for
// listkeeper.
func newStrategy(name string, policy Policy) (strategy, error) {
	switch name {
	case StrategyBlind:
		return blindStrategy{}, nil
	case StrategyMutex:
		return mutexStrategy{}, nil
	case StrategyOCCDefault:
		return occDefaultStrategy{}, nil
	case StrategyOCCJitter:
		return occJitterStrategy{}, nil
	case StrategyListkeeper:
		return listkeeperStrategy{policy: policy}, nil
	}
	return nil, fmt.Errorf("unknown strategy %q", name)
}

// blindStrategy reads, removes and writes back without a precondition.
type blindStrategy struct{}

func (blindStrategy) name() string      { return StrategyBlind }
func (blindStrategy) variant() string   { return "" }
func (blindStrategy) blindWrites() bool { return true }
func (blindStrategy) newReplica(env replicaEnv) (remover, error) {
	return &blindRemover{c: rawClient(env)}, nil
}

type blindRemover struct {
	c  rawClient
	mu *sync.Mutex // nil: no lock
}

func (b *blindRemover) remove(ctx context.Context, id string) error {
	if b.mu != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
	}
	items, _, err := b.c.get(ctx)
	if err != nil {
		return err
	}
	return b.c.put(ctx, without(items, id), "")
}

func (b *blindRemover) stats() *productStats { return nil }
func (b *blindRemover) close()               {}

// mutexStrategy is blind under one mutex per replica.
type mutexStrategy struct{}

func (mutexStrategy) name() string      { return StrategyMutex }
func (mutexStrategy) variant() string   { return "" }
func (mutexStrategy) blindWrites() bool { return true }
func (mutexStrategy) newReplica(env replicaEnv) (remover, error) {
	return &blindRemover{c: rawClient(env), mu: &sync.Mutex{}}, nil
}

// occRemover is one optimistic read-modify-write attempt.
type occRemover struct{ c rawClient }

func (o occRemover) attempt(ctx context.Context, id string) error {
	items, etag, err := o.c.get(ctx)
	if err != nil {
		return err
	}
	if etag == "" {
		return errors.New("GET answered without an ETag")
	}
	next := without(items, id)
	if len(next) == len(items) {
		return nil // already holds
	}
	return o.c.put(ctx, next, etag)
}

func (o occRemover) stats() *productStats { return nil }
func (o occRemover) close()               {}

// occDefaultStrategy retries 412s with client-go's retry.DefaultRetry, as
// retry.RetryOnConflict does for Kubernetes objects.
type occDefaultStrategy struct{}

func (occDefaultStrategy) name() string      { return StrategyOCCDefault }
func (occDefaultStrategy) variant() string   { return "" }
func (occDefaultStrategy) blindWrites() bool { return false }
func (occDefaultStrategy) newReplica(env replicaEnv) (remover, error) {
	return occDefaultRemover{occRemover{rawClient(env)}}, nil
}

type occDefaultRemover struct{ occRemover }

func (o occDefaultRemover) remove(ctx context.Context, id string) error {
	// retry.OnError sleeps without a context, but DefaultRetry's five
	// steps of about 10 ms bound it.
	return retry.OnError(retry.DefaultRetry,
		func(err error) bool { return errors.Is(err, errConflict) && ctx.Err() == nil },
		func() error { return o.attempt(ctx, id) })
}

// Jitter policy of occ-jitter: exponential from 5 ms, doubling, ±50%,
// capped at 1 s a wait, no attempt limit; the run's time cap bounds it.
const (
	occJitterInitial = 5 * time.Millisecond
	occJitterMax     = time.Second
)

// occJitterStrategy retries 412s with exponential backoff and jitter until
// success.
type occJitterStrategy struct{}

func (occJitterStrategy) name() string      { return StrategyOCCJitter }
func (occJitterStrategy) variant() string   { return "" }
func (occJitterStrategy) blindWrites() bool { return false }
func (occJitterStrategy) newReplica(env replicaEnv) (remover, error) {
	return occJitterRemover{occRemover{rawClient(env)}}, nil
}

type occJitterRemover struct{ occRemover }

func (o occJitterRemover) remove(ctx context.Context, id string) error {
	eb := &backoff.ExponentialBackOff{
		InitialInterval:     occJitterInitial,
		RandomizationFactor: 0.5,
		Multiplier:          2,
		MaxInterval:         occJitterMax,
		MaxElapsedTime:      0, // until success or the time cap
		Stop:                backoff.Stop,
		Clock:               backoff.SystemClock,
	}
	eb.Reset()
	return backoff.Retry(func() error {
		err := o.attempt(ctx, id)
		if err != nil && !errors.Is(err, errConflict) {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(eb, ctx))
}
