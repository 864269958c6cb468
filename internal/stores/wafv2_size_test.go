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
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// manyAddresses returns n distinct IPv4 host CIDRs.
func manyAddresses(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.%d.%d.%d/32", i>>16&255, i>>8&255, i&255)
	}
	return out
}

// TestWAFv2AnswerOverItemCapRefusedBeforeDecoding: an answer within the
// body limit that holds more addresses than the item limit fails with
// ErrTooManyItems before the SDK decodes it. The SDK decodes a whole answer
// into generic values and then into its types, at about ten times the
// answer's size (+73-86 MiB for one 8 MiB answer), and the item limit was
// only checked on what it returned. The mallocs of the read tell the two
// apart: decoding 40,000 addresses is over 100,000 allocations, refusing
// the answer a few hundred.
func TestWAFv2AnswerOverItemCapRefusedBeforeDecoding(t *testing.T) {
	f := startWAF(t, wafv2fake.WithMaxAddresses(40_000))
	if _, err := f.srv.SetAddresses(wafv2fake.ScopeRegional, f.id, manyAddresses(40_000)); err != nil {
		t.Fatal(err)
	}
	env := wafEnv(t, 0)
	env.MaxItems = 10_000
	b, err := wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, env)
	if err != nil {
		t.Fatal(err)
	}
	// A first read warms up the SDK's and the connection's own
	// allocations, so that the measured one counts the answer's.
	if _, err := b.Read(t.Context(), etagclient.Version{}); !errors.Is(err, etagclient.ErrTooManyItems) {
		t.Fatalf("first read: %v, want ErrTooManyItems", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = b.Read(t.Context(), etagclient.Version{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, etagclient.ErrTooManyItems) {
		t.Fatalf("40,000 addresses over a limit of 10,000: %v, want ErrTooManyItems", err)
	}
	if n := after.Mallocs - before.Mallocs; n > 20_000 {
		t.Errorf("the read made %d allocations: the SDK decoded the answer before the item limit refused it", n)
	}
	t.Logf("read made %d allocations, %d bytes", after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc)
	safeText(t, err)
}

// TestWAFv2AnswerOverByteCap: an answer longer than the body limit fails
// with the size error, whether or not it announced its length.
func TestWAFv2AnswerOverByteCap(t *testing.T) {
	f := startWAF(t, wafv2fake.WithMaxAddresses(40_000))
	if _, err := f.srv.SetAddresses(wafv2fake.ScopeRegional, f.id, manyAddresses(40_000)); err != nil {
		t.Fatal(err)
	}
	env := wafEnv(t, 0)
	env.MaxBodyBytes = 256 << 10
	b, err := wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Read(t.Context(), etagclient.Version{})
	if !errors.Is(err, etagclient.ErrTooLarge) || !errors.Is(err, etagclient.ErrInvalidDocument) {
		t.Fatalf("an answer of 760 KiB over a limit of 256 KiB: %v, want ErrTooLarge", err)
	}
	safeText(t, err)
}
