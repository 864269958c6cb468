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
	case c.ReadRate < 0 || c.ReadRate > 1 || c.DeadlineRate < 0 || c.DeadlineRate > 1:
		return fmt.Errorf("torture: rates must be in [0, 1]")
	case c.OpTimeout <= 0 || c.CheckTimeout <= 0 || (c.DeadlineRate > 0 && c.MaxDeadline <= 0):
		return fmt.Errorf("torture: timeouts must be positive")
	}
	return c.Faults.Validate()
}

// workers is the total number of worker goroutines.
func (c Config) workers() int { return c.Replicas * c.WorkersPerReplica }
