package etagclient_test

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestFencedChangeIsNotReappliedAfterALostWrite: a change submitted with
// SubmitFenced whose owner gave it up while its write was in flight is not
// applied again after that write lost (412): a zombie replica must not
// write for a bucket it no longer owns. A change whose owner still holds it
// is retried as usual.
func TestFencedChangeIsNotReappliedAfterALostWrite(t *testing.T) {
	for _, stillOwned := range []bool{false, true} {
		name := map[bool]string{false: "owner gave it up: ErrFenced, no second PUT", true: "still owned: retried and committed"}[stillOwned]
		t.Run(name, func(t *testing.T) {
			var owned atomic.Bool
			owned.Store(true)
			srv := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
				if r.Method != http.MethodPut || nth > 1 {
					return false
				}
				// The first write loses to another writer, and meanwhile
				// the bucket moves away (or does not).
				s.otherWriter(nil)
				owned.Store(stillOwned)
				w.WriteHeader(http.StatusPreconditionFailed)
				return true
			})
			c, _ := ownedClient(t, srv.url(), etagclient.WithConflictPolicy(tinyPolicy(10)), noTransportRetries)
			p, err := c.SubmitFenced(etagclient.Change{Add: []string{"x"}}, owned.Load, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = waitDone(t, "fenced add", p)
			if stillOwned {
				if err != nil {
					t.Fatalf("err = %v, want the change committed after the 412", err)
				}
				if got := srv.stored(); got != `["a","x"]` {
					t.Fatalf("stored %s, want [\"a\",\"x\"]", got)
				}
				return
			}
			if !errors.Is(err, etagclient.ErrFenced) {
				t.Fatalf("err = %v, want ErrFenced", err)
			}
			if n := srv.count(http.MethodPut); n != 1 {
				t.Fatalf("%d PUTs, want 1: the fenced change was written again", n)
			}
			if got := srv.stored(); got != `["a"]` {
				t.Fatalf("stored %s, want the list untouched", got)
			}
		})
	}
}

// TestFencedChangeIsNotWrittenOnceOwnershipEnded: the fence is asked before
// the first write too. A change that waited (in the queue, behind the
// batch interval) while its caller lost the right to make it fails with
// ErrFenced and is never sent; a change that already holds on the read is
// done, since nothing needs writing.
func TestFencedChangeIsNotWrittenOnceOwnershipEnded(t *testing.T) {
	srv := startListServer(t, `["a"]`, nil)
	c, _ := ownedClient(t, srv.url(), noTransportRetries)
	var owned atomic.Bool // false from the start: the change waited too long
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"x"}}, owned.Load, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "fenced add", p); !errors.Is(err, etagclient.ErrFenced) {
		t.Fatalf("err = %v, want ErrFenced", err)
	}
	if n := srv.count(http.MethodPut); n != 0 {
		t.Fatalf("%d PUTs, want none: a fenced change was written", n)
	}
	held, err := c.SubmitFenced(etagclient.Change{Add: []string{"a"}}, owned.Load, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "add that already holds", held); err != nil {
		t.Fatalf("err = %v, want nil: the ID is already on the list", err)
	}
	if got := srv.stored(); got != `["a"]` {
		t.Fatalf("stored %s, want the list untouched", got)
	}
}

// TestWriteErrorsCountCycles: the write outcomes count cycles, so that
// listkeeper_list_writes_total{result="error"} over all results is a share
// of cycles. A cycle whose many changes all run out of conflict retries is
// one error, and a fenced change (its bucket moved) is none.
func TestWriteErrorsCountCycles(t *testing.T) {
	srv := startListServer(t, `[]`, func(s *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
		if r.Method != http.MethodPut {
			return false
		}
		s.otherWriter(nil) // every write loses to another writer
		w.WriteHeader(http.StatusPreconditionFailed)
		return true
	})
	var obs etagclient.Counters
	c, _ := ownedClient(t, srv.url(), etagclient.WithConflictPolicy(tinyPolicy(2)), noTransportRetries,
		etagclient.WithObserver(&obs), etagclient.WithBatchInterval(50*time.Millisecond))
	var fenced atomic.Bool
	fenced.Store(true)
	var pending []*etagclient.Pending
	for i := range 10 {
		p, err := c.SubmitFenced(etagclient.Change{Add: []string{fmt.Sprintf("id-%d", i)}}, func() bool { return true }, nil)
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, p)
	}
	for _, p := range pending {
		if _, err := waitDone(t, "add", p); !errors.Is(err, etagclient.ErrConflictRetriesExhausted) {
			t.Fatalf("err = %v, want ErrConflictRetriesExhausted", err)
		}
	}
	if batches, errs := obs.Batches.Load(), obs.Errors.Load(); errs < 1 || errs > batches/2 {
		t.Fatalf("%d errors for %d PUTs of 10 changes that ran out in 2 attempts each: want one per failed cycle", errs, batches)
	}
	before := obs.Errors.Load()
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"moved"}}, func() bool { return !fenced.Load() }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "fenced add", p); !errors.Is(err, etagclient.ErrFenced) {
		t.Fatalf("err = %v, want ErrFenced", err)
	}
	if n := obs.Errors.Load() - before; n != 0 {
		t.Fatalf("a fenced change counted %d write errors, want 0", n)
	}
}
