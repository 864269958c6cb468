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
	"net/http"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// DefaultFaults are the faults of a torture round: 5% 503 with Retry-After,
// 2% connections reset before anything is processed and 5% writes that
// commit and then drop the connection.
var DefaultFaults = fakeapi.Faults{
	Rate503:               0.05,
	RetryAfter:            time.Second, // capped by Config.MaxRetryAfter on the client
	RateResetBeforeCommit: 0.02,
	RateCommitThenDrop:    0.05,
}

// DefaultConflictPolicy retries fast and long: a torture round must not end
// a change with ErrConflictRetriesExhausted just because three replicas keep
// winning against each other.
var DefaultConflictPolicy = etagclient.ConflictPolicy{
	InitialInterval:     time.Millisecond,
	MaxInterval:         20 * time.Millisecond,
	Multiplier:          2,
	RandomizationFactor: 0.5,
	MaxAttempts:         1000,
	MaxElapsedTime:      time.Minute,
}

// Config describes one torture round. Build it with DefaultConfig and
// change fields as needed.
type Config struct {
	// Seed drives the fake server's faults and latency and every random
	// choice of the workers.
	Seed int64
	// Replicas is the number of independent clients (default 3). Each has
	// its own HTTP transport and one etagclient.Client per list.
	Replicas int
	// WorkersPerReplica is the number of goroutines per replica (default 16).
	WorkersPerReplica int
	// Lists is the number of list documents (default 3).
	Lists int
	// Bystanders is the number of IDs each list starts with that nobody
	// touches (default 50).
	Bystanders int
	// Phases is the number of phases of a round (default 3). After each
	// phase the workers wait for each other and every replica reads every
	// list: those quiescent reads are checked against the set model.
	Phases int
	// OpsPerPhase is the number of operations each worker makes per phase
	// (default 12).
	OpsPerPhase int
	// ReadRate is the share of operations that are Reads, made concurrently
	// with the changes (default 0.1).
	ReadRate float64
	// DeadlineRate is the share of changes made with a deadline drawn from
	// (0, MaxDeadline], which may end them while in flight (default 0.03).
	DeadlineRate float64
	// MaxDeadline bounds those deadlines (default 4ms).
	MaxDeadline time.Duration
	// HotRate is the share of operations, reads excepted, that add and
	// remove hot IDs: a few IDs per list and phase that several
	// goroutines change at once, so that an addition and a removal of the
	// same ID meet in one client's cycle (default 0.2). See hot.go.
	HotRate float64
	// HotSharedRate is the share of the hot operations made on the hot IDs
	// that every replica changes (default 0.5). The others change the hot
	// IDs of the worker's own replica, which no other replica touches:
	// their submission order is recorded and checked.
	HotSharedRate float64
	// HotIDs is the number of hot IDs per list and phase that the replicas
	// share, and the number each replica owns (default 2).
	HotIDs int
	// HotPairRate is the share of hot operations that submit an addition
	// and a removal of the same ID back to back, in either order, and then
	// wait for both (default 0.5). The others make one change.
	HotPairRate float64
	// HotDeadlineRate is the share of hot operations made with a deadline
	// drawn from (0, MaxDeadline] (default 0.1).
	HotDeadlineRate float64
	// OpTimeout bounds every other operation (default 30s).
	OpTimeout time.Duration
	// Faults are the server's faults during the phases (default
	// DefaultFaults). They stop before the final reads.
	Faults fakeapi.Faults
	// LatencyJitter is the server's latency, uniform in [0, LatencyJitter)
	// (default 2ms).
	LatencyJitter time.Duration
	// MaxRetryAfter caps every transport wait of the clients, Retry-After
	// included (default 5ms).
	MaxRetryAfter time.Duration
	// Conflict is the clients' conflict policy (default
	// DefaultConflictPolicy).
	Conflict etagclient.ConflictPolicy
	// CheckTimeout bounds each porcupine check (default 30s). A check that
	// times out is Unknown, which fails the round.
	CheckTimeout time.Duration
	// ArtifactDir receives visualisations and histories of failed rounds.
	// Empty means a new directory made by os.MkdirTemp("",
	// "listkeeper-torture-*") on the first violation.
	ArtifactDir string

	// wrap, when set by a test, puts a handler between the clients and the
	// fake server, to show that the checks catch a broken server.
	wrap func(api *fakeapi.Server, next http.Handler) http.Handler
}

// DefaultConfig returns the configuration of a round with the given seed.
func DefaultConfig(seed int64) Config {
	return Config{
		Seed:              seed,
		Replicas:          3,
		WorkersPerReplica: 16,
		Lists:             3,
		Bystanders:        50,
		Phases:            3,
		OpsPerPhase:       12,
		ReadRate:          0.1,
		DeadlineRate:      0.03,
		MaxDeadline:       4 * time.Millisecond,
		HotRate:           0.2,
		HotSharedRate:     0.5,
		HotIDs:            2,
		HotPairRate:       0.5,
		HotDeadlineRate:   0.1,
		OpTimeout:         30 * time.Second,
		Faults:            DefaultFaults,
		LatencyJitter:     2 * time.Millisecond,
		MaxRetryAfter:     5 * time.Millisecond,
		Conflict:          DefaultConflictPolicy,
		CheckTimeout:      30 * time.Second,
	}
}

func (c Config) validate() error {
	switch {
	case c.Replicas < 1 || c.WorkersPerReplica < 1 || c.Lists < 1:
		return fmt.Errorf("torture: replicas, workers and lists must be positive")
	case c.Bystanders < 0 || c.Phases < 1 || c.OpsPerPhase < 1:
		return fmt.Errorf("torture: bystanders must not be negative, phases and ops per phase must be positive")
	case !inUnit(c.ReadRate) || !inUnit(c.DeadlineRate) || !inUnit(c.HotRate) || !inUnit(c.HotSharedRate) ||
		!inUnit(c.HotPairRate) || !inUnit(c.HotDeadlineRate):
		return fmt.Errorf("torture: rates must be in [0, 1]")
	case c.HotRate > 0 && c.HotIDs < 1:
		return fmt.Errorf("torture: hot operations need at least one hot ID")
	case c.OpTimeout <= 0 || c.CheckTimeout <= 0 || ((c.DeadlineRate > 0 || c.HotDeadlineRate > 0) && c.MaxDeadline <= 0):
		return fmt.Errorf("torture: timeouts must be positive")
	}
	return c.Faults.Validate()
}

func inUnit(r float64) bool { return r >= 0 && r <= 1 }

// workers is the total number of worker goroutines.
func (c Config) workers() int { return c.Replicas * c.WorkersPerReplica }
