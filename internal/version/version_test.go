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

package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	oldV, oldR := Version, Revision
	t.Cleanup(func() { Version, Revision = oldV, oldR })
	Version, Revision = "v1.2.3", "0a1b2c3"
	got := String("manager")
	want := "manager v1.2.3 (revision 0a1b2c3, " + runtime.Version() + ")"
	if got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
}

func TestDefaults(t *testing.T) {
	// The test binary is linked without -X, so the defaults show.
	if Version != "dev" || Revision != "unknown" {
		t.Fatalf("defaults are %q/%q, want dev/unknown", Version, Revision)
	}
	if !strings.HasPrefix(GoVersion(), "go") {
		t.Fatalf("GoVersion = %q", GoVersion())
	}
}
