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

package testenv

import "testing"

// StartForTest starts a control plane of t's own with opts and stops it
// when t and its subtests are done. It fails t at once, with the reason,
// when the control plane is not available.
//
// It is for a test that would change what the package's shared control
// plane serves to every other test: one that deletes or replaces the CRDs
// (a helm upgrade over an older chart's CRDs), or needs a cluster without
// them. Such a test starts its own here; the other tests keep the shared
// Env of Main. A start takes seconds, tens on a busy machine, so the tests
// that can share one do.
func StartForTest(t testing.TB, opts Options) *Env {
	t.Helper()
	e, err := Start(opts)
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stop the test's own control plane: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("envtest is not available: %v", err)
	}
	return e
}
