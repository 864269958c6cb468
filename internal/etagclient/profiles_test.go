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

package etagclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// The profile matrix (issue 9) runs the client the way an operator
// deployment does, three replicas of 16 workers with combining, against
// every kind of server that fakeapi mimics, over real HTTP on 127.0.0.1,
// with faults and a little latency so that the replicas' writes really
// race. Each case proves one outcome: every change is kept (nothing lost,
// nothing resurrected, the rest of the document untouched), or every
// change fails fast with a typed error and nothing is written.

// The workload and the server's misbehaviour, shared by every case.
const (
	matrixReplicas = 3
	matrixWorkers  = 16
	// matrixAdds is how many IDs each worker adds; it also removes about
	// as many that other replicas added.
	matrixAdds = 12
	// failFastChanges is how many changes each worker makes in a fails-fast
	// case.
	failFastChanges = 3
	matrixPointer   = "/items"
	// matrixDeadline is each change's caller-side deadline: far more than
	// a change needs, so that one that hits it points at a livelock.
	matrixDeadline = 20 * time.Second
	// failFastBound is how long a change that must fail fast may take.
	failFastBound = 5 * time.Second
)

// matrixFaults are moderate: enough for each kind to happen many times per
// case, few enough that a request seldom meets two in a row.
var matrixFaults = fakeapi.Faults{
	Rate503:               0.04,
	RateResetBeforeCommit: 0.02,
	RateCommitThenDrop:    0.04,
	// Retry-After goes out as 1s; WithMaxRetryAfter caps it.
}

// forcedFaults is a fault hook that makes sure every kind of fault happens
// early in a case, however few requests it takes (webdav's take few), and
// leaves the rest to the seeded rates. then, when not nil, runs first for
// every request, as another writer would.
func forcedFaults(then func(r *http.Request)) fakeapi.FaultHook {
	var puts, gets atomic.Int64
	return func(r *http.Request) fakeapi.Fault {
		if then != nil {
			then(r)
		}
		var kind fakeapi.FaultKind
		switch r.Method {
		case http.MethodPut:
			kind = map[int64]fakeapi.FaultKind{
				2: fakeapi.FaultCommitThenDrop,
				4: fakeapi.FaultResetBeforeCommit,
				6: fakeapi.FaultServiceUnavailable,
				9: fakeapi.FaultCommitThenDrop,
			}[puts.Add(1)]
		case http.MethodGet:
			kind = map[int64]fakeapi.FaultKind{
				3: fakeapi.FaultServiceUnavailable,
				5: fakeapi.FaultResetBeforeCommit,
			}[gets.Add(1)]
		}
		return fakeapi.Fault{Kind: kind} // FaultNone: the seeded rates decide
	}
}

// matrixPolicy never gives up on its own: under this contention a change
// may lose many writes in a row, and only the caller's deadline ends it.
// The waits are short, real ones: the replicas' jitter is what lets one of
// them win.
var matrixPolicy = etagclient.ConflictPolicy{
	InitialInterval:     time.Millisecond,
	MaxInterval:         20 * time.Millisecond,
	Multiplier:          2,
	RandomizationFactor: 0.5,
}

// profileUser is how a user configures listkeeper for one kind of server,
// and how the test sets that server up beyond its profile.
type profileUser struct {
	server  []fakeapi.Option
	client  []etagclient.Option
	headers http.Header // besides the bearer token
}

// profileUsers has an entry for every profile of fakeapi.Profiles.
func profileUsers() map[fakeapi.Profile]profileUser {
	return map[fakeapi.Profile]profileUser{
		fakeapi.ProfileStrict: {},
		// S3 answers 409 ConditionalRequestConflict to the later of two
		// overlapping conditional writes.
		fakeapi.ProfileS3: {client: []etagclient.Option{etagclient.WithDialect(stores.S3)}},
		// Azure needs the blob type on every Put Blob and answers 409 to a
		// create that finds the blob.
		fakeapi.ProfileAzureBlob: {
			client:  []etagclient.Option{etagclient.WithDialect(stores.AzureBlob)},
			headers: http.Header{"X-Ms-Blob-Type": {"BlockBlob"}},
		},
		// Apache's one-second weak window, shortened so that the case is
		// fast; the client waits it out with its default weak-ETag wait.
		fakeapi.ProfileWebDAV: {server: []fakeapi.Option{fakeapi.WithWeakWindow(50 * time.Millisecond)}},
		fakeapi.ProfileQuirky: {},
		// Google Cloud Storage ignores If-Match on writes: only the
		// generation makes them conditional.
		fakeapi.ProfileGCS: {client: []etagclient.Option{etagclient.WithDialect(stores.GCS)}},
	}
}

// matrixCase is one row of the matrix.
type matrixCase struct {
	name    string
	profile fakeapi.Profile
	user    profileUser
	seed    int64
	// failFast: every change must fail with every error of wantErr, and
	// nothing may be written; otherwise every change must be kept.
	failFast bool
	wantErr  []error
	// slash points the client at the list's URL with a trailing slash.
	slash bool
	// otherWriter commits a new version before each GET the server
	// serves, as another writer would.
	otherWriter bool
}

// TestProfileMatrix runs every profile of fakeapi.Profiles with the
// configuration a user would give listkeeper for that server, and proves
// that every change is kept; then it points the client at servers it
// cannot write to safely and proves that every change fails fast, with a
// typed error, and that nothing is written.
func TestProfileMatrix(t *testing.T) {
	users := profileUsers()
	var cases []matrixCase
	for i, p := range fakeapi.Profiles() {
		u, ok := users[p]
		if !ok {
			t.Errorf("profile %q has no entry in profileUsers: say how a user configures listkeeper for that server", p)
			continue
		}
		delete(users, p)
		cases = append(cases, matrixCase{name: string(p), profile: p, user: u, seed: int64(i + 1)})
	}
	for p := range users {
		t.Errorf("profileUsers configures %q, which fakeapi.Profiles does not list", p)
	}
	cases = append(cases,
		matrixCase{
			name: "quirky/trailing-slash URL", profile: fakeapi.ProfileQuirky, seed: 101,
			slash: true, failFast: true,
			wantErr: []error{etagclient.ErrWriteRedirected, etagclient.ErrRejected},
		},
		matrixCase{
			name: "webdav/weak ETag forever", profile: fakeapi.ProfileWebDAV, seed: 102,
			user: profileUser{
				server: []fakeapi.Option{fakeapi.WithWeakWindow(time.Hour)},
				client: []etagclient.Option{etagclient.WithWeakETagWait(0)},
			},
			otherWriter: true, failFast: true,
			wantErr: []error{etagclient.ErrWeakETag, etagclient.ErrUnsafeServer},
		},
	)
	for _, mc := range cases {
		t.Run(mc.name, func(t *testing.T) {
			if mc.failFast {
				runFailFast(t, mc)
			} else {
				runKeepsEveryChange(t, mc)
			}
		})
	}
}

// matrixBystanders are IDs that nobody touches; some need escapes.
func matrixBystanders() []string {
	return append(ids("by-", 20, 2), `by-"q"\`, "by-ü/~1", "by-<&>")
}

// matrixDocument is a list document with items among other keys, odd
// white space and number spellings that a rewrite would not keep.
func matrixDocument(items []string) []byte {
	return []byte("{\"kind\": \"allow-list\",\n  \"items\" : " + jsonArray(items) +
		" ,\n  \"meta\": {\"rev\": 1.50, \"items\": [\"decoy\"], \"note\": \"caf\\u00e9\"}}\n")
}

// matrixEnv is one case's server and replicas.
type matrixEnv struct {
	*fakeEnv
	replicas []*matrixReplica
	// closeAll closes the clients and their transports, then the server,
	// so that nothing is in flight any more; it may be called twice.
	closeAll func()
}

// matrixReplica is one operator replica: its own transport and Client.
type matrixReplica struct {
	idx int
	tr  *http.Transport
	c   *etagclient.Client
	obs *etagclient.Counters
}

// startMatrix serves doc under mc's profile, with faults and latency, and
// builds the replicas as the case's user configures them.
func startMatrix(t *testing.T, mc matrixCase, doc []byte) *matrixEnv {
	t.Helper()
	e := startFakeWrapped(t, nil, append([]fakeapi.Option{
		fakeapi.WithProfile(mc.profile),
		fakeapi.WithFaults(matrixFaults),
		fakeapi.WithLatency(500*time.Microsecond, 2*time.Millisecond),
		fakeapi.WithSeed(mc.seed),
		fakeapi.WithHistory(true),
	}, mc.user.server...)...)
	if _, err := e.api.Set(listPath, doc); err != nil {
		t.Fatalf("Set: %v", err)
	}
	e.api.SetFaultHook(forcedFaults(nil))
	rawURL := e.url
	if mc.slash {
		rawURL = e.ts.URL + listPath + "/?token=" + queryToken
	}
	headers := authHeader()
	for k, v := range mc.user.headers {
		headers[k] = v
	}
	env := &matrixEnv{fakeEnv: e}
	for i := range matrixReplicas {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = nil // never leave the loopback
		tr.MaxIdleConnsPerHost = matrixWorkers
		rep := &matrixReplica{idx: i, tr: tr, obs: new(etagclient.Counters)}
		opts := append([]etagclient.Option{
			etagclient.WithHTTPClient(&http.Client{Transport: tr}),
			etagclient.WithHeaders(headers),
			etagclient.WithItemsPointer(matrixPointer),
			etagclient.WithBatchInterval(0),
			etagclient.WithConflictPolicy(matrixPolicy),
			etagclient.WithMaxRetryAfter(5 * time.Millisecond),
			// A GET may meet a 503 or a reset several times in a row
			// across thousands of requests; the case is about writes.
			etagclient.WithTransportRetries(10, time.Millisecond, 5*time.Millisecond),
			etagclient.WithObserver(rep.obs),
		}, mc.user.client...)
		c, err := etagclient.New(rawURL, opts...)
		if err != nil {
			t.Fatalf("etagclient.New: %v", err)
		}
		rep.c = c
		env.replicas = append(env.replicas, rep)
	}
	var once sync.Once
	env.closeAll = func() {
		once.Do(func() {
			for _, rep := range env.replicas {
				rep.c.Close()
				rep.tr.CloseIdleConnections()
			}
			e.ts.Close() // waits for the handlers, so the store is final
		})
	}
	t.Cleanup(env.closeAll)
	return env
}

// outcome of a change as the caller can tell it.
type changeOutcome int

const (
	outcomeOK changeOutcome = iota
	// outcomeAmbiguous: it may or may not have been applied (the caller's
	// deadline ended the wait, or an unexpected error ended it).
	outcomeAmbiguous
)

// fate is the last change of an ID.
type fate struct {
	add     bool
	outcome changeOutcome
}

// ledger records what the workers did and saw. It is safe for concurrent
// use.
type ledger struct {
	mu         sync.Mutex
	last       map[string]fate
	changes    int
	ok         int
	late       []string // changes that hit their deadline, or took too long to fail
	unexpected []string
	wrong      []string // acknowledged changes the store did not show
	maxLatency time.Duration
}

func (l *ledger) record(id string, add bool, out changeOutcome, latency time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last[id] = fate{add: add, outcome: out}
	l.changes++
	if out == outcomeOK {
		l.ok++
	}
	l.maxLatency = max(l.maxLatency, latency)
}

func (l *ledger) note(list *[]string, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*list = append(*list, fmt.Sprintf(format, args...))
}

// removable is a replica's pool of IDs it added successfully, which other
// replicas remove.
type removable struct {
	mu  sync.Mutex
	ids []string
}

func (p *removable) put(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
}

func (p *removable) take(rng *rand.Rand) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return "", false
	}
	i := rng.IntN(len(p.ids))
	id := p.ids[i]
	p.ids[i] = p.ids[len(p.ids)-1]
	p.ids = p.ids[:len(p.ids)-1]
	return id, true
}

// runKeepsEveryChange: each worker adds IDs of its own and removes IDs
// that another replica added, so a lost update shows either as an ID that
// is gone although its addition was acknowledged, or as one that is back
// although its removal was. After the run the store must hold exactly the
// bystanders, in order, plus every ID whose last change was an
// acknowledged addition, and the bytes outside the items array unchanged.
func runKeepsEveryChange(t *testing.T, mc matrixCase) {
	bystanders := matrixBystanders()
	initial := matrixDocument(bystanders)
	env := startMatrix(t, mc, initial)
	led := &ledger{last: map[string]fate{}}
	pools := make([]*removable, matrixReplicas)
	for i := range pools {
		pools[i] = new(removable)
	}

	// change makes one change and checks that an acknowledged one shows in
	// the store at once: nobody else touches the ID meanwhile (an ID is
	// removable only once its addition returned).
	change := func(rep *matrixReplica, id string, add bool) changeOutcome {
		ch := etagclient.Change{Remove: []string{id}}
		if add {
			ch = etagclient.Change{Add: []string{id}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), matrixDeadline)
		defer cancel()
		start := time.Now()
		_, err := rep.c.Update(ctx, ch)
		latency := time.Since(start)
		checkNoSecrets(t, err)
		out := outcomeOK
		switch {
		case err == nil:
			body, _, _ := env.api.Get(listPath)
			if on := bytes.Contains(body, []byte(`"`+id+`"`)); on != add {
				led.note(&led.wrong, "replica %d: %+v acknowledged, but the store has %s present=%v", rep.idx, ch, id, on)
			}
		case errors.Is(err, context.DeadlineExceeded):
			out = outcomeAmbiguous
			led.note(&led.late, "replica %d: %+v: %v", rep.idx, ch, err)
		default:
			out = outcomeAmbiguous
			led.note(&led.unexpected, "replica %d: %+v: %v", rep.idx, ch, err)
		}
		led.record(id, add, out, latency)
		return out
	}

	start := time.Now()
	var wg sync.WaitGroup
	for _, rep := range env.replicas {
		for w := range matrixWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(mc.seed), uint64(rep.idx*matrixWorkers+w)))
				for i := range matrixAdds {
					id := fmt.Sprintf("r%d-w%02d-%02d", rep.idx, w, i)
					if change(rep, id, true) == outcomeOK {
						pools[rep.idx].put(id)
					}
					other := pools[(rep.idx+1+rng.IntN(matrixReplicas-1))%matrixReplicas]
					if victim, ok := other.take(rng); ok {
						change(rep, victim, false)
					}
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	env.closeAll()

	for _, s := range led.wrong {
		t.Errorf("acknowledged but not in the store: %s", s)
	}
	for _, s := range led.unexpected {
		t.Errorf("unexpected error: %s", s)
	}
	for _, s := range led.late {
		t.Errorf("hit the caller's %s deadline (a livelock or a stuck cycle): %s", matrixDeadline, s)
	}

	body, _, ok := env.api.Get(listPath)
	if !ok {
		t.Fatalf("the list document is gone")
	}
	checkKept(t, body, initial, bystanders, led.last)
	checkVersions(t, env.api.History(listPath), initial, bystanders)
	logMatrix(t, mc.name, env, led, elapsed)

	st := env.api.Stats()
	if st.Faults[fakeapi.FaultCommitThenDrop] < 2 || st.Faults[fakeapi.FaultServiceUnavailable] < 2 || st.Faults[fakeapi.FaultResetBeforeCommit] < 2 {
		t.Errorf("faults %v: every kind must have happened for the case to test what it should", st.Faults)
	}
	if mc.profile == fakeapi.ProfileS3 && st.Count(http.MethodPut, http.StatusConflict) == 0 {
		t.Errorf("no PUT got 409: the replicas' writes did not race")
	}
}

// checkKept checks the final document: the bytes outside the items array
// as they were, the bystanders in their order, every acknowledged addition
// that was not removed since, no acknowledged removal, nothing else, and
// no ID twice.
func checkKept(t *testing.T, body, initial []byte, bystanders []string, last map[string]fate) {
	t.Helper()
	p, _ := etagclient.ParsePointer(matrixPointer)
	doc, err := etagclient.ParseDocument(body, p)
	if err != nil {
		t.Fatalf("final document %s: %v", body, err)
	}
	first, _ := etagclient.ParseDocument(initial, p)
	if d := outsideDiff(doc, first); d != "" {
		t.Errorf("final document: %s", d)
	}
	var by []string
	seen := map[string]bool{}
	isBystander := map[string]bool{}
	for _, id := range bystanders {
		isBystander[id] = true
	}
	for _, id := range doc.Items() {
		if seen[id] {
			t.Errorf("final document: %q is on the list twice", id)
		}
		seen[id] = true
		if isBystander[id] {
			by = append(by, id)
			continue
		}
		f, known := last[id]
		switch {
		case !known:
			t.Errorf("final document: %q was never added", id)
		case !f.add && f.outcome == outcomeOK:
			t.Errorf("final document: %q is back after its removal was acknowledged (resurrected)", id)
		}
	}
	if !slices.Equal(by, bystanders) {
		t.Errorf("final document: bystanders %q, want %q", by, bystanders)
	}
	var lost []string
	for id, f := range last {
		if f.add && f.outcome == outcomeOK && !seen[id] {
			lost = append(lost, id)
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		t.Errorf("final document: %d acknowledged additions are missing (lost updates): %q", len(lost), lost)
	}
}

// outsideDiff describes how doc's bytes outside the items array differ
// from want's; "" when they do not.
func outsideDiff(doc, want *etagclient.Document) string {
	b, a := doc.Outside()
	wb, wa := want.Outside()
	if bytes.Equal(b, wb) && bytes.Equal(a, wa) {
		return ""
	}
	return fmt.Sprintf("the bytes outside the items array changed:\n got %q ... %q\nwant %q ... %q", b, a, wb, wa)
}

// maxVersionProblems bounds what checkVersions reports: a broken client
// breaks most versions, and the first few tell the story.
const maxVersionProblems = 10

// checkVersions checks every committed version: it parses, keeps the bytes
// outside the items array and the bystanders in order, and no ID comes
// back once it left the list (each ID is added once and removed once, so
// a return is a lost removal, whatever the changes' outcomes).
func checkVersions(t *testing.T, versions []fakeapi.Version, initial []byte, bystanders []string) {
	t.Helper()
	p, _ := etagclient.ParsePointer(matrixPointer)
	first, _ := etagclient.ParseDocument(initial, p)
	isBystander := map[string]bool{}
	for _, id := range bystanders {
		isBystander[id] = true
	}
	var problems []string
	report := func(i int, v fakeapi.Version, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("version %d (%s): ", i, v.ETag)+fmt.Sprintf(format, args...))
	}
	gone := map[string]int{} // ID -> the version it left the list in
	prev := map[string]bool{}
	for i, v := range versions {
		doc, err := etagclient.ParseDocument(v.Body, p)
		if err != nil {
			report(i, v, "%v", err)
			continue
		}
		if d := outsideDiff(doc, first); d != "" {
			report(i, v, "%s", d)
		}
		var by []string
		now := map[string]bool{}
		for _, id := range doc.Items() {
			if isBystander[id] {
				by = append(by, id)
				continue
			}
			now[id] = true
			if at, was := gone[id]; was {
				report(i, v, "%q is back after it left the list in version %d", id, at)
			}
		}
		if !slices.Equal(by, bystanders) {
			report(i, v, "bystanders changed: %q", by)
		}
		for id := range prev {
			if !now[id] {
				gone[id] = i
			}
		}
		prev = now
	}
	for i, pr := range problems {
		if i == maxVersionProblems {
			t.Errorf("... and %d more problems in the history", len(problems)-i)
			break
		}
		t.Errorf("%s", pr)
	}
}

// logMatrix reports what a case cost.
func logMatrix(t *testing.T, name string, env *matrixEnv, led *ledger, elapsed time.Duration) {
	t.Helper()
	st := env.api.Stats()
	var sum etagclient.Counters
	for _, rep := range env.replicas {
		sum.Batches.Add(rep.obs.Batches.Load())
		sum.BatchedChanges.Add(rep.obs.BatchedChanges.Load())
		sum.Conflicts.Add(rep.obs.Conflicts.Load())
		sum.Ambiguous.Add(rep.obs.Ambiguous.Load())
		sum.Written.Add(rep.obs.Written.Load())
		sum.Errors.Add(rep.obs.Errors.Load())
	}
	var faults int64
	for _, n := range st.Faults {
		faults += n
	}
	t.Logf("%s: %d changes (%d ok) in %s, slowest %s; %d PUTs, %d answered 412, %d answered 409; %d faults",
		name, led.changes, led.ok, elapsed.Round(time.Millisecond), led.maxLatency.Round(time.Millisecond),
		sumCodes(st, http.MethodPut), st.Count(http.MethodPut, http.StatusPreconditionFailed), st.Count(http.MethodPut, http.StatusConflict), faults)
	t.Logf("server: %d requests: PUT %v, GET %v; %d commits; faults %v",
		st.Total, st.Requests[http.MethodPut], st.Requests[http.MethodGet], st.Commits, st.Faults)
	t.Logf("clients: %d write attempts carrying %d changes, %d written, %d conflicts (412/409), %d ambiguous, %d failed cycles",
		sum.Batches.Load(), sum.BatchedChanges.Load(), sum.Written.Load(), sum.Conflicts.Load(), sum.Ambiguous.Load(), sum.Errors.Load())
}

// runFailFast: every worker makes changes that need a write (additions of
// new IDs, removals of bystanders); each must fail within failFastBound
// with the case's typed error, and the store must show no write of the
// clients.
func runFailFast(t *testing.T, mc matrixCase) {
	bystanders := matrixBystanders()
	initial := matrixDocument(bystanders)
	env := startMatrix(t, mc, initial)

	var others atomic.Int64
	otherDoc := func(n int64) []byte {
		return matrixDocument(append(slices.Clone(bystanders), fmt.Sprintf("other-%d", n)))
	}
	if mc.otherWriter {
		env.api.SetFaultHook(forcedFaults(func(r *http.Request) {
			if r.Method == http.MethodGet {
				// Set errs only on a bad path or body, and both are fixed.
				_, _ = env.api.Set(listPath, otherDoc(others.Add(1)))
			}
		}))
	}

	led := &ledger{last: map[string]fate{}}
	var clientIDs []string
	var mu sync.Mutex
	start := time.Now()
	var wg sync.WaitGroup
	for _, rep := range env.replicas {
		for w := range matrixWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range failFastChanges {
					id := fmt.Sprintf("r%d-w%02d-%02d", rep.idx, w, i)
					ch := etagclient.Change{Add: []string{id}}
					if i%2 == 1 {
						ch = etagclient.Change{Remove: []string{bystanders[(rep.idx*matrixWorkers+w+i)%len(bystanders)]}}
					} else {
						mu.Lock()
						clientIDs = append(clientIDs, id)
						mu.Unlock()
					}
					ctx, cancel := context.WithTimeout(context.Background(), 2*failFastBound)
					began := time.Now()
					_, err := rep.c.Update(ctx, ch)
					latency := time.Since(began)
					cancel()
					checkNoSecrets(t, err)
					for _, want := range mc.wantErr {
						if !errors.Is(err, want) {
							led.note(&led.unexpected, "replica %d: %+v: err = %v, want one wrapping %v", rep.idx, ch, err, want)
							break
						}
					}
					if latency > failFastBound {
						led.note(&led.late, "replica %d: %+v took %s", rep.idx, ch, latency)
					}
					led.record(id, i%2 == 0, outcomeAmbiguous, latency)
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	env.closeAll()

	for _, s := range led.unexpected {
		t.Errorf("%s", s)
	}
	for _, s := range led.late {
		t.Errorf("not fast (bound %s): %s", failFastBound, s)
	}

	st := env.api.Stats()
	if st.Commits != 0 {
		t.Errorf("the server committed %d writes, want none", st.Commits)
	}
	want := initial
	if n := others.Load(); n > 0 {
		want = otherDoc(n)
	}
	if got, _, _ := env.api.Get(listPath); !bytes.Equal(got, want) {
		t.Errorf("final document:\n got %s\nwant %s", got, want)
	}
	for i, v := range env.api.History(listPath) {
		for _, id := range clientIDs {
			if bytes.Contains(v.Body, []byte(`"`+id+`"`)) {
				t.Errorf("version %d (%s) holds %q, which only the clients added", i, v.ETag, id)
			}
		}
	}
	checkBoundedPuts(t, env, mc, led.changes)
	logMatrix(t, mc.name, env, led, elapsed)
}

// checkBoundedPuts checks that the clients made one PUT per cycle and no
// more: a PUT that got an answer ended its cycle, and only a PUT whose
// answer was lost (which may have landed) was followed by another in the
// same cycle. The webdav case must not have sent a PUT at all.
func checkBoundedPuts(t *testing.T, env *matrixEnv, mc matrixCase, changes int) {
	t.Helper()
	codes := map[int]int{}
	for _, r := range env.rec.requests() {
		if r.Method == http.MethodPut {
			codes[r.Code]++
		}
	}
	var attempts, failedCycles int64
	for _, rep := range env.replicas {
		attempts += rep.obs.Batches.Load()
		failedCycles += rep.obs.Errors.Load()
	}
	if !mc.slash {
		if len(codes) != 0 || attempts != 0 {
			t.Errorf("PUTs by status %v, %d write attempts: want none", codes, attempts)
		}
		return
	}
	answered, lost, busy := codes[http.StatusMovedPermanently], codes[0], codes[http.StatusServiceUnavailable]
	if total := answered + lost + busy; total != sumOf(codes) {
		t.Errorf("PUTs by status %v: want only 301, 503 (injected) and dropped ones", codes)
	}
	if int64(answered) != failedCycles {
		t.Errorf("%d PUTs answered 301, but %d cycles failed: want one PUT answered per cycle", answered, failedCycles)
	}
	if answered > changes {
		t.Errorf("%d PUTs answered 301 for %d changes", answered, changes)
	}
	if attempts > int64(answered+lost) {
		t.Errorf("%d write attempts, but only %d PUTs were answered and %d dropped: a retry storm", attempts, answered, lost)
	}
}

func sumOf(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
