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

package harness

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrTimeout is returned by Poll when its check never succeeded in time.
var ErrTimeout = errors.New("timed out")

// fatalError wraps a check's error that must end Poll at once.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// Fatal marks a check's error as one that ends Poll at once; other errors
// of a check only mean "not yet".
func Fatal(err error) error { return &fatalError{err} }

// Poll calls check every interval until it reports done, check fails
// fatally (see Fatal), a child of sup exits early (sup may be nil), ctx
// ends or timeout passes (ErrTimeout). check gets a context that ends with
// the timeout.
func Poll(ctx context.Context, sup *Supervisor, timeout, interval time.Duration, check func(context.Context) (bool, error)) error {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		done, err := check(pctx)
		if fatal := (*fatalError)(nil); errors.As(err, &fatal) {
			return fatal.err
		}
		if done {
			return nil
		}
		select {
		case <-sup.Died():
			return sup.Err()
		case <-pctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w after %v", ErrTimeout, timeout)
		case <-tick.C:
		}
	}
}
