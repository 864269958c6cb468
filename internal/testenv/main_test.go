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
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The package's own tests run on the environment they test, started the
// way every envtest suite starts it.

const (
	testUser  = "testenv-admin"
	testQPS   = 123
	testBurst = 456
)

var env *Env

func TestMain(m *testing.M) {
	os.Exit(Main(m, Options{
		CRDDirectory: ProjectCRDs,
		QPS:          testQPS,
		Burst:        testBurst,
		Users:        []envtest.User{{Name: testUser, Groups: []string{"system:masters"}}},
	}, func(e *Env) error {
		env = e
		return nil
	}))
}
