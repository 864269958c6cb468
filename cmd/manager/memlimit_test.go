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

package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/go-logr/logr"
)

func TestSoftMemoryLimit(t *testing.T) {
	tests := []struct {
		name               string
		goMemLimit, limit  string
		want               int64
		wantOK, wantErrors bool
	}{
		{name: "256Mi limit", limit: "268435456", want: 241591910, wantOK: true},
		{name: "1Gi limit", limit: "1073741824", want: 966367641, wantOK: true},
		{name: "spaces around the number", limit: " 1000 \n", want: 900, wantOK: true},
		{name: "GOMEMLIMIT set wins", goMemLimit: "100MiB", limit: "268435456"},
		{name: "GOMEMLIMIT off wins", goMemLimit: "off", limit: "268435456"},
		{name: "no container limit", limit: ""},
		{name: "neither", goMemLimit: "", limit: ""},
		{name: "quantity, not bytes", limit: "256Mi", wantErrors: true},
		{name: "zero", limit: "0", wantErrors: true},
		{name: "negative", limit: "-5", wantErrors: true},
		{name: "overflows int64", limit: "99999999999999999999", wantErrors: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := softMemoryLimit(tc.goMemLimit, tc.limit)
			if (err != nil) != tc.wantErrors {
				t.Fatalf("softMemoryLimit(%q, %q) error = %v, want error: %t", tc.goMemLimit, tc.limit, err, tc.wantErrors)
			}
			if ok != tc.wantOK || got != tc.want {
				t.Errorf("softMemoryLimit(%q, %q) = %d, %t; want %d, %t", tc.goMemLimit, tc.limit, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestSetMemoryLimit checks that the limit reaches the runtime, and that a
// bad value is refused without touching it.
func TestSetMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	t.Setenv(goMemLimitEnv, "")
	t.Setenv(memoryLimitEnv, "268435456")
	if err := setMemoryLimit(logr.Discard()); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 241591910 {
		t.Errorf("runtime soft memory limit = %d, want 241591910 (90%% of 256Mi)", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv(memoryLimitEnv, "256Mi")
	if err := setMemoryLimit(logr.Discard()); err == nil {
		t.Error("setMemoryLimit accepted MEMORY_LIMIT_BYTES=256Mi")
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("a refused MEMORY_LIMIT_BYTES changed the runtime limit to %d", got)
	}
}
