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

import (
	"fmt"
	"os"
	"testing"
)

// Main is the body of a TestMain: it starts the control plane with opts,
// calls setup, runs the tests, stops the control plane and returns the
// exit code for os.Exit.
//
// setup is called once before the tests, whether or not the control plane
// is available, so that the package can keep the Env for Require; when
// e.Err() is not nil it should do nothing more and return that error. An
// error from setup makes the Env not available, with that error as the
// reason unless there is one already. setup may be nil.
//
// The tests run even when the control plane is not available: those that
// need it fail in Require with the reason, the others pass or fail on
// their own.
func Main(m *testing.M, opts Options, setup func(e *Env) error) int {
	e, _ := Start(opts) // the reason is kept in e for Require
	defer func() {
		if err := e.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		}
	}()
	e.setUp(setup)
	return m.Run()
}

// setUp calls setup, if any, and records its error as the reason the Env
// is not available, unless there is one already.
func (e *Env) setUp(setup func(e *Env) error) {
	if setup == nil {
		return
	}
	if err := setup(e); err != nil && e.err == nil {
		e.err = fmt.Errorf("set up the tests: %w", err)
	}
}
