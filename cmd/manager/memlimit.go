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
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
)

// Environment variables that size the Go runtime's soft memory limit.
const (
	// goMemLimitEnv is the Go runtime's own setting; when it is set, it wins.
	goMemLimitEnv = "GOMEMLIMIT"
	// memoryLimitEnv carries the container's memory limit in bytes, from
	// the downward API (resourceFieldRef limits.memory).
	memoryLimitEnv = "MEMORY_LIMIT_BYTES"
)

// memoryLimitFraction of the container's memory limit becomes the soft
// limit: the collector works harder near it, and the rest is headroom for
// memory the runtime does not count (stacks in flight, cgo, page cache).
const memoryLimitFraction = 0.9

// softMemoryLimit decides the runtime's soft memory limit from the values of
// GOMEMLIMIT and MEMORY_LIMIT_BYTES. It returns ok=false when nothing is to
// be set: GOMEMLIMIT is set (the runtime already applied it), or there is no
// container limit. A MEMORY_LIMIT_BYTES that is not a positive integer is an
// error.
func softMemoryLimit(goMemLimit, limitBytes string) (limit int64, ok bool, err error) {
	if strings.TrimSpace(goMemLimit) != "" {
		return 0, false, nil
	}
	s := strings.TrimSpace(limitBytes)
	if s == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false, fmt.Errorf("%s=%q: want the container's memory limit as a positive number of bytes", memoryLimitEnv, limitBytes)
	}
	return int64(float64(n) * memoryLimitFraction), true, nil
}

// setMemoryLimit sets the runtime's soft memory limit to 90% of the
// container's memory limit, unless GOMEMLIMIT is set, and logs what it did.
func setMemoryLimit(log logr.Logger) error {
	limit, ok, err := softMemoryLimit(os.Getenv(goMemLimitEnv), os.Getenv(memoryLimitEnv))
	if err != nil {
		return err
	}
	if !ok {
		log.Info("Go soft memory limit left to the runtime", "GOMEMLIMIT", os.Getenv(goMemLimitEnv), "limitBytes", debug.SetMemoryLimit(-1))
		return nil
	}
	debug.SetMemoryLimit(limit)
	log.Info("Go soft memory limit set from the container's memory limit", "limitBytes", limit, "fraction", memoryLimitFraction)
	return nil
}
